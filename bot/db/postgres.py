"""PostgreSQL persistence (asyncpg): the same tables, rules and answers as :mod:`bot.db.sqlite`.

Chosen by ``TORRES_DB=postgresql://…`` (see :func:`bot.db.contract.open_store`).
Several bot processes may share one database:

* every write that the service acknowledges is one transaction, as in SQLite;
* the ``actions`` log is append-only (a trigger refuses UPDATE, DELETE and TRUNCATE);
* ``games.last_seq`` is the game's version: :meth:`PgStore.record` commits only
  against the version it was computed from, and row locks (``SELECT … FOR
  UPDATE``) serialise the other read-modify-write changes of one game;
* :meth:`PgStore.game_lock` is a session advisory lock per game, so that one
  process at a time changes a game, and :meth:`PgStore.claim_shards` holds one
  advisory lock per shard for the life of the process, so that the background
  work of a shard is done by exactly one process.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import orjson

from bot.db.errors import Busy
from bot.db.rows import (
    NEW_GAME_COLUMNS,
    TABLES,
    TURN_SINCE,
    ActionRow,
    ChannelBusy,
    DiskFull,
    GameRow,
    ResultRow,
    SeatRow,
    StoreError,
    TutorialRow,
    UserSettings,
    committed_by,
    describe,
    game_row,
    migrations,
    new_game,
    results_of,
    tutorial_of,
)

_MIGRATIONS = migrations("postgres")
SCHEMA_VERSION = len(_MIGRATIONS)

_INSERT_GAME = (
    f"INSERT INTO games ({', '.join(NEW_GAME_COLUMNS)}) VALUES"
    f" ({', '.join(f'${i}' for i in range(1, len(NEW_GAME_COLUMNS) + 1))}) RETURNING id"
)

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
        if conn is not self._conn or pid == conn.get_server_pid():
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


class PgStore:
    """An open PostgreSQL database behind a connection pool. Create with :meth:`open`."""

    dialect = "postgresql"

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

    @classmethod
    async def open(cls, url: str, *, pool_size: int = 10) -> PgStore:
        """Connect to *url* and migrate the schema.

        Uses up to ``2 * pool_size + 1`` connections: queries, game locks, shard locks.

        :raises StoreError: if the database was written by a newer schema.
        """
        pool = await asyncpg.create_pool(
            url,
            min_size=1,
            max_size=pool_size,
            connection_class=_QueryConnection,
            server_settings=_LOCK_TIMEOUT,
        )
        try:
            lock_pool = await asyncpg.create_pool(
                url, min_size=0, max_size=pool_size, connection_class=_LockConnection
            )
        except BaseException:
            await pool.close()
            raise
        store = cls(pool, lock_pool, url)
        try:
            await store._migrate()
        except BaseException:
            await store.close()
            raise
        return store

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
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"the database has schema version {current}, newer than this bot's "
                    f"{SCHEMA_VERSION}; upgrade the bot"
                )
            for version in range(current, SCHEMA_VERSION):
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

    # -- reads ------------------------------------------------------------------

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._pool.fetchrow("SELECT * FROM games WHERE id = $1", game_id)
        return None if row is None else _game(row)

    async def game_and_seats(self, game_id: int) -> tuple[GameRow | None, list[SeatRow]]:
        """The game and its seats in one round trip (the service reads both for every command)."""
        row = await self._pool.fetchrow(
            "SELECT g.*, ARRAY(SELECT s FROM seats s WHERE s.game_id = g.id ORDER BY s.seat)"
            " AS seats_of_game FROM games g WHERE g.id = $1",
            game_id,
        )
        if row is None:
            return None, []
        data = dict(row)
        seats = [SeatRow(**dict(s)) for s in data.pop("seats_of_game")]
        return _game(data), seats

    async def active_game(self, channel_id: int) -> GameRow | None:
        row = await self._pool.fetchrow(
            "SELECT * FROM games WHERE channel_id = $1 AND status IN ('open', 'running')",
            channel_id,
        )
        return None if row is None else _game(row)

    async def lobby_games(self, channel_id: int) -> list[GameRow]:
        rows = await self._pool.fetch(
            "SELECT * FROM games WHERE lobby_channel_id = $1 AND status IN ('open', 'running')"
            " ORDER BY id",
            channel_id,
        )
        return [_game(r) for r in rows]

    async def games_with_status(self, *statuses: str) -> list[GameRow]:
        rows = await self._pool.fetch(
            "SELECT * FROM games WHERE status = ANY($1::text[]) ORDER BY id", list(statuses)
        )
        return [_game(r) for r in rows]

    async def seats(self, game_id: int) -> list[SeatRow]:
        rows = await self._pool.fetch(
            "SELECT * FROM seats WHERE game_id = $1 ORDER BY seat", game_id
        )
        return [SeatRow(**dict(r)) for r in rows]

    async def actions(self, game_id: int, *, after_seq: int = 0) -> list[ActionRow]:
        rows = await self._pool.fetch(
            "SELECT * FROM actions WHERE game_id = $1 AND seq > $2 ORDER BY seq",
            game_id,
            after_seq,
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
                game_id = int(await conn.fetchval(_INSERT_GAME, *values))
                await conn.execute(
                    "INSERT INTO seats (game_id, seat, user_id, display, joined_at)"
                    " VALUES ($1, 1, $2, $3, $4)",
                    game_id,
                    author_id,
                    author_display,
                    now,
                )
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "games_one_active_per_channel":
                raise ChannelBusy(channel_id) from exc
            raise
        return game_id

    async def add_seat(self, game_id: int, user_id: int, display: str, now: float) -> int:
        async with self.transaction() as conn:
            await conn.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id)
            seat = int(
                await conn.fetchval(
                    "SELECT COALESCE(MAX(seat), 0) + 1 FROM seats WHERE game_id = $1", game_id
                )
            )
            await conn.execute(
                "INSERT INTO seats (game_id, seat, user_id, display, joined_at)"
                " VALUES ($1, $2, $3, $4, $5)",
                game_id,
                seat,
                user_id,
                display,
                now,
            )
            await conn.execute(
                "UPDATE games SET updated_at = $1, last_activity = $1 WHERE id = $2", now, game_id
            )
        return seat

    async def remove_seat(self, game_id: int, user_id: int, now: float) -> None:
        async with self.transaction() as conn:
            await conn.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id)
            await conn.execute(
                "DELETE FROM seats WHERE game_id = $1 AND user_id = $2", game_id, user_id
            )
            # Renumber through negative values so the primary key never collides.
            await conn.execute(
                "UPDATE seats SET seat = -n.rank FROM (SELECT seat, ROW_NUMBER() OVER"
                " (ORDER BY seat) AS rank FROM seats WHERE game_id = $1) AS n"
                " WHERE seats.game_id = $1 AND seats.seat = n.seat",
                game_id,
            )
            await conn.execute("UPDATE seats SET seat = -seat WHERE game_id = $1", game_id)
            await conn.execute(
                "UPDATE games SET updated_at = $1, last_activity = $1 WHERE id = $2", now, game_id
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
        snapshot = _dump(initial)
        async with self.transaction() as conn:
            await conn.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id)
            await conn.execute("DELETE FROM seats WHERE game_id = $1", game_id)
            await conn.executemany(
                "INSERT INTO seats (game_id, seat, user_id, display, name, is_ai, joined_at)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    (game_id, number, user_id, display, name, bool(is_ai), now)
                    for number, (user_id, display, name, is_ai) in enumerate(seats, start=1)
                ],
            )
            await conn.execute(
                "UPDATE games SET status = 'running', initial = $1, position = $1,"
                " turn_no = 1, turn_start_seq = 0, turn_start_position = $1, last_seq = 0,"
                " updated_at = $2, last_activity = $2, reminders_sent = 0 WHERE id = $3",
                snapshot,
                now,
                game_id,
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
        """Append one log row, store the snapshot and queue *outbox*, in one transaction.

        Refused (``(-1, [])``) unless the game's version (``last_seq``) is still
        *expected_seq*; the guarded UPDATE takes the row lock, so a concurrent
        writer waits and then finds the version moved on. *earlier* gets the ids of
        the game's posts queued before these and not yet marked sent, oldest first.
        """
        seq = expected_seq + 1
        # One statement, one round trip: every part but the UPDATE reads its
        # RETURNING, so nothing is written unless the version matched.
        row = await self._write(
            "fetchrow",
            "WITH g AS ("
            " UPDATE games SET position = $1, last_seq = $2, updated_at = $3,"
            " last_activity = $3, reminders_sent = 0,"
            " turn_no = turn_no + (CASE WHEN $4 THEN 1 ELSE 0 END),"
            " turn_start_seq = CASE WHEN $4 THEN $2 ELSE turn_start_seq END,"
            " turn_start_position = CASE WHEN $4 THEN $1 ELSE turn_start_position END,"
            " status = CASE WHEN $5::text IS NOT NULL THEN 'over' ELSE status END,"
            " result = COALESCE($5::text, result)"
            " WHERE id = $6 AND last_seq = $7 AND status = 'running' RETURNING id"
            "), a AS ("
            " INSERT INTO actions (game_id, seq, player, user_id, kind, action, time)"
            " SELECT id, $2, $8, $9, $10, $11, $3 FROM g"
            "), s AS ("
            " UPDATE seats SET is_ai = TRUE, resigned = TRUE"
            " WHERE $12::text IS NOT NULL AND game_id = (SELECT id FROM g) AND name = $12::text"
            "), o AS ("
            " INSERT INTO outbox (game_id, created_at, payload)"
            " SELECT g.id, $3, t.p FROM g, unnest($13::text[]) WITH ORDINALITY AS t(p, n)"
            " ORDER BY t.n RETURNING id"
            ") SELECT (SELECT count(*) FROM g) AS changed, ARRAY(SELECT id FROM o) AS ids,"
            # The statement's snapshot: rows committed before it, not its own.
            " ARRAY(SELECT id FROM outbox WHERE sent_at IS NULL AND game_id = $6 ORDER BY id)"
            " AS earlier",
            _dump(position),
            seq,
            now,
            turn_ended,
            _dump(result),
            game_id,
            expected_seq,
            player,
            user_id,
            kind,
            action,
            seat_to_ai,
            [_dump(p) for p in outbox],
        )
        if row["changed"] != 1:
            return -1, []
        if earlier is not None:
            earlier.extend(int(i) for i in row["earlier"])
        return seq, sorted(int(i) for i in row["ids"])

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
        async with self.transaction() as conn:
            tag = await conn.execute(
                "UPDATE games SET status = $1, result = $2, updated_at = $3"
                " WHERE id = $4 AND status IN ('open', 'running')",
                status,
                _dump(result),
                now,
                game_id,
            )
            if _count(tag) != 1:
                return False
            ids = await _queue(conn, game_id, outbox, now)
        if queued is not None:
            queued.extend(ids)
        return True

    async def unsent(self, game_id: int) -> list[tuple[int, float, dict[str, Any]]]:
        rows = await self._pool.fetch(
            "SELECT id, created_at, payload FROM outbox WHERE sent_at IS NULL AND game_id = $1"
            " ORDER BY id",
            game_id,
        )
        return [(int(r[0]), float(r[1]), _loads(r[2])) for r in rows]

    async def games_with_unsent(self) -> list[int]:
        rows = await self._pool.fetch(
            "SELECT DISTINCT game_id FROM outbox WHERE sent_at IS NULL ORDER BY game_id"
        )
        return [int(r[0]) for r in rows]

    async def last_payload(self, game_id: int) -> dict[str, Any] | None:
        value = await self._pool.fetchval(
            "SELECT payload FROM outbox WHERE game_id = $1 ORDER BY id DESC LIMIT 1", game_id
        )
        return None if value is None else _loads(value)

    async def prune_outbox(self, *, sent_before: float) -> int:
        async with self.transaction() as conn:
            tag = await conn.execute(
                "DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < $1"
                " AND id NOT IN (SELECT MAX(id) FROM outbox GROUP BY game_id)",
                sent_before,
            )
        return _count(tag)

    async def mark_sent(
        self,
        outbox_id: int,
        now: float,
        *,
        then: Sequence[dict[str, Any]] = (),
        meta: Mapping[str, str] | None = None,
    ) -> list[int]:
        meta = meta or {}
        ids = await self._write(
            "fetchval",
            "WITH k AS ("
            " INSERT INTO meta (key, value) SELECT * FROM unnest($4::text[], $5::text[])"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            "), m AS ("
            " UPDATE outbox SET sent_at = $1 WHERE id = $2 AND sent_at IS NULL RETURNING game_id"
            "), o AS ("
            " INSERT INTO outbox (game_id, created_at, payload)"
            " SELECT m.game_id, $1, t.p FROM m, unnest($3::text[]) WITH ORDINALITY AS t(p, n)"
            " ORDER BY t.n RETURNING id"
            ") SELECT ARRAY(SELECT id FROM o)",
            now,
            outbox_id,
            [_dump(p) for p in then],
            list(meta),
            list(meta.values()),
        )
        return sorted(int(i) for i in ids)

    async def mark_many_sent(
        self, outbox_ids: Sequence[int], now: float, *, meta: Mapping[str, str] | None = None
    ) -> None:
        """:meth:`mark_sent` for several posts (nothing to queue after them): one statement."""
        meta = meta or {}
        await self._write(
            "execute",
            "WITH k AS ("
            " INSERT INTO meta (key, value) SELECT * FROM unnest($3::text[], $4::text[])"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ") UPDATE outbox SET sent_at = $1 WHERE id = ANY($2::bigint[]) AND sent_at IS NULL",
            now,
            list(outbox_ids),
            list(meta),
            list(meta.values()),
        )

    async def note_reminder(
        self,
        game_id: int,
        *,
        expected_sent: int,
        expected_seq: int,
        outbox: Sequence[dict[str, Any]] = (),
        queued: list[int] | None = None,
    ) -> bool:
        """Count one reminder as sent and queue its post, unless the game moved on meanwhile
        (or another process counted it first)."""
        async with self.transaction() as conn:
            tag = await conn.execute(
                "UPDATE games SET reminders_sent = reminders_sent + 1"
                " WHERE id = $1 AND reminders_sent = $2 AND last_seq = $3 AND status = 'running'",
                game_id,
                expected_sent,
                expected_seq,
            )
            if _count(tag) != 1:
                return False
            ids = await _queue(conn, game_id, outbox, time.time())
        if queued is not None:
            queued.extend(ids)
        return True

    # -- players' games, history and results (bot.core.home) ---------------------------------

    async def user_games(self, user_id: int) -> list[tuple[GameRow, float]]:
        rows = await self._pool.fetch(
            f"SELECT g.*, {TURN_SINCE} AS turn_since FROM games g"
            " JOIN seats s ON s.game_id = g.id"
            " WHERE s.user_id = $1 AND NOT s.resigned AND g.status IN ('open', 'running')"
            " ORDER BY g.id",
            user_id,
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
        rows = await self._pool.fetch(
            f"SELECT * FROM games WHERE {column} = $1 AND status IN ('over', 'cancelled')"
            " ORDER BY id DESC LIMIT $2",
            value,
            limit,
        )
        return [_game(r) for r in rows]

    async def games_without_result(self) -> list[int]:
        rows = await self._pool.fetch(
            "SELECT id FROM games WHERE status = 'over'"
            " AND NOT EXISTS (SELECT 1 FROM results r WHERE r.game_id = games.id) ORDER BY id"
        )
        return [int(r[0]) for r in rows]

    async def add_result(self, result: ResultRow) -> bool:
        """Store a finished game's result; False if it was stored already (by any process)."""
        async with self.transaction() as conn:
            tag = await conn.execute(
                "INSERT INTO results (game_id, guild_id, channel_id, variant, started_at,"
                " finished_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (game_id) DO NOTHING",
                result.game_id,
                result.guild_id,
                result.channel_id,
                result.variant,
                result.started_at,
                result.finished_at,
            )
            if _count(tag) != 1:
                return False
            await conn.executemany(
                "INSERT INTO result_seats (game_id, seat, name, user_id, display, ai_level,"
                " score, rank) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
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
        row = await self._pool.fetchrow(
            "SELECT COUNT(*), COALESCE(MAX(game_id), 0) FROM results"
            " WHERE guild_id IS NOT DISTINCT FROM $1",
            guild_id,
        )
        assert row is not None
        return int(row[0]), int(row[1])

    async def results(self, guild_id: int | None) -> list[ResultRow]:
        rows = await self._pool.fetch(
            "SELECT r.game_id, r.guild_id, r.channel_id, r.variant, r.started_at, r.finished_at,"
            " s.seat, s.name, s.user_id, s.display, s.ai_level, s.score, s.rank"
            " FROM results r JOIN result_seats s ON s.game_id = r.game_id"
            " WHERE r.guild_id IS NOT DISTINCT FROM $1 ORDER BY r.finished_at, r.game_id, s.seat",
            guild_id,
        )
        return results_of([tuple(r) for r in rows])

    async def user_settings(self, user_id: int) -> UserSettings:
        row = await self._pool.fetchrow(
            "SELECT dm, dm_refused, away_until FROM user_settings WHERE user_id = $1", user_id
        )
        if row is None:
            return UserSettings(user_id)
        return UserSettings(user_id, bool(row[0]), bool(row[1]), row[2])

    async def set_user_settings(self, settings: UserSettings) -> None:
        await self._write(
            "execute",
            "INSERT INTO user_settings (user_id, dm, dm_refused, away_until)"
            " VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO UPDATE SET dm = excluded.dm,"
            " dm_refused = excluded.dm_refused, away_until = excluded.away_until",
            settings.user_id,
            settings.dm,
            settings.dm_refused,
            settings.away_until,
        )

    async def set_turn_clock(self, game_id: int, seconds: float, reminder_interval: float) -> None:
        await self._write(
            "execute",
            "UPDATE games SET turn_seconds = $1, reminder_interval = $2 WHERE id = $3",
            seconds,
            reminder_interval,
            game_id,
        )

    async def clocked_games(self) -> list[tuple[GameRow, float, float]]:
        rows = await self._pool.fetch(
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
        value = await self._pool.fetchval("SELECT turn_seconds FROM games WHERE id = $1", game_id)
        return None if value is None else float(value)

    async def set_seat_ai(self, game_id: int, name: str, is_ai: bool) -> None:
        await self._write(
            "execute",
            "UPDATE seats SET is_ai = $1 WHERE game_id = $2 AND name = $3",
            is_ai,
            game_id,
            name,
        )

    async def away_users(self, user_ids: Sequence[int], now: float) -> dict[int, float]:
        rows = await self._pool.fetch(
            "SELECT user_id, away_until FROM user_settings WHERE user_id = ANY($1::bigint[])"
            " AND away_until > $2",
            list(user_ids),
            now,
        )
        return {int(r[0]): float(r[1]) for r in rows}

    async def tutorial(self, user_id: int) -> TutorialRow | None:
        row = await self._pool.fetchrow(
            f"SELECT {', '.join(TABLES['tutorials'])} FROM tutorials WHERE user_id = $1", user_id
        )
        return None if row is None else tutorial_of(tuple(row))

    async def save_tutorial(self, row: TutorialRow, *, replacing: int | None) -> bool:
        columns = TABLES["tutorials"]
        values = row.values()
        if replacing is None:
            sets = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
            await self._write(
                "execute",
                f"INSERT INTO tutorials ({', '.join(columns)})"
                f" VALUES ({', '.join(f'${i}' for i in range(1, len(columns) + 1))})"
                f" ON CONFLICT (user_id) DO UPDATE SET {sets}",
                *values,
            )
            return True
        sets = ", ".join(f"{c} = ${i}" for i, c in enumerate(columns[1:], 2))
        n = len(columns)
        status = await self._write(
            "execute",
            f"UPDATE tutorials SET {sets} WHERE user_id = $1 AND version = ${n + 1}",
            *values,
            replacing,
        )
        return str(status).endswith(" 1")
