"""The play panel end to end: the real bot process, turns played by taps alone.

alice and bob play through the private panel opened by the Play button of each
turn message; the test keeps an ``engine.Game`` mirror, counts taps per
decision and checks what the panel and the channel show.
"""

from __future__ import annotations

import random

from bot.panel import DO, WHAT
from engine import Game
from tests.bot.e2e._harness import (
    SEED,
    TIMEOUT,
    BotRunner,
    PanelDriver,
    Table,
    compress_scores,
    open_game,
)
from tests.fakediscord import FakeMessage

SEATS = {"red": "alice", "blue": "bob"}


async def latest_turn_message(t: Table, after_seq: int) -> FakeMessage:
    def found() -> FakeMessage | None:
        posts = [
            m
            for m in t.fake.channel_messages(t.channel)
            if m.seq > after_seq and m.attachments and not m.ephemeral
        ]
        return posts[-1] if posts else None

    return await t.fake.wait_until(found, TIMEOUT, "a new turn message")


def plan(game: Game, rng: random.Random, wanted: int) -> list[str]:
    """Up to *wanted* random actions, then end (setup decisions: one action)."""
    work = game.copy()
    if work.stage != "play":
        return [rng.choice(work.legal())]
    out: list[str] = []
    for _ in range(12):
        legal = work.legal()
        others = [a for a in legal if a != "end" and not a.startswith(("draw", "play"))]
        if "end" in legal and (len(out) >= wanted or not others):
            return [*out, "end"]
        action = rng.choice(others or legal)
        work.play(action)
        out.append(action)
        if work.stage != "play" or work.to_move != game.to_move:
            return out
    return [*out, "end"]


async def tap_decision(
    t: Table, game: Game, post: FakeMessage, actions: list[str]
) -> tuple[PanelDriver, FakeMessage]:
    """Play *actions* by taps through the mover's panel; returns the driver and the next post."""
    assert game.to_move is not None
    who = SEATS[game.to_move]
    driver = PanelDriver(t.fake, who)
    await driver.open(post)
    seq = t.fake.last_seq
    for action in compress_scores(actions):
        if action == "end":
            await driver.end()
        else:
            await driver.do(action)
    game.play("; ".join(actions))
    nxt = await latest_turn_message(t, seq)
    return driver, nxt


async def test_a_game_by_taps(runner: BotRunner) -> None:
    t = Table(runner)
    game_id = await open_game(t)
    game = Game.new(players=2, names=list(SEATS), seed=SEED)
    post = await latest_turn_message(t, 0)
    rng = random.Random(5)
    taps: list[tuple[str, int]] = []
    for _ in range(10):
        actions = plan(game, rng, rng.choice((1, 2, 3)))
        driver, post = await tap_decision(t, game, post, actions)
        taps.append(("; ".join(actions), driver.taps))
        print(taps[-1], driver.seen)
    print(game_id, taps)
    assert False, t.fake.transcript()
