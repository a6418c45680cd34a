"""``python -m bot migrate --from SRC --to DST``: move every game between backends.

SRC and DST are ``TORRES_DB`` values (a SQLite file or a ``postgresql://`` URL).
Every table is copied as stored (ids, JSON snapshots and timestamps unchanged,
so post nonces and button ids stay valid) in one transaction on DST, which must
hold no games. Then the copy is checked: the same number of rows in every table,
and every started game's action log, replayed by the engine from its starting
position, reaches the stored snapshot. Stop the bot first: games changed during
the copy would be missed.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections import Counter
from typing import Any

from bot.db.contract import GameStore, open_store
from bot.db.rows import TABLES, describe

_ORDER = {
    "meta": "key",
    "games": "id",
    "seats": "game_id, seat",
    "actions": "game_id, seq",
    "results": "game_id",
    "result_seats": "game_id, seat",
    "user_settings": "user_id",
    "tutorials": "user_id",
}
_BOOLEAN = {"is_ai", "resigned", "dm", "dm_refused", "finished"}


class MigrationError(RuntimeError):
    """The move cannot be made or did not verify; the message says which and why."""


async def _fetch(store: GameStore, sql: str) -> list[tuple[Any, ...]]:
    async with store.transaction() as conn:  # type: ignore[attr-defined]
        if store.dialect == "sqlite":
            return [tuple(r) for r in await conn.execute_fetchall(sql)]
        return [tuple(r) for r in await conn.fetch(sql)]


async def _table(store: GameStore, table: str) -> list[tuple[Any, ...]]:
    columns = TABLES[table]
    rows = await _fetch(
        store, f"SELECT {', '.join(columns)} FROM {table} ORDER BY {_ORDER.get(table, 'id')}"
    )
    flags = [i for i, c in enumerate(columns) if c in _BOOLEAN]
    return [tuple(bool(v) if i in flags else v for i, v in enumerate(r)) for r in rows]


async def _write(store: GameStore, tables: dict[str, list[tuple[Any, ...]]]) -> None:
    async with store.transaction() as conn:  # type: ignore[attr-defined]
        for table, rows in tables.items():
            columns = TABLES[table]
            if table == "meta":  # the destination's own keys (e.g. its salt) give way
                keys = [r[0] for r in rows]
                if store.dialect == "sqlite":
                    marks = ", ".join("?" for _ in keys)
                    await conn.execute(f"DELETE FROM meta WHERE key IN ({marks})", keys)
                else:
                    await conn.execute("DELETE FROM meta WHERE key = ANY($1::text[])", keys)
            if not rows:
                continue
            if store.dialect == "sqlite":
                marks = ", ".join("?" for _ in columns)
                await conn.executemany(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows
                )
            else:
                await conn.copy_records_to_table(table, records=rows, columns=list(columns))
        if store.dialect != "sqlite":  # identity columns continue after the copied ids
            for table in ("games", "outbox"):
                await conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                    f" COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
                )


async def _replays(store: GameStore) -> list[str]:
    """Games whose log does not lead to their snapshot (empty when all do)."""
    from bot.core.service import GameService

    service = GameService(store)
    bad = []
    for row in await store.games_with_status("open", "running", "over", "cancelled"):
        if row.initial is None:
            continue
        try:
            game = await service.replay(row.id)
        except Exception as exc:  # an illegal logged action: name the game, go on checking
            bad.append(f"game #{row.id}: its log does not replay ({exc})")
            continue
        if game.position() != row.position:
            bad.append(f"game #{row.id}: its log does not lead to the stored position")
    return bad


async def migrate(source: str, target: str) -> str:
    """Copy everything from *source* to *target* and verify; returns a summary line.

    :raises MigrationError: if the target already holds games or the copy does not verify.
    """
    if source == target:
        raise MigrationError("--from and --to name the same database.")
    src = await open_store(source)
    try:
        dst = await open_store(target)
        try:
            return await _migrate(src, dst, target)
        finally:
            await dst.close()
    finally:
        await src.close()


async def _migrate(src: GameStore, dst: GameStore, target: str) -> str:
    existing = (await _fetch(dst, "SELECT COUNT(*) FROM games"))[0][0]
    if existing:
        raise MigrationError(
            f"{describe(target)} already holds {existing} games; migrate into an empty database."
        )
    broken = await _replays(src)
    if broken:
        raise MigrationError(
            "the source is inconsistent, nothing was copied: " + "; ".join(broken[:5])
        )
    tables = {table: await _table(src, table) for table in TABLES}
    await _write(dst, tables)
    for table, rows in tables.items():
        copied = await _table(dst, table)
        if table == "meta":
            copied = [r for r in copied if r[0] in {k for k, _ in rows}]
        if len(copied) != len(rows):
            raise MigrationError(f"{table}: {len(rows)} rows in the source, {len(copied)} copied")
    broken = await _replays(dst)
    if broken:
        raise MigrationError("the copy does not verify: " + "; ".join(broken[:5]))
    statuses = Counter(r[4] for r in tables["games"])
    kinds = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
    return (
        f"Moved {len(tables['games'])} games ({kinds or 'none'}), {len(tables['actions'])} "
        f"logged actions and {len(tables['outbox'])} queued posts to {describe(target)}; "
        "the row counts match and every game's log replays to its stored position."
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot migrate",
        description="Move every game from one database to another (SQLite file or "
        "postgresql:// URL) and verify the copy. Stop the bot first.",
    )
    parser.add_argument("--from", dest="source", required=True, help="the database to read")
    parser.add_argument("--to", dest="target", required=True, help="an empty database to fill")
    args = parser.parse_args(argv)
    try:
        print(asyncio.run(migrate(args.source, args.target)))
    except MigrationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        if not _is_database_error(exc):
            raise
        print(
            f"error: cannot use {describe(args.source)} or {describe(args.target)}: {exc}",
            file=sys.stderr,
        )
        return 1
    return 0


def _is_database_error(exc: Exception) -> bool:
    if isinstance(exc, sqlite3.Error | OSError):
        return True
    try:
        import asyncpg
    except ImportError:  # pragma: no cover - asyncpg is a dependency
        return False
    return isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError)
