"""One store interface, two backends: SQLite (a file path) and PostgreSQL (a URL).

``TORRES_DB`` picks the backend: ``postgresql://…`` (or ``postgres://…``) opens
:class:`bot.db.postgres.PgStore`, anything else is a SQLite file for
:class:`bot.db.sqlite.Store`. The service and the Discord layer use only the methods
of :class:`GameStore`, and both backends answer them the same way (the store
test suite runs against both).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bot.db.rows import ActionRow, GameRow, ResultRow, SeatRow, UserSettings, is_postgres


class GameStore(Protocol):
    """What the service and the bot need from a database."""

    dialect: str
    lost: asyncio.Event
    """Set when the database the bot opened is gone (SQLite: its file was replaced)."""

    async def close(self) -> None: ...
    async def schema_version(self) -> int: ...
    def game_lock(self, game_id: int) -> AbstractAsyncContextManager[None]: ...
    async def claim_shards(self, shard_ids: Sequence[int]) -> list[int]: ...
    async def get_meta(self, key: str) -> str | None: ...
    async def set_meta(self, key: str, value: str) -> None: ...
    async def game(self, game_id: int) -> GameRow | None: ...
    async def active_game(self, channel_id: int) -> GameRow | None: ...
    async def games_with_status(self, *statuses: str) -> list[GameRow]: ...
    async def seats(self, game_id: int) -> list[SeatRow]: ...
    async def game_and_seats(self, game_id: int) -> tuple[GameRow | None, list[SeatRow]]: ...
    async def actions(self, game_id: int, *, after_seq: int = 0) -> list[ActionRow]: ...
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
    ) -> int: ...
    async def add_seat(self, game_id: int, user_id: int, display: str, now: float) -> int: ...
    async def remove_seat(self, game_id: int, user_id: int, now: float) -> None: ...
    async def start_game(
        self,
        game_id: int,
        *,
        seats: Sequence[tuple[int | None, str, str, bool]],
        initial: dict[str, Any],
        now: float,
        outbox: Sequence[dict[str, Any]] = (),
    ) -> list[int]: ...
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
    ) -> tuple[int, list[int]]: ...
    async def finish(
        self,
        game_id: int,
        *,
        status: str,
        result: dict[str, Any],
        now: float,
        outbox: Sequence[dict[str, Any]] = (),
        queued: list[int] | None = None,
    ) -> bool: ...
    async def unsent(self, game_id: int) -> list[tuple[int, float, dict[str, Any]]]: ...
    async def games_with_unsent(self) -> list[int]: ...
    async def last_payload(self, game_id: int) -> dict[str, Any] | None: ...
    async def prune_outbox(self, *, sent_before: float) -> int: ...
    async def mark_sent(
        self,
        outbox_id: int,
        now: float,
        *,
        then: Sequence[dict[str, Any]] = (),
        meta: Mapping[str, str] | None = None,
    ) -> list[int]: ...
    async def mark_many_sent(
        self, outbox_ids: Sequence[int], now: float, *, meta: Mapping[str, str] | None = None
    ) -> None: ...
    async def note_reminder(
        self,
        game_id: int,
        *,
        expected_sent: int,
        expected_seq: int,
        outbox: Sequence[dict[str, Any]] = (),
        queued: list[int] | None = None,
    ) -> bool: ...
    # players' games, history and results (bot.home)
    async def user_games(self, user_id: int) -> list[tuple[GameRow, float]]: ...
    async def past_games(
        self, *, channel_id: int | None = None, guild_id: int | None = None, limit: int = 10
    ) -> list[GameRow]: ...
    async def games_without_result(self) -> list[int]: ...
    async def add_result(self, result: ResultRow) -> bool: ...
    async def results_version(self, guild_id: int | None) -> tuple[int, int]: ...
    async def results(self, guild_id: int | None) -> list[ResultRow]: ...
    async def user_settings(self, user_id: int) -> UserSettings: ...
    async def set_user_settings(self, settings: UserSettings) -> None: ...
    async def set_turn_clock(
        self, game_id: int, seconds: float, reminder_interval: float
    ) -> None: ...
    async def clocked_games(self) -> list[tuple[GameRow, float, float]]: ...
    async def turn_clock(self, game_id: int) -> float | None: ...
    async def set_seat_ai(self, game_id: int, name: str, is_ai: bool) -> None: ...
    async def away_users(self, user_ids: Sequence[int], now: float) -> dict[int, float]: ...


async def open_store(target: str, *, pool_size: int = 10) -> GameStore:
    """Open (and migrate) the database *target* names: a URL for PostgreSQL, else a file.

    *pool_size*: PostgreSQL connections for queries, and as many for game locks.
    """
    if is_postgres(target):
        from bot.db.postgres import PgStore

        return await PgStore.open(target, pool_size=pool_size)
    from bot.db.sqlite import Store

    return await Store.open(target)
