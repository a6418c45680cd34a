"""Replay benchmark: a burst of game ends, their replay GIFs, and the computer players meanwhile.

Each finished game posts ``replay.gif`` (one frame a decision, drawn in the bot's
worker processes, which the computer players think in too). A stress run ends
hundreds of games within a minute; this draws ``--replays`` replays of a whole
2-player game at once through ``bot.client.app.Renderer`` (``--processes`` workers, as
``TORRES_AI_PROCESSES``) while a computer player asks the same pool for a
decision every ``--every`` seconds, and prints:

* the cost of one replay (CPU seconds, in this process) and its parts,
* how fast the burst drains (replays a second) and how long it takes,
* the computer players' wait for a worker during the burst (median and max),

with the bot's bound on replays drawn at once (``Renderer.replays``) and, for
comparison, ``--unbounded`` (every replay submitted at once, as before).

    .venv/bin/python bench/replay_bench.py
    .venv/bin/python bench/replay_bench.py --replays 100 --unbounded
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.client.app import Renderer, _animate_gif  # noqa: E402
from bot.core.service import _engine_choose, _random_decision  # noqa: E402
from bot.core.workers import WorkerPool  # noqa: E402
from engine import Game  # noqa: E402


def whole_game(seed: int) -> tuple[list[dict], Game]:
    """The positions of a random 2-player game, start to end (the replay's frames)."""
    rng = random.Random(seed)
    game = Game.new(2, names=["red", "blue"], variant="common", seed=seed)
    frames = [game.position()]
    middle = None
    while game.stage != "over":
        for action in _random_decision(game, rng):
            game.play(action)
        frames.append(game.position())
        if middle is None and len(frames) == 12:
            middle = game.copy()
    assert middle is not None
    return frames, middle


async def run(args: argparse.Namespace, bounded: bool) -> None:
    frames, middle = whole_game(args.seed)
    pool = WorkerPool(args.processes, nice=0)
    renderer = Renderer(1, pool)
    await pool.start()
    await renderer.start()
    try:
        waits: list[float] = []
        done = asyncio.Event()

        async def computer() -> None:
            while not done.is_set():
                sent = time.perf_counter()
                await pool.run(partial(_engine_choose, level="random"), middle.copy(), 0.05)
                waits.append(time.perf_counter() - sent)
                await asyncio.sleep(args.every)

        async def replay() -> None:
            if bounded:
                async with renderer.replays:
                    await renderer.animate(frames)
            else:
                await renderer.animate(frames)

        ai = asyncio.create_task(computer())
        await asyncio.sleep(0.2)
        started = time.perf_counter()
        await asyncio.gather(*(replay() for _ in range(args.replays)))
        wall = time.perf_counter() - started
        done.set()
        await ai
        during = waits[1:] or waits
        print(
            f"{'bounded' if bounded else 'unbounded'} ({args.processes} processes): "
            f"{args.replays} replays in {wall:.1f} s = {args.replays / wall:.2f} a second; "
            f"a computer decision waited median {statistics.median(during) * 1000:.0f} ms, "
            f"max {max(during) * 1000:.0f} ms ({len(during)} decisions during the burst)"
        )
    finally:
        renderer.close()
        await pool.aclose()


async def main(args: argparse.Namespace) -> None:
    frames, _ = whole_game(args.seed)
    _animate_gif(frames[:2])  # warm the renderer's caches
    cpu = time.process_time()
    _animate_gif(frames)
    cost = time.process_time() - cpu
    print(
        f"one replay: {len(frames)} frames, {cost:.2f} s of CPU ({cost / len(frames) * 1000:.0f} ms "
        "a frame: drawing ~55%, scaling to 600 px ~30%, palette and GIF encoding the rest)"
    )
    await run(args, bounded=True)
    if args.unbounded:
        await run(args, bounded=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replays", type=int, default=40, help="replays at once (40)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes (2)")
    parser.add_argument("--every", type=float, default=0.3, help="s between computer decisions")
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--unbounded", action="store_true", help="also run without the bound")
    asyncio.run(main(parser.parse_args()))
