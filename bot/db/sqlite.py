"""SQLite persistence for games: snapshots, an append-only action log, seats, reminders.

The store is a repository: it knows tables, not rules. Every write that the
service acknowledges to a player happens inside one ``BEGIN IMMEDIATE``
transaction, so a crash at any moment leaves either the old state or the new
one, never half of each. The ``actions`` table is append-only (enforced by
triggers); from the starting position stored with each game and that log any
game can be replayed.

Reads and writes use separate connections (the database is in WAL mode), so a
writer waiting for the lock, here or in another process, never holds up a
read: autocomplete and ``/torres board`` answer whatever happens to the write
lock. A write that cannot get the lock within ``WRITE_BUSY_SECONDS`` raises
:class:`~bot.db.errors.Busy` before anything was written.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Unpack

import aiosqlite

from bot.db.rows import (
    NEW_GAME_COLUMNS,
    ActionRow,
    ChannelBusy,
    GameRow,
    NewGame,
    SeatRow,
    new_game,
)
from bot.db.sqlite_base import (
    READ_BUSY_SECONDS,
    START_BUSY_SECONDS,
    WRITE_BUSY_SECONDS,
    _dump,
    _game,
    _preflight,
    _queue,
    _queue_now,
    _seat,
)
from bot.db.sqlite_home import SqliteHomeQueries

_INSERT_GAME = (
    f"INSERT INTO games ({', '.join(NEW_GAME_COLUMNS)})"
    f" VALUES ({', '.join('?' * len(NEW_GAME_COLUMNS))})"
)


class Store(SqliteHomeQueries):
    """An open database. Create with :meth:`open`; close with :meth:`close`.

    Two connections, each with its own aiosqlite thread: one writes, one reads.
    Writes are serialised by an asyncio lock so that two coroutines never
    interleave statements inside one transaction; reads never take it.
    """

    @classmethod
    async def open(cls, path: str) -> Store:
        """Check, open (creating if needed) and migrate the database at *path*.

        :raises DatabaseDamaged: if SQLite finds the file corrupt.
        :raises DatabaseReadOnly: if the bot may not write the file or its directory.
        :raises StoreError: if the database was written by a newer schema, or cannot
            be opened at all.
        """
        # Check the file first with plain sqlite3: when aiosqlite fails to connect its
        # worker thread can outlive the event loop and print a spurious traceback.
        await asyncio.to_thread(_preflight, path)
        conn = await aiosqlite.connect(path, isolation_level=None)
        conn.row_factory = aiosqlite.Row
        reader: aiosqlite.Connection | None = None
        try:
            await conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit is on disk before the player is told it happened.
            await conn.execute("PRAGMA synchronous=FULL")
            await conn.execute("PRAGMA foreign_keys=ON")
            await conn.execute(f"PRAGMA busy_timeout={int(START_BUSY_SECONDS * 1000)}")
            reader = await aiosqlite.connect(path, isolation_level=None)
            reader.row_factory = aiosqlite.Row
            await reader.execute(f"PRAGMA busy_timeout={int(READ_BUSY_SECONDS * 1000)}")
            await reader.execute("PRAGMA query_only=ON")
            store = cls(conn, reader, path)
            await store._migrate()
            store._note_journal()
            await conn.execute(f"PRAGMA busy_timeout={int(WRITE_BUSY_SECONDS * 1000)}")
        except BaseException:
            await conn.close()
            if reader is not None:
                await reader.close()
            raise
        return store

    # -- reads ------------------------------------------------------------------

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._one("SELECT * FROM games WHERE id = ?", (game_id,))
        return None if row is None else _game(row)

    async def active_game(self, channel_id: int) -> GameRow | None:
        row = await self._one(
            "SELECT * FROM games WHERE channel_id = ? AND status IN ('open', 'running')",
            (channel_id,),
        )
        return None if row is None else _game(row)

    async def lobby_games(self, channel_id: int) -> list[GameRow]:
        rows = await self._all(
            "SELECT * FROM games WHERE lobby_channel_id = ? AND status IN ('open', 'running')"
            " ORDER BY id",
            (channel_id,),
        )
        return [_game(r) for r in rows]

    async def games_with_status(self, *statuses: str) -> list[GameRow]:
        marks = ",".join("?" for _ in statuses)
        rows = await self._all(
            f"SELECT * FROM games WHERE status IN ({marks}) ORDER BY id", statuses
        )
        return [_game(r) for r in rows]

    async def seats(self, game_id: int) -> list[SeatRow]:
        rows = await self._all("SELECT * FROM seats WHERE game_id = ? ORDER BY seat", (game_id,))
        return [_seat(r) for r in rows]

    async def game_and_seats(self, game_id: int) -> tuple[GameRow | None, list[SeatRow]]:
        """The game and its seats (one round trip in PostgreSQL; two local reads here)."""
        game = await self.game(game_id)
        return (game, await self.seats(game_id)) if game is not None else (None, [])

    async def actions(self, game_id: int, *, after_seq: int = 0) -> list[ActionRow]:
        rows = await self._all(
            "SELECT * FROM actions WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after_seq),
        )
        return [ActionRow(**dict(r)) for r in rows]

    # -- writes -----------------------------------------------------------------

    async def create_game(self, **game: Unpack[NewGame]) -> int:
        now, values = new_game(game)
        try:
            async with self.transaction() as conn:
                cur = await conn.execute(_INSERT_GAME, values)
                game_id = int(cur.lastrowid or 0)
                await conn.execute(
                    "INSERT INTO seats (game_id, seat, user_id, display, joined_at)"
                    " VALUES (?, 1, ?, ?, ?)",
                    (game_id, game["author_id"], game["author_display"], now),
                )
        except aiosqlite.IntegrityError as exc:
            if "games.channel_id" in str(exc):
                raise ChannelBusy(game["channel_id"]) from exc
            raise
        return game_id

    async def add_seat(self, game_id: int, user_id: int, display: str, now: float) -> int:
        async with self.transaction() as conn:
            async with conn.execute(
                "SELECT COALESCE(MAX(seat), 0) FROM seats WHERE game_id = ?", (game_id,)
            ) as cur:
                row = await cur.fetchone()
            seat = int(row[0]) + 1 if row else 1
            await conn.execute(
                "INSERT INTO seats (game_id, seat, user_id, display, joined_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (game_id, seat, user_id, display, now),
            )
            await conn.execute(
                "UPDATE games SET updated_at = ?, last_activity = ? WHERE id = ?",
                (now, now, game_id),
            )
        return seat

    async def remove_seat(self, game_id: int, user_id: int, now: float) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "DELETE FROM seats WHERE game_id = ? AND user_id = ?", (game_id, user_id)
            )
            async with conn.execute(
                "SELECT seat FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
            ) as cur:
                seats = [int(r[0]) for r in await cur.fetchall()]
            # Renumber through negative values so the primary key never collides.
            for new, old in enumerate(seats, start=1):
                await conn.execute(
                    "UPDATE seats SET seat = ? WHERE game_id = ? AND seat = ?",
                    (-new, game_id, old),
                )
            await conn.execute("UPDATE seats SET seat = -seat WHERE game_id = ?", (game_id,))
            await conn.execute(
                "UPDATE games SET updated_at = ?, last_activity = ? WHERE id = ?",
                (now, now, game_id),
            )

    async def start_game(
        self,
        game_id: int,
        *,
        seats: Sequence[tuple[int | None, str, str, bool]],
        initial: dict[str, Any],
        now: float,
        outbox: Sequence[dict[str, Any]] = (),
    ) -> list[int]:
        async with self.transaction() as conn:
            await conn.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            for number, (user_id, display, name, is_ai) in enumerate(seats, start=1):
                await conn.execute(
                    "INSERT INTO seats (game_id, seat, user_id, display, name, is_ai, joined_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game_id, number, user_id, display, name, int(is_ai), now),
                )
            await conn.execute(
                "UPDATE games SET status = 'running', initial = ?, position = ?,"
                " turn_no = 1, turn_start_seq = 0, turn_start_position = ?, last_seq = 0,"
                " updated_at = ?, last_activity = ?, reminders_sent = 0 WHERE id = ?",
                (_dump(initial), _dump(initial), _dump(initial), now, now, game_id),
            )
            return await _queue(conn, game_id, outbox, now)

    async def record(
        self,
        game_id: int,
        *,
        expected_seq: int,
        player: str,
        user_id: int | None,
        kind: str,
        action: str,
        position: dict[str, Any],
        turn_ended: bool,
        result: dict[str, Any] | None,
        now: float,
        seat_to_ai: str | None = None,
        outbox: Sequence[dict[str, Any]] = (),
        earlier: list[int] | None = None,
    ) -> tuple[int, list[int]]:
        seq = expected_seq + 1
        snapshot = _dump(position)
        result_json = _dump(result)

        # Few statements on purpose, and all in one trip to the writer's thread
        # (``_write``). The guarded UPDATE doubles as the check.
        def work(conn: sqlite3.Connection) -> tuple[int, list[int]]:
            cur = conn.execute(
                "UPDATE games SET position = ?, last_seq = ?, updated_at = ?, last_activity = ?,"
                " reminders_sent = 0,"
                " turn_no = turn_no + ?,"
                " turn_start_seq = CASE WHEN ? THEN ? ELSE turn_start_seq END,"
                " turn_start_position = CASE WHEN ? THEN ? ELSE turn_start_position END,"
                " status = CASE WHEN ? THEN 'over' ELSE status END,"
                " result = COALESCE(?, result)"
                " WHERE id = ? AND last_seq = ? AND status = 'running'",
                (
                    snapshot,
                    seq,
                    now,
                    now,
                    int(turn_ended),
                    int(turn_ended),
                    seq,
                    int(turn_ended),
                    snapshot,
                    int(result is not None),
                    result_json,
                    game_id,
                    expected_seq,
                ),
            )
            if cur.rowcount != 1:
                return -1, []
            conn.execute(
                "INSERT INTO actions (game_id, seq, player, user_id, kind, action, time)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, player, user_id, kind, action, now),
            )
            if seat_to_ai is not None:
                conn.execute(
                    "UPDATE seats SET is_ai = 1, resigned = 1 WHERE game_id = ? AND name = ?",
                    (game_id, seat_to_ai),
                )
            if earlier is not None:
                earlier.extend(
                    r[0]
                    for r in conn.execute(
                        "SELECT id FROM outbox WHERE sent_at IS NULL AND game_id = ? ORDER BY id",
                        (game_id,),
                    )
                )
            return seq, _queue_now(conn, game_id, outbox, now)

        return await self._write(work)

    async def finish(
        self,
        game_id: int,
        *,
        status: str,
        result: dict[str, Any],
        now: float,
        outbox: Sequence[dict[str, Any]] = (),
        queued: list[int] | None = None,
    ) -> bool:
        result_json = _dump(result)

        def work(conn: sqlite3.Connection) -> list[int] | None:
            cur = conn.execute(
                "UPDATE games SET status = ?, result = ?, updated_at = ?"
                " WHERE id = ? AND status IN ('open', 'running')",
                (status, result_json, now, game_id),
            )
            if cur.rowcount != 1:
                return None
            return _queue_now(conn, game_id, outbox, now)

        return await self._write_queued(work, queued)

    async def _write_queued(
        self, work: Callable[[sqlite3.Connection], list[int] | None], queued: list[int] | None
    ) -> bool:
        """Run *work* (None: it changed nothing); the outbox rows it queued join *queued*."""
        ids = await self._write(work)
        if ids is None:
            return False
        if queued is not None:
            queued.extend(ids)
        return True

    async def unsent(self, game_id: int) -> list[tuple[int, float, dict[str, Any]]]:
        rows = await self._all(
            "SELECT id, created_at, payload FROM outbox WHERE sent_at IS NULL AND game_id = ?"
            " ORDER BY id",
            (game_id,),
        )
        return [(int(r[0]), float(r[1]), json.loads(r[2])) for r in rows]

    async def games_with_unsent(self) -> list[int]:
        rows = await self._all(
            "SELECT DISTINCT game_id FROM outbox WHERE sent_at IS NULL ORDER BY game_id"
        )
        return [int(r[0]) for r in rows]

    async def last_payload(self, game_id: int) -> dict[str, Any] | None:
        row = await self._one(
            "SELECT payload FROM outbox WHERE game_id = ? ORDER BY id DESC LIMIT 1", (game_id,)
        )
        return None if row is None else json.loads(row[0])

    async def prune_outbox(self, *, sent_before: float) -> int:
        async with self.transaction() as conn:
            cur = await conn.execute(
                "DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < ?"
                " AND id NOT IN (SELECT MAX(id) FROM outbox GROUP BY game_id)",
                (sent_before,),
            )
            return cur.rowcount

    async def mark_sent(
        self,
        outbox_id: int,
        now: float,
        *,
        then: Sequence[dict[str, Any]] = (),
        meta: Mapping[str, str] | None = None,
    ) -> list[int]:

        def work(conn: sqlite3.Connection) -> list[int]:
            if meta:
                conn.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    list(meta.items()),
                )
            cur = conn.execute(
                "UPDATE outbox SET sent_at = ? WHERE id = ? AND sent_at IS NULL", (now, outbox_id)
            )
            if cur.rowcount != 1 or not then:
                return []
            row = conn.execute("SELECT game_id FROM outbox WHERE id = ?", (outbox_id,)).fetchone()
            return _queue_now(conn, int(row[0]), then, now)

        return await self._write(work)

    async def mark_many_sent(
        self, outbox_ids: Sequence[int], now: float, *, meta: Mapping[str, str] | None = None
    ) -> None:

        def work(conn: sqlite3.Connection) -> None:
            if meta:
                conn.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    list(meta.items()),
                )
            conn.executemany(
                "UPDATE outbox SET sent_at = ? WHERE id = ? AND sent_at IS NULL",
                [(now, i) for i in outbox_ids],
            )

        await self._write(work)

    async def note_reminder(
        self,
        game_id: int,
        *,
        expected_sent: int,
        expected_seq: int,
        outbox: Sequence[dict[str, Any]] = (),
        queued: list[int] | None = None,
    ) -> bool:

        def work(conn: sqlite3.Connection) -> list[int] | None:
            cur = conn.execute(
                "UPDATE games SET reminders_sent = reminders_sent + 1"
                " WHERE id = ? AND reminders_sent = ? AND last_seq = ? AND status = 'running'",
                (game_id, expected_sent, expected_seq),
            )
            if cur.rowcount != 1:
                return None
            return _queue_now(conn, game_id, outbox, time.time())

        return await self._write_queued(work, queued)

    # -- several processes (see bot.db.postgres) --------------------------------------

    dialect = "sqlite"
