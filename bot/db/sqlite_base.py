"""The SQLite store's machinery: one connection for reads, one writer thread that runs
each write as a function in one transaction, busy and full-disk handling, the schema's
migrations, and the file's identity (a file replaced under the bot stops it)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeVar

import aiosqlite

from bot.db.errors import REPLACED, Busy, Unavailable
from bot.db.rows import (
    DatabaseDamaged,
    DatabaseReadOnly,
    DiskFull,
    GameRow,
    SeatRow,
    StoreError,
    committed_by,
    game_row,
    migrations,
    versions_to_apply,
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


class SqliteBase:
    """Connections, transactions, the writer thread, migrations and meta (see bot.db.sqlite)."""

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
            for version in versions_to_apply(current, SCHEMA_VERSION):
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

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """One process per SQLite file: the service's asyncio lock is all it takes."""
        yield

    async def claim_shards(self, shard_ids: Sequence[int]) -> list[int]:
        """One process per SQLite file: every shard is this process's."""
        return []
