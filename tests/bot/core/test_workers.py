"""Computer players in worker processes: the same choices as in-process, and a dead worker heals."""

from __future__ import annotations

import os
import random
import signal
import threading
from concurrent.futures.process import _ExecutorManagerThread

import pytest

from bot.core.service import GameService, ServiceConfig, User, _engine_ai, _random_decision
from bot.core.workers import WorkerPool
from bot.db.contract import open_store
from engine import Game


def _positions() -> list[Game]:
    """Games at a few points: setup, and a few turns in, in two variants."""
    out = []
    for variant, seed in (("common", 3), ("personal", 8)):
        game = Game.new(players=3, names=["red", "blue", "green"], variant=variant, seed=seed)
        rng = random.Random(seed)
        for step in range(21):
            if game.stage == "over":
                break
            if step in (0, 8, 20):
                out.append(game.copy())
            game.play("; ".join(_random_decision(game, rng)))
    return out


def _unhurried(game: Game, seconds: float, level: str) -> list[str]:
    """The engine's player with a small work budget and a long deadline.

    A decision is reproducible while its node budget, not the wall clock, stops
    it; a busy test machine must not turn that into a flaky comparison.
    """
    import engine.ai as ai

    saved, ai.NODES_PER_SECOND = ai.NODES_PER_SECOND, 400
    try:
        return list(ai.choose_actions(game, seconds=seconds, level=level))
    finally:
        ai.NODES_PER_SECOND = saved


def _pid(_: int) -> int:
    return os.getpid()


@pytest.fixture
async def pool():
    workers = WorkerPool(2)
    await workers.start()
    yield workers
    await workers.aclose()


async def test_a_worker_chooses_exactly_what_the_bot_process_would(pool):
    """Determinism survives the trip to another process (the whole game is pickled)."""
    for level in ("heuristic", "search"):
        for game in _positions():
            here = _unhurried(game.copy(), 1.0, level)
            assert await pool.run(_unhurried, game.copy(), 1.0, level) == here
    # the bot's own chooser pickles (a module-level function, not a closure)
    choose = _engine_ai("random")
    game = _positions()[1]
    assert await pool.run(choose, game.copy(), 0.01) == choose(game.copy(), 0.01)


async def test_a_killed_worker_is_replaced(pool):
    """A worker that dies (out of memory, killed) breaks the pool; the next call gets a new one."""
    pids = {await pool.run(_pid, i) for i in range(4)}
    assert os.getpid() not in pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    fresh = await pool.run(_pid, 0)
    assert fresh not in pids and fresh != os.getpid()


async def test_the_service_plays_computer_moves_in_workers(tmp_path, pool):
    """A game with a computer player advances through the worker pool."""
    store = await open_store(str(tmp_path / "t.db"))
    service = GameService(
        store, ServiceConfig(seed=5, ai_seconds=0.02, ai_level="heuristic"), workers=pool
    )
    ann = User(1, "ann")
    await service.new(guild_id=1, channel_id=3, user=ann, players=2, bots=1)
    await service.start(channel_id=3, user=ann)
    row = await store.active_game(3)
    assert row is not None
    game = await service._load(row)
    if game.to_move == "red":
        await service.play(channel_id=3, user=ann, text=_random_decision(game, random.Random(1))[0])
    outcome = await service.ai_step(row.id)
    assert outcome is not None and outcome.posts
    actions = await store.actions(row.id)
    assert actions[-1].player == "blue" and actions[-1].user_id is None
    await store.close()


def _pool_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread)]


async def test_a_closed_pool_has_finished_before_the_process_exits():
    """Python's exit handler wakes unfinished pools without a lock and can then print
    "Bad file descriptor" (CI, 2026-12-02); aclose leaves no pool unfinished."""
    before = set(_pool_threads())
    workers = WorkerPool(2)
    await workers.start()
    assert await workers.run(_pid, 0) != os.getpid()
    assert set(_pool_threads()) - before  # the pool's manager thread runs
    await workers.aclose()
    assert not set(_pool_threads()) - before


async def test_pictures_drawn_in_processes_equal_those_drawn_in_threads():
    """TORRES_RENDER_PROCESSES changes where a picture is drawn, never its bytes."""
    from bot.client.app import Renderer

    game = _positions()[1]
    threads, processes = Renderer(1), Renderer(1, processes=1)
    try:
        await processes.start()
        position = game.position()
        expected = await threads.picture(position, None, ["c3"])
        assert await processes.picture(position, None, ["c3"]) == expected
        assert expected[0][:8] == b"\x89PNG\r\n\x1a\n"
        assert expected[1] and "c3" in expected[1]
    finally:
        threads.close()
        await processes.aclose()
