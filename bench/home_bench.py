"""How quickly /torres games, stats and leaderboard answer with many stored games.

Fills a fresh database (SQLite, and PostgreSQL when ``tests.pgserver`` can start
one) with ``--games`` finished 3-seat games among ``--players`` people on one
server (a third of the games with a computer seat), their results, and 20
running games of the measured player; then times what the three commands ask
of ``bot.core.home.HomeService`` (everything but Discord): the first call (cold:
ratings computed over every result) and the median of ``--repeat`` later ones.
Discord wants an answer within 3 s; the bot defers first, but players wait.

    .venv/bin/python bench/home_bench.py                 # 10,000 games, both backends
    .venv/bin/python bench/home_bench.py --games 2000 --backend sqlite
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.home import HomeService  # noqa: E402
from bot.db.contract import GameStore, open_store  # noqa: E402

GUILD = 1
ME = 1000  # the measured player


def _rows(games: int, players: int, seed: int) -> dict[str, list[tuple[Any, ...]]]:
    rng = random.Random(seed)
    out: dict[str, list[tuple[Any, ...]]] = {
        "games": [],
        "seats": [],
        "actions": [],
        "results": [],
        "result_seats": [],
    }
    position = json.dumps({"to_move": "red", "heights": {}, "knights": {}})
    t0 = 1_700_000_000.0
    for gid in range(1, games + 21):
        running = gid > games
        names = ["red", "blue", "green"]
        people = rng.sample(range(ME, ME + players), 3)
        if running:
            people[0] = ME
        computer = not running and gid % 3 == 0
        scores = {n: rng.randrange(20, 120) for n in names}
        winner = max(names, key=lambda n: scores[n])
        result = (
            None
            if running
            else json.dumps({"reason": "finished", "scores": scores, "winners": [winner]})
        )
        start = t0 + gid * 600
        out["games"].append(
            (
                gid,
                GUILD,
                5000 + gid,
                people[0],
                "running" if running else "over",
                3,
                int(computer),
                "common",
                gid,
                position,
                position,
                30,
                10,
                position,
                12,
                start,
                start + 500,
                start + 500,
                86400.0,
                3,
                0,
                1209600.0,
                result,
            )
        )
        for i, (name, uid) in enumerate(zip(names, people, strict=True), start=1):
            ai = computer and i == 3
            out["seats"].append(
                (
                    gid,
                    i,
                    None if ai else uid,
                    "Computer" if ai else f"p{uid}",
                    name,
                    ai,
                    False,
                    start,
                )
            )
            if not running:
                rank = 1 + sum(scores[o] > scores[name] for o in names)
                out["result_seats"].append(
                    (
                        gid,
                        i,
                        name,
                        None if ai else uid,
                        "Computer" if ai else f"p{uid}",
                        "search" if ai else None,
                        scores[name],
                        rank,
                    )
                )
        for seq in range(1, 13):
            out["actions"].append((gid, seq, "red", people[0], "play", "end", start + seq))
        if not running:
            out["results"].append((gid, GUILD, 5000 + gid, "common", start, start + 500))
    return out


_COLUMNS = {
    "games": "id, guild_id, channel_id, author_id, status, seats_wanted, bots, variant, seed,"
    " initial, position, turn_no, turn_start_seq, turn_start_position, last_seq, created_at,"
    " updated_at, last_activity, reminder_interval, reminder_limit, reminders_sent,"
    " idle_cancel_after, result",
    "seats": "game_id, seat, user_id, display, name, is_ai, resigned, joined_at",
    "actions": "game_id, seq, player, user_id, kind, action, time",
    "results": "game_id, guild_id, channel_id, variant, started_at, finished_at",
    "result_seats": "game_id, seat, name, user_id, display, ai_level, score, rank",
}


async def _fill(store: GameStore, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    async with store.transaction() as conn:  # type: ignore[attr-defined]
        for table, values in rows.items():
            columns = _COLUMNS[table]
            if store.dialect == "sqlite":
                marks = ", ".join("?" for _ in columns.split(","))
                await conn.executemany(
                    f"INSERT INTO {table} ({columns}) VALUES ({marks})",
                    [tuple(int(v) if isinstance(v, bool) else v for v in r) for r in values],
                )
            else:
                await conn.copy_records_to_table(
                    table, records=values, columns=[c.strip() for c in columns.split(",")]
                )
        if store.dialect != "sqlite":
            await conn.execute(
                "SELECT setval(pg_get_serial_sequence('games', 'id'), (SELECT MAX(id) FROM games))"
            )


async def _time(call: Any, repeat: int) -> tuple[float, float]:
    t = time.perf_counter()
    await call()
    cold = time.perf_counter() - t
    warm = []
    for _ in range(repeat):
        t = time.perf_counter()
        await call()
        warm.append(time.perf_counter() - t)
    return cold, statistics.median(warm)


async def _bench(target: str, label: str, args: argparse.Namespace) -> None:
    store = await open_store(target)
    try:
        t = time.perf_counter()
        await _fill(store, _rows(args.games, args.players, args.seed))
        filled = time.perf_counter() - t
        calls = {
            "/torres games": lambda h: h.my_games(user_id=ME, guild_id=GUILD),
            "/torres stats": lambda h: h.stats(guild_id=GUILD, user_id=ME, name="me"),
            "/torres leaderboard": lambda h: h.leaderboard(guild_id=GUILD),
        }
        print(f"{label}: {args.games} finished games + 20 running, filled in {filled:.1f} s")
        for name, call in calls.items():
            home = HomeService(store, ai_level="search")  # as after a restart: no rating cache
            cold, warm = await _time(lambda c=call, h=home: c(h), args.repeat)
            print(f"  {name:22s} first {cold * 1000:7.1f} ms   then median {warm * 1000:6.1f} ms")
        text = await home.my_games(user_id=ME, guild_id=GUILD)
        assert "(20 unfinished" in text, text[:200]
    finally:
        await store.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=("both", "sqlite", "postgresql"), default="both")
    args = parser.parse_args()
    if args.backend in ("both", "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            await _bench(str(Path(tmp) / "bench.db"), "SQLite", args)
    if args.backend in ("both", "postgresql"):
        try:
            from tests.pgserver import TempPostgres

            with TempPostgres() as pg:
                await _bench(pg.create_database("bench"), "PostgreSQL", args)
        except Exception as exc:  # no server here: say so, the SQLite figures stand
            print(f"PostgreSQL: not measured ({exc})")


if __name__ == "__main__":
    asyncio.run(main())
