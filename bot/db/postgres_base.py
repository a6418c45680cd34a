"""The PostgreSQL store's machinery: the two pools (queries, game locks), the advisory
locks that let several processes share the games (a game's lock is leased between
commands and handed over when another process asks), migrations and meta."""

from __future__ import annotations

import asyncio
import json
import re
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import orjson

from bot.db.errors import Busy
from bot.db.rows import (
    DiskFull,
    GameRow,
    committed_by,
    describe,
    game_row,
    migrations,
    versions_to_apply,
)

_MIGRATIONS = migrations("postgres")


SCHEMA_VERSION = len(_MIGRATIONS)


# Like bot.db.sqlite.WRITE_BUSY_SECONDS: a write waits this long for a row lock, then is Busy.
# A setting of every query connection (reads never wait for row locks), so that a
# write of one statement needs no transaction block around it: one round trip.
_LOCK_TIMEOUT = {"lock_timeout": "2500ms"}


# Advisory lock keys: (class, id) pairs, so that the game and shard spaces never meet.
_LOCK_MIGRATE = 7301


_LOCK_GAME = 7302


_LOCK_SHARD = 7303


# The channel on which a process asks another to let go of a game's lock (_Leases).
_WANTED = "torres_game_wanted"


_ASK_AGAIN = 0.5  # seconds between asks while waiting for a game's lock


_MAX_LEASES = 256  # game locks kept between commands (PostgreSQL's lock table is shared)


def _dump(value: Any) -> str | None:
    """JSON text for a column; orjson's, several times quicker than the json module's
    (a snapshot is written with every action and read with every command).

    orjson refuses integers over 64 bits (a position's 128-bit seed): those go the
    json module's way, in orjson's compact form."""
    if value is None:
        return None
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# orjson reads an integer outside -2**63 .. 2**64-1 as a float (a 128-bit seed would
# lose its low bits): a text with a run of 19 or more digits (-2**63-1 has 19) is read
# by the json module.
_LONG_DIGITS = re.compile(r"[0-9]{19}")


def _loads(text: str) -> Any:
    """A JSON column's value; big integers exactly (see ``_LONG_DIGITS``)."""
    if _LONG_DIGITS.search(text) is not None:
        return json.loads(text)
    return orjson.loads(text)


def _game(row: asyncpg.Record | dict[str, Any]) -> GameRow:
    return game_row(dict(row), _loads)


def _count(status: str) -> int:
    """Rows touched, from a command tag such as ``UPDATE 1``."""
    return int(status.rsplit(" ", 1)[-1])


def _key(game_id: int) -> int:
    """Advisory lock ids are 32-bit in the two-key form; game ids wrap into that range."""
    return (game_id & 0xFFFFFFFF) - (1 << 31)


async def _queue(
    conn: asyncpg.Connection, game_id: int, payloads: Sequence[dict[str, Any]], now: float
) -> list[int]:
    if not payloads:
        return []
    rows = await conn.fetch(
        "INSERT INTO outbox (game_id, created_at, payload)"
        " SELECT $1, $2, p FROM unnest($3::text[]) WITH ORDINALITY AS t(p, n) ORDER BY n"
        " RETURNING id",
        game_id,
        now,
        [_dump(p) for p in payloads],
    )
    return sorted(int(r["id"]) for r in rows)


class _QueryConnection(asyncpg.Connection):
    """A pooled connection returned without asyncpg's reset round trip.

    The store never leaves session state behind (no SET, LISTEN, cursors or
    advisory locks on these connections; transactions always end), and the reset
    query would double the round trips of every read.
    """

    def get_reset_query(self) -> str:
        return ""


class _LockConnection(asyncpg.Connection):
    """A game-lock connection: returning it to the pool releases its advisory lock."""

    def get_reset_query(self) -> str:
        return "SELECT pg_advisory_unlock_all()"


