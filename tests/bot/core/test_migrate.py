"""``python -m bot migrate``: games move between SQLite and a real PostgreSQL, verified."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from bot.core.migrate import MigrationError, migrate
from bot.core.service import GameService, ServiceConfig, User, _random_decision
from bot.db.contract import GameStore, open_store
from bot.db.rows import TutorialRow
from tests.bot.conftest import random_ai

ANN, BOB = User(1, "ann"), User(2, "bob")


async def _all_unsent(store: GameStore) -> list[tuple[int, float, dict]]:
    """Every queued post not yet delivered, of every game."""
    return [row for g in await store.games_with_unsent() for row in await store.unsent(g)]


async def _fill(store: GameStore) -> None:
    """Four games: one running a while, one open, one cancelled, one just started
    with a 128-bit seed."""
    service = GameService(store, ServiceConfig(seed=11), choose_actions=random_ai)
    await service.new(guild_id=1, channel_id=10, user=ANN, players=2, bots=0)
    await service.join(channel_id=10, user=BOB)
    await service.start(channel_id=10, user=ANN)
    rng = random.Random(5)
    for _ in range(12):
        row = await store.active_game(10)
        assert row is not None
        game = await service._load(row)
        user = ANN if game.to_move == "red" else BOB
        await service.play(channel_id=10, user=user, text="; ".join(_random_decision(game, rng)))
    await service.new(guild_id=1, channel_id=11, user=BOB, players=3, bots=1)
    await service.new(guild_id=2, channel_id=12, user=ANN, players=2, bots=1)
    await service.cancel(channel_id=12, user=ANN, can_manage_channel=False)
    wide = GameService(store, ServiceConfig(seed=2**128 - 3), choose_actions=random_ai)
    await wide.new(guild_id=2, channel_id=13, user=BOB, players=2, bots=1)
    await wide.start(channel_id=13, user=BOB)  # a 128-bit seed, in the rows and positions
    tutorial = TutorialRow(1, 2**128 - 5, ("place c3",), ("place",), (), 2, True, 1.5, 2.5)
    await store.save_tutorial(tutorial, replacing=None)  # /torres learn's table moves too


async def _dump(store: GameStore) -> list[tuple]:
    games = await store.games_with_status("open", "running", "over", "cancelled")
    out = []
    for g in games:
        out.append((g, await store.seats(g.id), await store.actions(g.id)))
    return out


async def test_sqlite_to_postgresql_and_back(tmp_path, postgres):
    """Everything arrives unchanged both ways; new games continue after the copied ids."""
    first = str(tmp_path / "a.db")
    store = await open_store(first)
    await _fill(store)
    before = await _dump(store)
    unsent = await _all_unsent(store)
    await store.close()

    url = postgres.create_database("mig")
    summary = await migrate(first, url)
    assert "Moved 4 games (1 cancelled, 1 open, 2 running)" in summary
    assert "every game's log replays" in summary
    pg = await open_store(url)
    assert await _dump(pg) == before
    assert await _all_unsent(pg) == unsent
    service = GameService(pg, ServiceConfig(seed=1), choose_actions=random_ai)
    await service.new(guild_id=1, channel_id=99, user=ANN)
    assert (await pg.active_game(99)).id == 5  # type: ignore[union-attr]
    await pg.close()

    back = str(tmp_path / "b.db")
    assert "Moved 5 games" in await migrate(url, back)
    store = await open_store(back)
    assert (await _dump(store))[:4] == before
    await store.close()


async def test_refuses_a_target_with_games_and_a_broken_source(tmp_path, postgres):
    """Nothing is copied into a database that has games, nor from one whose log is broken."""
    source = str(tmp_path / "a.db")
    store = await open_store(source)
    await _fill(store)
    await store.close()
    url = postgres.create_database("mig")
    await migrate(source, url)
    with pytest.raises(MigrationError, match="already holds 4 games"):
        await migrate(source, url)

    broken = await open_store(str(tmp_path / "c.db"))
    await _fill(broken)
    async with broken.transaction() as conn:  # type: ignore[attr-defined]
        await conn.execute("UPDATE games SET position = initial WHERE status = 'running'")
    await broken.close()
    empty = postgres.create_database("mig")
    with pytest.raises(MigrationError, match="game #1: its log does not lead to the stored"):
        await migrate(str(tmp_path / "c.db"), empty)
    check = await open_store(empty)
    assert await check.games_with_status("open", "running", "over", "cancelled") == []
    await check.close()


def test_command_line(tmp_path, postgres):
    """The command prints what it moved, and a clear error (exit 1) when it refuses."""
    source = tmp_path / "a.db"
    url = postgres.create_database("mig")
    cmd = [sys.executable, "-m", "bot", "migrate", "--from", str(source), "--to", url]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Moved 0 games (none)")
    same = [sys.executable, "-m", "bot", "migrate", "--from", url, "--to", url]
    done = subprocess.run(same, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == "error: --from and --to name the same database.\n"
