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
import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeVar

import aiosqlite

from bot.db.errors import REPLACED, Busy, Unavailable
from bot.db.rows import (
    NEW_GAME_COLUMNS,
    TABLES,
    TURN_SINCE,
    ActionRow,
    ChannelBusy,
    DatabaseDamaged,
    DatabaseReadOnly,
    DiskFull,
    GameRow,
    ResultRow,
    SeatRow,
    StoreError,
    TutorialRow,
    UserSettings,
    committed_by,
    game_row,
    migrations,
    new_game,
    results_of,
    tutorial_of,
)

T = TypeVar("T")
log = logging.getLogger(__name__)

# How long a write waits for the database's write lock (held by another write of
# this bot or by another process) before the command is refused as busy. The
# commands that write are deferred, so this is not bound by Discord's 3 seconds.
WRITE_BUSY_SECONDS = 2.5
# Reads in WAL mode never wait for writers; this only covers SQLite's own brief
# locks (e.g. another process recovering the WAL index).
READ_BUSY_SECONDS = 1.0
# At start-up the bot waits longer for the lock (e.g. a backup or a migration elsewhere).
START_BUSY_SECONDS = 10.0


_MIGRATIONS = migrations("sqlite")
SCHEMA_VERSION = len(_MIGRATIONS)

_INSERT_GAME = (
    f"INSERT INTO games ({', '.join(NEW_GAME_COLUMNS)})"
    f" VALUES ({', '.join('?' * len(NEW_GAME_COLUMNS))})"
)


def _game(row: aiosqlite.Row | dict[str, Any]) -> GameRow:
    return game_row(dict(row), json.loads)


def _seat(row: aiosqlite.Row) -> SeatRow:
    data = dict(row)
    data["is_ai"] = bool(data["is_ai"])
    data["resigned"] = bool(data["resigned"])
    return SeatRow(**data)


async def _queue(
    conn: aiosqlite.Connection, game_id: int, payloads: Sequence[dict[str, Any]], now: float
) -> list[int]:
    ids = []
    for payload in payloads:
        cur = await conn.execute(
            "INSERT INTO outbox (game_id, created_at, payload) VALUES (?, ?, ?)",
            (game_id, now, _dump(payload)),
        )
        ids.append(int(cur.lastrowid or 0))
    return ids


def _queue_now(
    conn: sqlite3.Connection, game_id: int, payloads: Sequence[dict[str, Any]], now: float
) -> list[int]:
    """``_queue`` for a write that runs whole in the writer's thread (see ``Store._write``)."""
    ids = []
    for payload in payloads:
        cur = conn.execute(
            "INSERT INTO outbox (game_id, created_at, payload) VALUES (?, ?, ?)",
            (game_id, now, _dump(payload)),
        )
        ids.append(int(cur.lastrowid or 0))
    return ids


def _in_transaction(
    conn: sqlite3.Connection,
    work: Callable[[sqlite3.Connection], T],
    queued: float,
    check: Callable[[], None],
) -> T:
    """``BEGIN IMMEDIATE``, *work*, *check*, ``COMMIT`` (``ROLLBACK`` if anything
    fails), in the calling thread: the writer's, so that a write is one trip there and back.

    A write that waited in the thread's queue (*queued*: ``time.monotonic()`` then)
    longer than ``WRITE_BUSY_SECONDS`` is Busy without trying, as one waiting that
    long for the write lock would be. *check* raises if the file may not take the
    commit (``Store._check_file``).
    """
    if time.monotonic() - queued > WRITE_BUSY_SECONDS:
        raise Busy()
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if _is_busy(exc):
            raise Busy() from None
        raise
    try:
        result = work(conn)
        check()
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    return result


