"""Memory benchmark: what hostile autocompletes and finished games leave behind in the service.

Runs the Discord-free ``GameService`` on a temporary SQLite database. First
``--hostile`` autocompletes of distinct hostile texts (valid prefixes padded
with spaces, odd numbers, junk) by the player to move in one running game,
then ``--games`` games opened, played a little and ended (cancel or resign).
Printed: Python heap growth (tracemalloc) per phase and per item, and the
sizes of the caches that could grow: the engine's parse cache, the service's
game and hint caches and its locks.

    .venv/bin/python bench/memory_bench.py
    .venv/bin/python bench/memory_bench.py --hostile 20000 --games 200
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import sys
import tempfile
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.service import GameService, ServiceConfig, User  # noqa: E402
from bot.db.sqlite import Store  # noqa: E402
from engine import notation  # noqa: E402

ANN, BOB = User(1, "Ann"), User(2, "Bob")


def quick_hint(game, seconds):  # the hint player's cost is not what is measured here
    legal = game.legal()
    return legal[:1]


async def setup(service: GameService, channel: int) -> None:
    await service.new(guild_id=1, channel_id=channel, user=ANN, players=2)
    await service.join(channel_id=channel, user=BOB)
    await service.start(channel_id=channel, user=ANN)
    for user, text in ((ANN, "place c3"), (BOB, "place f6"), (BOB, "king d1")):
        await service.play(channel_id=channel, user=user, text=text)


def heap() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def sizes(service: GameService) -> str:
    return (
        f"parse cache {len(notation._CACHE)} texts, game cache {len(service._cache)}, "
        f"hints {len(service._hints)}, locks {len(service._locks)}"
    )


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(str(Path(tmp) / "bench.db"))
        service = GameService(store, ServiceConfig(seed=7), suggest_actions=quick_hint)
        await setup(service, 100)
        tracemalloc.start()
        rng = random.Random(1)
        crashes = 0
        base = heap()
        for i in range(args.hostile):
            pad = " " * rng.randrange(1, 200)
            typed = rng.choice(
                [
                    f"move c3{pad}d3; score{' ' * (i % 500)}; ",
                    f"score ²{pad}; m",
                    f"stack {'9' * rng.randrange(1, 4400)}; ",
                    f"build{pad}{i}; b",
                ]
            )
            try:
                await service.suggest(channel_id=100, user_id=ANN.id, typed=typed)
            except Exception:  # noqa: BLE001 - counted: the bot would log a traceback
                crashes += 1
        after_hostile = heap()
        print(f"autocompletes that raised: {crashes}")
        print(
            f"{args.hostile} hostile autocompletes: heap +{(after_hostile - base) / 1024:.0f} KiB"
        )
        print(
            f"  ({(after_hostile - base) / max(args.hostile, 1):.1f} bytes each); {sizes(service)}"
        )
        for n in range(args.games):
            channel = 1000 + n
            await setup(service, channel)
            await service.suggest(channel_id=channel, user_id=ANN.id, typed="move c3 d3; ")
            await service.play(channel_id=channel, user=ANN, text="move c3 d3")
            if n % 2:
                await service.cancel(channel_id=channel, user=ANN, can_manage_channel=False)
            else:
                await service.resign(channel_id=channel, user=BOB)
        after_games = heap()
        print(
            f"{args.games} finished games: heap +{(after_games - after_hostile) / 1024:.0f} KiB "
            f"({(after_games - after_hostile) / max(args.games, 1) / 1024:.2f} KiB each); "
            f"{sizes(service)}"
        )
        tracemalloc.stop()
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hostile", type=int, default=5000)
    parser.add_argument("--games", type=int, default=100)
    asyncio.run(main(parser.parse_args()))
