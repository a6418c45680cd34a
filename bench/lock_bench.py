"""Reads while another process holds the database's write lock: how fast do they answer?

Starts ``tests.fakediscord.FakeDiscord`` and ``python -m bot`` on a fresh
database with two running games (one in #games, one in a thread). Then, each
round, another process takes the write lock (``tests.fakediscord.WriteLock``),
a player sends ``/torres play`` in the first game (a write, which must wait and
then be refused as busy), and while that write waits another player asks for
autocomplete and ``/torres board`` in the second game. Printed: median and max,
over ``--rounds`` rounds, of the time from sending to

* ``autocomplete``  the bot's choices (Discord's limit: 3 s; the fake refuses later ones),
* ``board``         the private board picture (the follow-up after the deferral),
* ``busy reply``    the refusal of the write,

and the number of autocompletes that missed the 3-second limit.

    .venv/bin/python bench/lock_bench.py --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Game  # noqa: E402
from tests.fakediscord import BotProcess, FakeDiscord, WriteLock  # noqa: E402

SEED = 7


async def reply(fake: FakeDiscord, who: str, channel: str, sub: str, **options: object) -> str:
    ix = await fake.slash(who, channel, "torres", sub, **options)
    return (await ix.reply(30)).content


async def main(args: argparse.Namespace) -> int:
    fake = await FakeDiscord(threads={"side": "games"}).start()
    tmp = Path(tempfile.mkdtemp(prefix="lock_bench_"))
    db = tmp / "torres.db"
    env = {
        **fake.env(),
        "DISCORD_TOKEN": "bench",
        "TORRES_DB": str(db),
        "TORRES_GUILD_READY_TIMEOUT": "0.1",
        "TORRES_SEED": str(SEED),
    }
    bot = await BotProcess(["-m", "bot"], env=env, log_path=tmp / "bot.log").start()
    timings: dict[str, list[float]] = {"autocomplete": [], "board": [], "busy reply": []}
    missed = 0
    try:
        await fake.wait_connected(40)
        await fake.wait_synced(20, names=["torres"])
        for channel in ("games", "side"):
            await reply(fake, "alice", channel, "new", thread=False)
            await reply(fake, "bob", channel, "join")
            await reply(fake, "alice", channel, "start")
        first = Game.new(players=2, names=["red", "blue"], seed=SEED).legal()[0]
        for _ in range(args.rounds):
            async with WriteLock(db):
                write = await fake.slash("alice", "games", "torres", "play", actions=first)
                sent = time.monotonic()
                await write.response(30)
                await asyncio.sleep(0.3)  # the write now waits for the lock
                t0 = time.monotonic()
                try:
                    await fake.autocomplete(
                        "alice", "side", "torres", "play", focused="actions", actions="pl"
                    )
                    timings["autocomplete"].append(time.monotonic() - t0)
                except AssertionError:
                    missed += 1
                    fake.take_errors()
                t0 = time.monotonic()
                await reply(fake, "bob", "side", "board")
                timings["board"].append(time.monotonic() - t0)
                await write.reply(30)
                timings["busy reply"].append(time.monotonic() - sent)
    finally:
        await bot.stop()
        await fake.stop()
    print(f"{args.rounds} rounds, another process holding the write lock each time")
    for name, values in timings.items():
        if values:
            print(
                f"  {name:<13} median {statistics.median(values) * 1000:6.0f} ms"
                f"   max {max(values) * 1000:6.0f} ms   (n={len(values)})"
            )
    print(f"  autocompletes past Discord's 3 s: {missed}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    sys.exit(asyncio.run(main(parser.parse_args())))