def _identity(path: str) -> tuple[int, int] | None:
    """The file at *path* as the system knows it (device, inode); None if there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _is_full(exc: BaseException) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return isinstance(exc, sqlite3.Error) and (
        name.startswith("SQLITE_FULL") or "database or disk is full" in str(exc)
    )


def _is_busy(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc)


def _preflight(path: str) -> None:
    """Refuse, with one line, a database the bot could not serve safely.

    Runs with plain sqlite3 before the bot logs in: a damaged file, a read-only
    file or directory, or a path that cannot be opened are found here rather
    than half-way through a player's command.
    """
    where = os.path.dirname(os.path.abspath(path))
    if os.path.exists(path):
        if not os.access(path, os.R_OK | os.W_OK):
            raise DatabaseReadOnly(
                f"the database {path} is read-only for this user: the bot must be able to "
                "write it (check its permissions and that its disk is not mounted read-only)"
            )
        if not os.access(where, os.W_OK | os.X_OK):
            raise DatabaseReadOnly(
                f"the directory of the database {path} is read-only: SQLite keeps its journal "
                f"(-wal and -shm files) beside the database, so the bot must be able to write {where}"
            )
    elif not os.path.isdir(where):
        raise StoreError(f"cannot create the database {path}: the directory {where} does not exist")
    try:
        conn = sqlite3.connect(path, timeout=START_BUSY_SECONDS, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the database {path}: {exc}") from None
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
        if [tuple(r) for r in rows] != [("ok",)]:
            # One line: SQLite's report may span several; its first problem is enough.
            first = " ".join(str(rows[0][0]).split())[:160] if rows else "no answer"
            raise DatabaseDamaged(
                f"the database {path} is damaged ({first}); the bot will not serve it: "
                "restore the latest backup (see 'Backup and restore' in docs/bot.md)"
            )
        # A real write (of nothing) proves the file, its journal and the disk are writable.
        conn.execute("BEGIN IMMEDIATE")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute(f"PRAGMA user_version = {int(version)}")
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        name = getattr(exc, "sqlite_errorname", "") or ""
        if (
            name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
            or isinstance(exc, sqlite3.DatabaseError)
            and not isinstance(exc, sqlite3.OperationalError)
        ):
            raise DatabaseDamaged(
                f"the database {path} is damaged ({exc}); the bot will not serve it: "
                "restore the latest backup (see 'Backup and restore' in docs/bot.md)"
            ) from None
        if name.startswith("SQLITE_READONLY"):
            raise DatabaseReadOnly(
                f"the database {path} is read-only ({exc}): the bot must be able to write the "
                "file and its directory"
            ) from None
        if _is_busy(exc):
            raise StoreError(
                f"the database {path} stayed locked by another program for "
                f"{START_BUSY_SECONDS:g} seconds; is another bot running on it?"
            ) from None
        raise StoreError(f"cannot use the database {path}: {exc}") from None
    finally:
        conn.close()


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True)


class Store:
    """An open database. Create with :meth:`open`; close with :meth:`close`.

    Two connections, each with its own aiosqlite thread: one writes, one reads.
    Writes are serialised by an asyncio lock so that two coroutines never
    interleave statements inside one transaction; reads never take it.
    """

    def __init__(
        self, conn: aiosqlite.Connection, reader: aiosqlite.Connection, path: str = ""
    ) -> None:
        self._conn = conn
        self._reader = reader
        self._write_lock = asyncio.Lock()
        # The file opened, by identity: if another file takes its path (a backup moved
        # into place, the file deleted), every commit from then on would go to a file
        # that no longer has a name and is lost when the bot stops. Checked before each
        # commit; the first mismatch is logged once and sets ``lost`` (bot.__main__ then
        # stops the bot), and every write after it is refused.
        self._path = os.path.abspath(path) if path else ""
        self._identity = _identity(self._path) if path else None
        self._replaced: str | None = None
        self._journal: dict[str, tuple[int, int] | None] = {}  # "-wal", "-shm" -> identity
        self.lost = asyncio.Event()
        self._full = DiskFull(self._path or "(in memory)")

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

    async def close(self) -> None:
        async with self._write_lock:
            await self._reader.close()
            await self._conn.close()

    # -- schema ---------------------------------------------------------------

    async def schema_version(self) -> int:
        row = await self._one(
            "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'"
        )
        if row is None:
            return 0
        row = await self._one("SELECT version FROM schema_version")
        return 0 if row is None else int(row[0])

    async def _migrate(self) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
            )
            async with conn.execute("SELECT version FROM schema_version") as cur:
                row = await cur.fetchone()
            if row is None:
                await conn.execute("INSERT INTO schema_version (version) VALUES (0)")
                current = 0
            else:
                current = int(row[0])
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"the database has schema version {current}, newer than this bot's "
                    f"{SCHEMA_VERSION}; upgrade the bot"
                )
            for version in range(current, SCHEMA_VERSION):
                for statement in _MIGRATIONS[version]:
                    await conn.execute(statement)
                await conn.execute("UPDATE schema_version SET version = ?", (version + 1,))

    # -- transactions -----------------------------------------------------------

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolls back if the block raises.

        :raises Busy: if the write lock stays taken for about ``WRITE_BUSY_SECONDS``;
            nothing was written then.
        """
        await self._acquire()
        try:
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if _is_busy(exc):
                    raise Busy() from None
                if _is_full(exc):
                    raise self._full.refuse() from None
                raise
            try:
                yield self._conn
                self._check_file()
                await self._conn.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    await self._conn.execute("ROLLBACK")
                if _is_full(exc):
                    raise self._full.refuse() from None
                if isinstance(exc, Unavailable):
                    self._report_lost()
                raise
            committed_by.set(asyncio.current_task())
        finally:
            self._write_lock.release()

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run *work* in one transaction, all of it in the writer's thread: one trip.

        What ``transaction()`` does, for the writes of every command (a move, a
        post marked sent). A transaction of several statements makes as many
        trips between the event loop and aiosqlite's thread while it holds the
        write lock, each waiting for its turn on a busy loop, and every other
        write waits for all of them. Here the write lock is held only while the
        work is put on the writer thread's queue, which runs it whole, in order,
        before anything queued later (a ``transaction()`` included), so writes
        follow each other at the pace of the disk rather than of the loop.

        :raises Busy: as ``transaction()`` does; nothing was written then.
        """
        await self._acquire()
        try:
            queued = time.monotonic()
            done = self._submit(
                partial(_in_transaction, self._conn._conn, work, queued, self._check_file)
            )
        finally:
            self._write_lock.release()
        try:
            result = await done
        except sqlite3.Error as exc:
            if _is_full(exc):
                raise self._full.refuse() from None
            raise
        except Unavailable:
            self._report_lost()
            raise
        committed_by.set(asyncio.current_task())
        return result

    def _check_file(self) -> None:
        """Refuse the commit if the database's path no longer names the file opened.

        Runs in the writer's thread, inside the transaction, just before COMMIT: one
        ``stat``. (A file copied over the open one in place keeps its identity and is
        not noticed here: restore only with the bot stopped, docs/bot.md.)
        """
        if self._replaced is None and self._identity is not None:
            now = _identity(self._path)
            if now != self._identity:
                self._replaced = "deleted" if now is None else "replaced by another file"
        if self._replaced is not None:
            raise Unavailable(REPLACED)

    def _note_journal(self) -> None:
        """Remember the WAL files of the file opened (they stay while the bot has it open)."""
        if self._path:
            self._journal = {x: _identity(self._path + x) for x in ("-wal", "-shm")}

    def _report_lost(self) -> None:
        """Log the replaced file once, move its journal aside, and tell the bot to stop.

        The ``-wal`` and ``-shm`` files beside the path still belong to the file opened
        at start-up: SQLite would apply that journal to whatever file now has the name
        (mixing two databases) when it is next opened. They are renamed away first.
        """
        if self._replaced is None or self.lost.is_set():
            return
        self.lost.set()
        moved = []
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for suffix, known in self._journal.items():
            where = self._path + suffix
            if known is not None and _identity(where) == known:
                with contextlib.suppress(OSError):
                    os.replace(where, f"{where}.replaced-{stamp}")
                    moved.append(f"{where}.replaced-{stamp}")
        aside = f"; its journal was moved aside ({', '.join(moved)})" if moved else ""
        log.critical(
            "the database file %s was %s while the bot was running; stopping, so that nothing "
            "more is acknowledged into the file opened at start-up (its writes since then "
            "are lost)%s: check which file is right, then start the bot again",
            self._path,
            self._replaced,
            aside,
        )

    def _submit(self, function: Callable[[], T]) -> asyncio.Future[T]:
        """Queue *function* on the writer's thread now (what aiosqlite's ``_execute`` does
        when its coroutine first runs, which may be after the write lock is released)."""
        if not self._conn._running:
            raise ValueError("Connection closed")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._conn._tx.put_nowait((future, function))
        return future

    async def _acquire(self) -> None:
        """Take the in-process write lock, or raise :class:`Busy` after ``WRITE_BUSY_SECONDS``."""
        if not self._write_lock.locked():
            await self._write_lock.acquire()
            return
        waiter = asyncio.ensure_future(self._write_lock.acquire())
        done, _ = await asyncio.wait({waiter}, timeout=WRITE_BUSY_SECONDS)
        if done:
            return
        waiter.cancel()
        try:
            await waiter
        except asyncio.CancelledError:
            raise Busy() from None
        self._write_lock.release()  # taken just as the wait ended: give it back
        raise Busy()

    async def _one(self, sql: str, params: Sequence[Any] = ()) -> aiosqlite.Row | None:
        """One row, read on the reading connection in a single round trip."""
        rows = list(await self._reader.execute_fetchall(sql, params))
        return rows[0] if rows else None

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[aiosqlite.Row]:
        return list(await self._reader.execute_fetchall(sql, params))

    # -- meta -------------------------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        row = await self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    async def set_meta(self, key: str, value: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

        await self._write(work)

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

    async def create_game(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        author_id: int,
        author_display: str,
        seats_wanted: int,
        bots: int,
        variant: str,
        seed: int,
        reminder_interval: float,
        reminder_limit: int,
        idle_cancel_after: float,
        now: float | None = None,
        language: str = "en",
        ai_level: str | None = None,
        lobby_channel_id: int | None = None,
        lobby_message_id: int | None = None,
    ) -> int:
        now = time.time() if now is None else now
        values = new_game(
            seed=seed,
            now=now,
            guild_id=guild_id,
            channel_id=channel_id,
            author_id=author_id,
            seats_wanted=seats_wanted,
            bots=bots,
            variant=variant,
            reminder_interval=reminder_interval,
            reminder_limit=reminder_limit,
            idle_cancel_after=idle_cancel_after,
            language=language,
            ai_level=ai_level,
            lobby_channel_id=lobby_channel_id,
            lobby_message_id=lobby_message_id,
        )
        try:
            async with self.transaction() as conn:
                cur = await conn.execute(_INSERT_GAME, values)
                game_id = int(cur.lastrowid or 0)
                await conn.execute(
                    "INSERT INTO seats (game_id, seat, user_id, display, joined_at)"
                    " VALUES (?, 1, ?, ?, ?)",
                    (game_id, author_id, author_display, now),
                )
        except aiosqlite.IntegrityError as exc:
            if "games.channel_id" in str(exc):
                raise ChannelBusy(channel_id) from exc
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

        ids = await self._write(work)
        if ids is None:
            return False
        if queued is not None:
            queued.extend(ids)
        return True

    # -- several processes (see bot.db.postgres) --------------------------------------

    dialect = "sqlite"

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """One process per SQLite file: the service's asyncio lock is all it takes."""
        yield

    async def claim_shards(self, shard_ids: Sequence[int]) -> list[int]:
        """One process per SQLite file: every shard is this process's."""
        return []

    # -- players' games, history and results (bot.core.home) ---------------------------------

    async def user_games(self, user_id: int) -> list[tuple[GameRow, float]]:
        rows = await self._all(
            f"SELECT g.*, {TURN_SINCE} AS turn_since FROM games g"
            " JOIN seats s ON s.game_id = g.id"
            " WHERE s.user_id = ? AND s.resigned = 0 AND g.status IN ('open', 'running')"
            " ORDER BY g.id",
            (user_id,),
        )
        out = []
        for r in rows:
            data = dict(r)
            since = float(data.pop("turn_since") or data["created_at"])
            out.append((_game(data), since))
        return out

    async def past_games(
        self, *, channel_id: int | None = None, guild_id: int | None = None, limit: int = 10
    ) -> list[GameRow]:
        column, value = (
            ("channel_id", channel_id) if channel_id is not None else ("guild_id", guild_id)
        )
        rows = await self._all(
            f"SELECT * FROM games WHERE {column} = ? AND status IN ('over', 'cancelled')"
            " ORDER BY id DESC LIMIT ?",
            (value, limit),
        )
        return [_game(r) for r in rows]

    async def games_without_result(self) -> list[int]:
        rows = await self._all(
            "SELECT id FROM games WHERE status = 'over'"
            " AND NOT EXISTS (SELECT 1 FROM results r WHERE r.game_id = games.id) ORDER BY id"
        )
        return [int(r[0]) for r in rows]

    async def add_result(self, result: ResultRow) -> bool:
        async with self.transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO results (game_id, guild_id, channel_id, variant, started_at,"
                " finished_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING",
                (
                    result.game_id,
                    result.guild_id,
                    result.channel_id,
                    result.variant,
                    result.started_at,
                    result.finished_at,
                ),
            )
            if cur.rowcount != 1:
                return False
            await conn.executemany(
                "INSERT INTO result_seats (game_id, seat, name, user_id, display, ai_level,"
                " score, rank) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        result.game_id,
                        s.seat,
                        s.name,
                        s.user_id,
                        s.display,
                        s.ai_level,
                        s.score,
                        s.rank,
                    )
                    for s in result.seats
                ],
            )
        return True

    async def results_version(self, guild_id: int | None) -> tuple[int, int]:
        row = await self._one(
            "SELECT COUNT(*), COALESCE(MAX(game_id), 0) FROM results WHERE guild_id IS ?",
            (guild_id,),
        )
        assert row is not None
        return int(row[0]), int(row[1])

    async def results(self, guild_id: int | None) -> list[ResultRow]:
        rows = await self._all(
            "SELECT r.game_id, r.guild_id, r.channel_id, r.variant, r.started_at, r.finished_at,"
            " s.seat, s.name, s.user_id, s.display, s.ai_level, s.score, s.rank"
            " FROM results r JOIN result_seats s ON s.game_id = r.game_id"
            " WHERE r.guild_id IS ? ORDER BY r.finished_at, r.game_id, s.seat",
            (guild_id,),
        )
        return results_of([tuple(r) for r in rows])

    async def user_settings(self, user_id: int) -> UserSettings:
        row = await self._one(
            "SELECT dm, dm_refused, away_until FROM user_settings WHERE user_id = ?", (user_id,)
        )
        if row is None:
            return UserSettings(user_id)
        return UserSettings(user_id, bool(row[0]), bool(row[1]), row[2])

    async def set_user_settings(self, settings: UserSettings) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO user_settings (user_id, dm, dm_refused, away_until)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET dm = excluded.dm,"
                " dm_refused = excluded.dm_refused, away_until = excluded.away_until",
                (settings.user_id, int(settings.dm), int(settings.dm_refused), settings.away_until),
            )

    async def set_turn_clock(self, game_id: int, seconds: float, reminder_interval: float) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE games SET turn_seconds = ?, reminder_interval = ? WHERE id = ?",
                (seconds, reminder_interval, game_id),
            )

    async def clocked_games(self) -> list[tuple[GameRow, float, float]]:
        rows = await self._all(
            f"SELECT g.*, {TURN_SINCE} AS turn_since FROM games g"
            " WHERE g.status = 'running' AND g.turn_seconds IS NOT NULL ORDER BY g.id"
        )
        out = []
        for r in rows:
            data = dict(r)
            since = float(data.pop("turn_since") or data["created_at"])
            seconds = float(data.pop("turn_seconds"))
            out.append((_game(data), seconds, since))
        return out

    async def turn_clock(self, game_id: int) -> float | None:
        row = await self._one("SELECT turn_seconds FROM games WHERE id = ?", (game_id,))
        return None if row is None or row[0] is None else float(row[0])

    async def set_seat_ai(self, game_id: int, name: str, is_ai: bool) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE seats SET is_ai = ? WHERE game_id = ? AND name = ?",
                (int(is_ai), game_id, name),
            )

    async def away_users(self, user_ids: Sequence[int], now: float) -> dict[int, float]:
        if not user_ids:
            return {}
        marks = ",".join("?" for _ in user_ids)
        rows = await self._all(
            f"SELECT user_id, away_until FROM user_settings WHERE user_id IN ({marks})"
            " AND away_until > ?",
            (*user_ids, now),
        )
        return {int(r[0]): float(r[1]) for r in rows}

    async def tutorial(self, user_id: int) -> TutorialRow | None:
        row = await self._one(
            f"SELECT {', '.join(TABLES['tutorials'])} FROM tutorials WHERE user_id = ?", (user_id,)
        )
        return None if row is None else tutorial_of(tuple(row))

    async def save_tutorial(self, row: TutorialRow, *, replacing: int | None) -> bool:
        columns = TABLES["tutorials"]
        values = row.values()

        def work(conn: sqlite3.Connection) -> bool:
            if replacing is None:
                conn.execute(
                    f"INSERT OR REPLACE INTO tutorials ({', '.join(columns)})"
                    f" VALUES ({', '.join('?' for _ in columns)})",
                    values,
                )
                return True
            sets = ", ".join(f"{c} = ?" for c in columns[1:])
            cursor = conn.execute(
                f"UPDATE tutorials SET {sets} WHERE user_id = ? AND version = ?",
                (*values[1:], row.user_id, replacing),
            )
            return cursor.rowcount == 1

        return await self._write(work)
