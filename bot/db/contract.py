"""One store interface, two backends: SQLite (a file path) and PostgreSQL (a URL).

``TORRES_DB`` picks the backend: ``postgresql://…`` (or ``postgres://…``) opens
:class:`bot.db.postgres.PgStore`, anything else is a SQLite file for
:class:`bot.db.sqlite.Store`. The service and the Discord layer use only the methods
of :class:`GameStore`, and both backends answer them the same way (the store
test suite runs against both). The methods' docstrings here are the one copy of
what each means; a store's own docstring says only how its dialect does it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, Unpack

from bot.db.rows import (
    ActionRow,
    GameRow,
    NewGame,
    ResultRow,
    SeatRow,
    TutorialRow,
    UserSettings,
    is_postgres,
)


class HomeStore(Protocol):
    """What the home (bot.core.home: players' games, history, results, settings, clocks)
    and the tutorial need from a database; the stores' ``*HomeQueries`` halves."""

    # players' games, history and results (bot.core.home)
    async def user_games(self, user_id: int) -> list[tuple[GameRow, float]]:
        """The open and running games *user_id* holds a seat in (not resigned), oldest first,
        each with the time its current turn began (an open game: when it was opened).
        """

    async def past_games(
        self, *, channel_id: int | None = None, guild_id: int | None = None, limit: int = 10
    ) -> list[GameRow]:
        """Ended games (over or cancelled) of a channel, else of a server; newest first."""

    async def games_without_result(self) -> list[int]:
        """Games that ended by being played out and whose result is not yet in ``results``."""

    async def add_result(self, result: ResultRow) -> bool:
        """Store a finished game's result; False if it was stored already."""

    async def results_version(self, guild_id: int | None) -> tuple[int, int]:
        """``(count, largest game id)`` of a server's results: changes whenever one is added."""

    async def results(self, guild_id: int | None) -> list[ResultRow]:
        """A server's results in the order the games finished."""

    async def user_settings(self, user_id: int) -> UserSettings:
        """A user's settings (the defaults if they never changed any)."""

    async def set_user_settings(self, settings: UserSettings) -> None: ...
    async def set_turn_clock(self, game_id: int, seconds: float, reminder_interval: float) -> None:
        """Give a game a time per turn (and reminders that fit inside it)."""

    async def clocked_games(self) -> list[tuple[GameRow, float, float]]:
        """Running games with a time per turn: ``(game, time per turn, turn began)``."""

    async def turn_clock(self, game_id: int) -> float | None: ...
    async def set_seat_ai(self, game_id: int, name: str, is_ai: bool) -> None:
        """Hand a seat to the computer, or back to its player (who keeps the seat)."""

    async def away_users(self, user_ids: Sequence[int], now: float) -> dict[int, float]:
        """Of *user_ids*, those away at *now*, with when they are back."""

    async def tutorial(self, user_id: int) -> TutorialRow | None:
        """A user's tutorial (``/torres learn``), None if they never began one."""

    async def save_tutorial(self, row: TutorialRow, *, replacing: int | None) -> bool:
        """Write *row*: over the user's tutorial only while its version is still
        *replacing* (False, and nothing written, if it has moved on: another tap came
        first); with *replacing* None whatever is there (a tutorial begun anew)."""


class GameStore(HomeStore, Protocol):
    """What the service and the bot need from a database."""

    dialect: str
    lost: asyncio.Event
    """Set when the database the bot opened is gone (SQLite: its file was replaced)."""

    async def close(self) -> None: ...
    async def schema_version(self) -> int: ...
    def game_lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """Hold the game's lock: one change of a game at a time, in this process and any other."""

    async def claim_shards(self, shard_ids: Sequence[int]) -> list[int]:
        """Take the background work of *shard_ids* for the life of this store; returns the
        shards held elsewhere."""

    async def get_meta(self, key: str) -> str | None: ...
    async def set_meta(self, key: str, value: str) -> None: ...
    async def game(self, game_id: int) -> GameRow | None: ...
    async def active_game(self, channel_id: int) -> GameRow | None:
        """The open or running game of a channel, if any."""

    async def games_with_status(self, *statuses: str) -> list[GameRow]: ...
    async def lobby_games(self, channel_id: int) -> list[GameRow]:
        """The open and running games whose lobby card is in *channel_id* (each plays in
        a thread of its own), oldest first."""

    async def seats(self, game_id: int) -> list[SeatRow]: ...
    async def game_and_seats(self, game_id: int) -> tuple[GameRow | None, list[SeatRow]]:
        """The game and its seats, read together (the service reads both for every command)."""

    async def actions(self, game_id: int, *, after_seq: int = 0) -> list[ActionRow]: ...
    async def create_game(self, **game: Unpack[NewGame]) -> int:
        """Insert an open game with its author in seat 1; a game in a thread of its own
        names the channel and message of its lobby card.

        :raises ChannelBusy: if the channel already has an open or running game.
        """

    async def add_seat(self, game_id: int, user_id: int, display: str, now: float) -> int: ...
    async def remove_seat(self, game_id: int, user_id: int, now: float) -> None:
        """Remove a player from an open game and close the gap in seat numbers."""

    async def start_game(
        self,
        game_id: int,
        *,
        seats: Sequence[tuple[int | None, str, str, bool]],
        initial: dict[str, Any],
        now: float,
        outbox: Sequence[dict[str, Any]] = (),
    ) -> list[int]:
        """Mark a game running, seat everyone, store its starting position, queue *outbox*.

        *seats* holds ``(user_id, display, engine_name, is_ai)`` in seat order
        and replaces the seats of the open game.
        """

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
        """Append one log row, store the new snapshot and queue *outbox* posts, in one transaction.

        *expected_seq* is the log length the caller computed against; if the
        game moved on meanwhile the write is refused (returns ``(-1, [])``) so
        that a stale computation is never committed. Returns the new row's
        ``seq`` and the outbox ids of the posts. *earlier* gets the ids of the
        game's posts queued before these and not yet marked sent, oldest first
        (so that the poster knows, without reading the outbox, what comes before).
        """

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
        """End an open or running game (``over`` or ``cancelled``); False if it already ended.

        *outbox* posts are queued in the same commit; their ids go to *queued*.
        """

    async def unsent(self, game_id: int) -> list[tuple[int, float, dict[str, Any]]]:
        """A game's queued posts not yet delivered, oldest first: ``(id, created_at, payload)``."""

    async def games_with_unsent(self) -> list[int]:
        """Games that have queued posts not yet delivered."""

    async def last_payload(self, game_id: int) -> dict[str, Any] | None:
        """The most recent post queued for a game (sent or not)."""

    async def prune_outbox(self, *, sent_before: float) -> int:
        """Forget posts delivered before *sent_before*, except each game's latest."""

    async def mark_sent(
        self,
        outbox_id: int,
        now: float,
        *,
        then: Sequence[dict[str, Any]] = (),
        meta: Mapping[str, str] | None = None,
    ) -> list[int]:
        """Note a post as delivered (or refused for good) and queue *then* in the same commit.

        *meta* (key → value) is written in the same commit, whether or not the row was
        marked before. Returns the outbox ids of *then*; nothing is queued if the post
        was already marked.
        """

    async def mark_many_sent(
        self, outbox_ids: Sequence[int], now: float, *, meta: Mapping[str, str] | None = None
    ) -> None:
        """:meth:`mark_sent` for several posts (nothing to queue after them) in one commit."""

    async def note_reminder(
        self,
        game_id: int,
        *,
        expected_sent: int,
        expected_seq: int,
        outbox: Sequence[dict[str, Any]] = (),
        queued: list[int] | None = None,
    ) -> bool:
        """Count one reminder as sent and queue its post, unless the game moved on meanwhile."""


async def open_store(target: str, *, pool_size: int = 10) -> GameStore:
    """Open (and migrate) the database *target* names: a URL for PostgreSQL, else a file.

    *pool_size*: PostgreSQL connections for queries, and as many for game locks.
    """
    if is_postgres(target):
        from bot.db.postgres import PgStore

        return await PgStore.open(target, pool_size=pool_size)
    from bot.db.sqlite import Store

    return await Store.open(target)
