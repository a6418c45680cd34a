"""Fixtures for service-level tests: a real SQLite store in a temp dir, a settable clock;
and a real PostgreSQL server for the whole session, started on first use."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest

from bot.core.service import GameService, ServiceConfig, User, _random_decision
from bot.db.sqlite import Store
from engine import Game
from tests.pgserver import TempPostgres

ANN = User(101, "Ann")
BOB = User(102, "Bob")
CY = User(103, "Cy")
EVE = User(104, "Eve")  # never seated
CHANNEL = 900
GUILD = 1


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def random_ai(game: Game, seconds: float) -> list[str]:
    """A quick, deterministic computer player for tests (the real AI is tested in tests/engine)."""
    return _random_decision(game, random.Random(len(game.legal())))


@dataclass
class Env:
    store: Store
    service: GameService
    clock: Clock
    path: str

    async def reopen(self) -> Env:
        """A fresh store and service on the same file, as after a restart."""
        store = await Store.open(self.path)
        service = GameService(
            store, self.service.config, clock=self.clock, choose_actions=random_ai
        )
        return Env(store, service, self.clock, self.path)


CONFIG = ServiceConfig(
    ai_seconds=0.01,
    reminder_interval=3600.0,
    reminder_limit=2,
    idle_cancel_after=86400.0,
    seed=7,
)


@pytest.fixture
async def env(tmp_path) -> AsyncIterator[Env]:
    path = str(tmp_path / "torres.db")
    store = await Store.open(path)
    clock = Clock()
    service = GameService(store, CONFIG, clock=clock, choose_actions=random_ai)
    yield Env(store, service, clock, path)
    await store.close()


@pytest.fixture(scope="session")
def postgres() -> Iterator[TempPostgres]:
    """A throw-away PostgreSQL server (tests/pgserver.py); each test makes its own database."""
    with TempPostgres() as pg:
        yield pg


def random_position(seed: int, steps: int, variant: str = "common") -> Game:
    """A game some random actions in (setup included)."""
    rng = random.Random(seed)
    game = Game.new(players=rng.choice((2, 3, 4)), variant=variant, seed=seed)
    for _ in range(steps):
        legal = game.legal()
        if not legal:
            break
        game.play(rng.choice(legal))
    return game
