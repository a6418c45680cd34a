"""Soak benchmark: one real bot process under steady, realistic load for a long time.

Starts ``tests.fakediscord.FakeDiscord`` and ``python -m bot`` (a fresh SQLite
database), then keeps ``--games`` 2-player games going at once (plus
``--ai-games`` games of one human against the computer), each played to its
end by simulated players who pause ``--think`` seconds (mean) before each
interaction (the players of ``bench/bot_bench.py``); when a game ends its
channel opens the next one, until ``--minutes`` have passed.

Every ``--every`` seconds it prints the bot's resident memory (its main
process, and with its worker processes), the games and decisions finished so
far and the outbox's unsent posts. At the end: the growth from the first
sample after the warm-up (``--warmup`` minutes) to the last, and the slope of
the bot's memory over the second half of the run (a least-squares line, MiB per
hour): a bounded bot levels off, a leak keeps a steady slope.

The fake Discord keeps every message it was sent; the benchmark drops those of
finished games as it goes, so that its own memory and searches stay flat over
an hour. Run it niced on a shared machine:

    nice -n 10 .venv/bin/python bench/soak_bench.py --minutes 60
    .venv/bin/python bench/soak_bench.py --minutes 5 --games 10 --every 10
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "bench"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from bot_bench import SEED, Player, Stats  # noqa: E402

from bot.db.contract import open_store  # noqa: E402
from tests.fakediscord import BotProcess, FakeDiscord  # noqa: E402

MIB = 1024 * 1024


def rss(pid: int) -> int | None:
    """Resident memory of one process in bytes (Linux /proc), None when gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def tree_rss(pid: int) -> int:
    """Resident memory of a process and its live descendants (workers), in bytes."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss(p) or 0
        todo += [c for c, parent in parents.items() if parent == p]
    return total


def prune(fake: FakeDiscord, keep_from: int) -> int:
    """Forget the fake's messages and interactions older than seq *keep_from*; how many.

    The players only ever wait for messages after their current game began, and
    the bot edits only a game's latest turn message, so older ones are history.
    """
    old = [m for m in fake.messages.values() if m.seq < keep_from]
    for m in old:
        del fake.messages[m.id]
    for channel_id, msgs in list(fake._per_channel.items()):
        cut = bisect.bisect_left(msgs, keep_from, key=lambda m: m.seq)
        fake._per_channel[channel_id] = msgs[cut:]
    for ix_id, ix in list(fake.interactions.items()):
        if ix.sent_seq < keep_from:
            del fake.interactions[ix_id]
            fake._by_token.pop(ix.token, None)
    now = time.monotonic()
    for nonce, (_, at) in list(fake._nonces.items()):
        if now - at > 600:
            del fake._nonces[nonce]
    del fake.requests[:-1000]
    return len(old)


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (x, y) points (y per x)."""
    if len(points) < 2:
        return 0.0
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


async def main(args: argparse.Namespace) -> int:
    n, k = args.games, args.ai_games
    users = [f"p{i}" for i in range(2 * (n + k))]
    fake = await FakeDiscord(
        members=users, moderators=(), channels=[f"table-{i}" for i in range(n + k)]
    ).start()
    stats, ai = Stats(), Stats()
    deadline = time.monotonic() + args.minutes * 60
    starts: dict[int, int] = {}  # player index -> fake seq when its current game began
    with tempfile.TemporaryDirectory(prefix="torres-soak-", dir=args.db_dir) as tmp:
        target = os.path.join(tmp, "soak.db")
        env = {
            **fake.env(),
            "DISCORD_TOKEN": "soak",
            "TORRES_DB": target,
            "TORRES_GUILD_READY_TIMEOUT": "0.1",
            "TORRES_SEED": str(SEED),
            "TORRES_LOG_LEVEL": "WARNING",
        }
        bot = await BotProcess(["-m", "bot"], env=env, log_path=Path(tmp) / "bot.log").start()
        store = None
        samples: list[tuple[float, int, int]] = []  # (seconds, main RSS, tree RSS)
        try:
            await fake.wait_connected(60)
            await fake.wait_synced(30, names=["torres"])
            store = await open_store(target)
            assert bot.pid is not None

            async def keep_playing(i: int) -> None:
                while time.monotonic() < deadline:
                    p = Player(
                        fake, i, args, ai if i < k else stats, store=store if i < k else None
                    )
                    p.args.decisions = 0
                    starts[i] = fake._seq
                    await p.run()

            started = time.monotonic()
            tasks = [asyncio.create_task(keep_playing(i)) for i in range(n + k)]
            print(
                f"soak_bench: {n} games at once (+{k} against the computer), think "
                f"{args.think:g} s, {args.minutes:g} min, sampled every {args.every:g} s; "
                f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start",
                flush=True,
            )
            print(
                "   min   bot MiB  +workers MiB   games  decisions  unsent  fake msgs", flush=True
            )
            while not all(t.done() for t in tasks):
                await asyncio.wait(tasks, timeout=args.every)
                elapsed = time.monotonic() - started
                main_rss, all_rss = rss(bot.pid), tree_rss(bot.pid)
                if main_rss is None:
                    print("the bot process is gone", flush=True)
                    break
                samples.append((elapsed, main_rss, all_rss))
                unsent = len(await store.games_with_unsent())
                prune(fake, min(starts.values(), default=0))
                print(
                    f"{elapsed / 60:6.1f}  {main_rss / MIB:8.1f}  {all_rss / MIB:12.1f}  "
                    f"{stats.games_over + ai.games_over:6d}  {stats.decisions + ai.decisions:9d}  "
                    f"{unsent:6d}  {len(fake.messages):9d}",
                    flush=True,
                )
            failures = [e for t in tasks if t.done() and (e := t.exception())]
        finally:
            if store is not None:
                await store.close()
            await bot.stop()
            await bot.reap_group(10)
            log_tail = bot.log_text(3000)
            await fake.stop()
    warm = [s for s in samples if s[0] >= args.warmup * 60] or samples
    if warm:
        first, last = warm[0], warm[-1]
        half = [s for s in samples if s[0] >= samples[-1][0] / 2]
        per_hour = slope([(s[0] / 3600, s[1] / MIB) for s in half])
        print(
            f"bot (main process) after {first[0] / 60:.1f} min: {first[1] / MIB:.1f} MiB; "
            f"at {last[0] / 60:.1f} min: {last[1] / MIB:.1f} MiB "
            f"({(last[1] - first[1]) / MIB:+.1f} MiB); second half's slope {per_hour:+.1f} MiB/h"
        )
        print(
            f"with workers: {first[2] / MIB:.1f} -> {last[2] / MIB:.1f} MiB; "
            f"{stats.games_over + ai.games_over} games and {stats.decisions + ai.decisions} "
            f"decisions played; load average {os.getloadavg()[0]:.1f} at the end"
        )
    for f in failures[:5]:
        print(f"  FAILED: {type(f).__name__}: {str(f)[:300]}")
    if failures:
        print("--- bot log (tail) ---\n" + log_tail)
    return 1 if failures else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=60.0, help="how long (default 60)")
    p.add_argument("--games", type=int, default=20, help="2-player games at once (default 20)")
    p.add_argument("--ai-games", type=int, default=2, help="games against the computer (2)")
    p.add_argument("--think", type=float, default=1.0, help="mean pause before each interaction")
    p.add_argument("--every", type=float, default=60.0, help="seconds between samples (60)")
    p.add_argument("--warmup", type=float, default=5.0, help="minutes before growth counts (5)")
    p.add_argument("--db-dir", default=None, help="directory for the database (system temp)")
    return p.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