class _Leases:
    """The game locks this process keeps between commands, on one connection of their own.

    A game's advisory lock stays with the process after a command (a lease), so the
    next command on the game neither locks nor unlocks: two round trips fewer. A
    process that finds the game leased elsewhere sends ``NOTIFY torres_game_wanted``
    (and again every ``_ASK_AGAIN`` seconds while it waits, in case the holder took
    the lease just after the first ask) and waits in PostgreSQL's queue for the lock;
    the holder lets it go as soon as its own command on the game ends. At most
    ``_MAX_LEASES`` are kept, the least recently used let go first.

    Should the lease connection break, its locks go with it before this process
    knows; the game's version (``record``) and row locks still keep every write
    whole, as they do when any lock connection breaks.
    """

    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: asyncpg.Connection | None = None
        self._guard = asyncio.Lock()  # one query at a time on the connection
        self._held: OrderedDict[int, None] = OrderedDict()  # least recently used first
        self._busy: set[int] = set()  # leased games a command is working on
        self._wanted: set[int] = set()  # busy games another process asked for
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    async def take(self, game_id: int) -> bool:
        """Lease the game's lock if free; False if another process holds it."""
        if game_id in self._held and self._conn is not None:
            self._held.move_to_end(game_id)
            self._busy.add(game_id)
            return True
        async with self._guard:
            try:
                conn = await self._connect()
                got = await conn.fetchval(
                    "SELECT pg_try_advisory_lock($1, $2)", _LOCK_GAME, _key(game_id)
                )
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                self._lost()
                return False  # the caller waits for the lock on a pool connection
            except asyncio.CancelledError:
                if self._conn is not None:  # the lock may have been granted, untracked
                    self._drop(self._conn)
                raise
            if not got:
                return False
            self._held[game_id] = None
            self._busy.add(game_id)
            while len(self._held) > _MAX_LEASES:
                idle = next((g for g in self._held if g not in self._busy), None)
                if idle is None:
                    break
                await self._unlock(idle)
        return True

    async def put_back(self, game_id: int) -> None:
        """A command on the game ended: keep the lease, unless another process asked."""
        self._busy.discard(game_id)
        if game_id in self._wanted:
            self._wanted.discard(game_id)
            await self._let_go(game_id)

    async def wait_for(self, conn: asyncpg.Connection, game_id: int) -> None:
        """Lock the game on *conn* (a pool connection), asking its holder to let go."""
        lock = asyncio.ensure_future(
            conn.execute("SELECT pg_advisory_lock($1, $2)", _LOCK_GAME, _key(game_id))
        )
        try:
            while True:
                await self._ask(game_id)
                done, _ = await asyncio.wait({lock}, timeout=_ASK_AGAIN)
                if done:
                    lock.result()
                    return
        except BaseException:
            lock.cancel()
            await asyncio.gather(lock, return_exceptions=True)
            raise

    async def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        conn, self._conn = self._conn, None
        self._held.clear()
        if conn is not None:
            conn.terminate()  # its session's locks end with it

    async def _connect(self) -> asyncpg.Connection:
        if self._conn is None or self._conn.is_closed():
            if self._closed:
                raise asyncpg.InterfaceError("the store is closed")
            self._lost()
            conn = await asyncpg.connect(self._url)
            await conn.add_listener(_WANTED, self._on_wanted)
            conn.add_termination_listener(self._on_terminated)
            self._conn = conn
        return self._conn

    def _on_terminated(self, conn: Any) -> None:
        if conn is self._conn:
            self._lost()

    def _lost(self) -> None:
        """The connection is gone, and with it every lease."""
        self._conn = None
        self._held.clear()
        self._wanted.clear()

    async def _ask(self, game_id: int) -> None:
        try:
            async with self._guard:
                conn = await self._connect()
                await conn.execute("SELECT pg_notify($1, $2)", _WANTED, str(game_id))
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            self._lost()  # a holder that is not asked still lets go when its lease ends

    def _on_wanted(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        if conn is not self._conn or conn is None or pid == conn.get_server_pid():
            return  # our own asking, or an old connection
        try:
            game_id = int(payload)
        except ValueError:
            return
        if game_id not in self._held:
            return
        if game_id in self._busy:
            self._wanted.add(game_id)
        else:
            task = asyncio.get_running_loop().create_task(self._let_go(game_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _let_go(self, game_id: int) -> None:
        async with self._guard:
            if game_id in self._held and game_id not in self._busy:
                await self._unlock(game_id)

    async def _unlock(self, game_id: int) -> None:
        """Give a lease back; the caller holds the guard."""
        del self._held[game_id]
        conn = self._conn
        if conn is None:
            return
        try:
            await conn.execute("SELECT pg_advisory_unlock($1, $2)", _LOCK_GAME, _key(game_id))
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            self._drop(conn)  # a lock we cannot give back must not outlive us
        except asyncio.CancelledError:
            self._drop(conn)  # given back or not: we cannot know
            raise

    def _drop(self, conn: asyncpg.Connection) -> None:
        """Close the lease connection, which ends every lock of its session."""
        conn.terminate()
        self._lost()


class PgBase:
    """Pools, transactions, game and shard locks, migrations and meta (see bot.db.postgres)."""

    def __init__(self, pool: asyncpg.Pool, lock_pool: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        # Game locks hold a connection while the service works on the game, and that
        # work needs connections of its own: from another pool, so that many locked
        # games can never take every connection and wait on each other.
        self._lock_pool = lock_pool
        self.url = url
        self._shard_conn: asyncpg.Connection | None = None
        self._leases = _Leases(url)
        # SQLite's store sets this when its file is replaced under it (bot.__main__
        # stops the bot); a PostgreSQL database has no file to swap: never set.
        self.lost = asyncio.Event()
        self._full = DiskFull(describe(url))

    async def close(self) -> None:
        await self._leases.close()
        if self._shard_conn is not None:
            await self._shard_conn.close()
            self._shard_conn = None
        await self._lock_pool.close()
        await self._pool.close()

    # -- schema ---------------------------------------------------------------

    async def schema_version(self) -> int:
        async with self._pool.acquire() as conn:
            if await conn.fetchval("SELECT to_regclass('schema_version')") is None:
                return 0
            value = await conn.fetchval("SELECT version FROM schema_version")
        return 0 if value is None else int(value)

    async def _migrate(self) -> None:
        async with self.transaction() as conn:
            # Two processes starting at once: the second waits, then finds nothing to do.
            await conn.execute("SET LOCAL lock_timeout = '60s'")
            await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", _LOCK_MIGRATE)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
            )
            value = await conn.fetchval("SELECT version FROM schema_version")
            if value is None:
                await conn.execute("INSERT INTO schema_version (version) VALUES (0)")
                current = 0
            else:
                current = int(value)
            for version in versions_to_apply(current, SCHEMA_VERSION):
                for statement in _MIGRATIONS[version]:
                    await conn.execute(statement)
                await conn.execute("UPDATE schema_version SET version = $1", version + 1)

    # -- transactions and locks -------------------------------------------------

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        """One pooled connection inside ``BEGIN`` … ``COMMIT``; rolls back if the block raises.

        :raises Busy: if a row it needs stays locked (by another process) for about
            ``WRITE_BUSY_SECONDS``, as SQLite's store does; nothing was written then.
        """
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                yield conn
        except asyncpg.LockNotAvailableError:
            raise Busy() from None
        except asyncpg.DiskFullError:
            raise self._full.refuse() from None
        committed_by.set(asyncio.current_task())

    async def _write(self, method: str, query: str, *args: Any) -> Any:
        """One statement that writes, as its own transaction: one round trip.

        A statement is atomic by itself, and the row-lock timeout is the
        connection's; so a write that fits in one statement (data-modifying
        ``WITH`` clauses) needs no ``BEGIN`` … ``COMMIT`` around it.

        :raises Busy: as ``transaction()`` does; nothing was written then.
        """
        try:
            result = await getattr(self._pool, method)(query, *args)
        except asyncpg.LockNotAvailableError:
            raise Busy() from None
        except asyncpg.DiskFullError:
            raise self._full.refuse() from None
        committed_by.set(asyncio.current_task())
        return result

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """Hold the game's advisory lock: another process changing it waits meanwhile.

        The lock is kept after the block, on this process's lease connection, so the
        game's next command costs no round trip to lock and none to unlock. Another
        process that wants the game asks for it (``NOTIFY``) while it waits on a
        connection of its own, and the lease is let go as soon as the game is free.
        The service also keeps an asyncio lock per game, taken first, so a process
        holds at most one connection per game here.
        """
        if await self._leases.take(game_id):
            try:
                yield
            finally:
                await self._leases.put_back(game_id)
            return
        async with self._lock_pool.acquire() as conn:
            await self._leases.wait_for(conn, game_id)
            yield  # released with the connection (its reset query), even if cancelled

    async def claim_shards(self, shard_ids: Sequence[int]) -> list[int]:
        """Take the lock of each shard for the life of this store; returns the shards held elsewhere.

        The locks belong to one dedicated connection, so they vanish the moment
        the process dies (even by SIGKILL) and a restarted process can take them.
        """
        if self._shard_conn is None:
            self._shard_conn = await asyncpg.connect(self.url)
        taken = []
        for shard in shard_ids:
            got = await self._shard_conn.fetchval(
                "SELECT pg_try_advisory_lock($1, $2)", _LOCK_SHARD, shard
            )
            if not got:
                taken.append(shard)
        return taken

    # -- meta -------------------------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        value = await self._pool.fetchval("SELECT value FROM meta WHERE key = $1", key)
        return None if value is None else str(value)

    async def set_meta(self, key: str, value: str) -> None:
        await self._write(
            "execute",
            "INSERT INTO meta (key, value) VALUES ($1, $2)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            key,
            value,
        )
