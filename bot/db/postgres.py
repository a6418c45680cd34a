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

import time
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import asyncpg

from bot.db.postgres_base import (
    _LOCK_TIMEOUT,
    _count,
    _dump,
    _game,
    _loads,
    _LockConnection,
    _QueryConnection,
    _queue,
)
from bot.db.postgres_home import PgHomeQueries
from bot.db.rows import (
    NEW_GAME_COLUMNS,
    ActionRow,
    ChannelBusy,
    GameRow,
    NewGame,
    SeatRow,
    new_game,
)

_INSERT_GAME = (
    f"INSERT INTO games ({', '.join(NEW_GAME_COLUMNS)}) VALUES"
    f" ({', '.join(f'${i}' for i in range(1, len(NEW_GAME_COLUMNS) + 1))}) RETURNING id"
)


class PgStore(PgHomeQueries):
    """An open PostgreSQL database behind a connection pool. Create with :meth:`open`."""

    dialect = "postgresql"

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

    async def create_game(self, **game: Unpack[NewGame]) -> int:
        now, values = new_game(game)
        try:
            async with self.transaction() as conn:
                game_id = int(await conn.fetchval(_INSERT_GAME, *values))
                await conn.execute(
                    "INSERT INTO seats (game_id, seat, user_id, display, joined_at)"
                    " VALUES ($1, 1, $2, $3, $4)",
                    game_id,
                    game["author_id"],
                    game["author_display"],
                    now,
                )
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "games_one_active_per_channel":
                raise ChannelBusy(game["channel_id"]) from exc
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
