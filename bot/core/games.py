"""The ground every game request stands on: the game's lock, its row and seats read
fresh under it, the checks that refuse a request (in the asker's language), the cached
Game, the log writes, and :meth:`GameCore.turn`, the one preamble of a move."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from bot.core.actions import split_actions
from bot.core.apply import _apply
from bot.core.errors import IllegalMove, NoGame, NotAllowed, NotSeated, NotYourTurn, StaleButton
from bot.core.locks import game_lock, game_locks
from bot.core.players import _engine_ai
from bot.core.values import (
    BUTTONS_ALL,
    CACHED_GAMES,
    CLOCK_SLACK,
    ID_MAX,
    LAG_NORMAL,
    ChooseActions,
    Lru,
    Post,
    ServiceConfig,
    User,
)
from bot.core.workers import WorkerPool
from bot.db.contract import GameStore
from bot.db.rows import GameRow, SeatRow
from bot.texts import lobby_words
from bot.texts import posts as texts
from bot.texts.i18n import DEFAULT, N_, t
from bot.texts.markup import (
    mention,
)
from engine import Game
from engine.events import TURN_STAGES

log = logging.getLogger(__name__)


NOT_RUNNING = N_("This game is not running any more.")


@dataclass(frozen=True, slots=True)
class Turn:
    """The game a mover acts on, as read and checked under its lock (:meth:`GameCore.turn`)."""

    row: GameRow
    seats: list[SeatRow]
    game: Game
    seat: SeatRow


class GameCore:
    """State and checks shared by every part of the game service (see bot.core.service)."""

    def __init__(
        self,
        store: GameStore,
        config: ServiceConfig | None = None,
        *,
        clock: Callable[[], float] = time.time,
        choose_actions: ChooseActions | None = None,
        suggest_actions: ChooseActions | None = None,
        workers: WorkerPool | None = None,
    ) -> None:
        """*workers*: run the computer players in these processes (then *choose_actions*
        must pickle); without, they think in a thread of this process."""
        self._store = store
        self.config = config or ServiceConfig()
        self._clock = clock
        # Tests give their own player; else each game's level (chosen at /torres new,
        # or the configured one) picks the engine's.
        self._custom_choose = choose_actions
        self._locks = game_locks(store)  # shared with the home's services over this store
        self._cache: Lru[int, tuple[int, Game]] = Lru(CACHED_GAMES)
        self._hints: Lru[int, tuple[tuple[int, str], str | None]] = Lru(CACHED_GAMES)
        self._suggested: Lru[int, tuple[int, tuple[str, ...]]] = Lru(CACHED_GAMES)
        # The current turn's actions (undone ones left out) as of a log position,
        # kept up to date by this process's own writes: the panel and the turn
        # message need them at every step, and reading the log costs a round trip.
        # game -> (log position, the turn's actions, the position's version: see _shown)
        self._turn_log: Lru[int, tuple[int, tuple[str, ...], int]] = Lru(CACHED_GAMES)
        # The running game of a channel, as last seen: a command in a channel goes
        # straight to that game's lock, and finds out under the lock (the row is read
        # there anyway) whether the game still runs there; only if not is the
        # channel's game looked up again. Saves a round trip per command.
        self._channel_games: Lru[int, int] = Lru(CACHED_GAMES)
        self._clocks: Lru[int, float | None] = Lru(CACHED_GAMES)  # see _turn_clock
        self._suggest_actions = suggest_actions or _engine_ai("heuristic")
        self._workers = workers
        self._lags: deque[float] = deque(maxlen=64)  # recent request lags, see _sent_here

    def _chooser(self, row: GameRow) -> ChooseActions:
        """The computer player of *row*'s game: its own level, else the configured one."""
        if self._custom_choose is not None:
            return self._custom_choose
        return _engine_ai(row.ai_level or self.config.ai_level)

    async def owns_game(self, game_id: int) -> bool:
        """Whether this process does the game's background work (its shard is ours)."""
        if self.config.shard_count is None:
            return True
        row = await self._store.game(game_id)
        return row is None or self.config.owns(row.guild_id)

    # -- delivery -------------------------------------------------------------------

    async def prune_delivered(self, *, age: float = 86400.0) -> int:
        """Drop delivered posts older than *age* seconds (each game keeps its latest)."""
        return await self._store.prune_outbox(sent_before=self._clock() - age)

    # -- internals --------------------------------------------------------------------

    async def _stand_ins(
        self,
        row: GameRow,
        seats: Sequence[SeatRow],
        last: tuple[str, int | None, str] | None = None,
    ) -> list[str]:
        """The seats of people that the computer played for them, at the game's end.

        A person's seat is theirs when they played at least half of its decisions
        after the setup themselves; else (their clock ran out, the computer took the
        seat, and they never came back for long) the result is the computer's work:
        the seat counts as a loss for its player, as if they had resigned, and the
        game counts for nobody when no person really played (docs/bot.md, "Ratings").
        A decision is the computer's when the computer finished it. *last*: the
        game's final decision, not yet in the log (seat, user id, its text). Seats
        whose player resigned are left out: resigning counts against them as before.
        """
        people = {s.name for s in seats if s.name and s.user_id is not None and not s.resigned}
        if not people or row.initial is None:
            return []
        entries = [
            (a.kind, a.player, a.user_id, a.action) for a in await self._store.actions(row.id)
        ]
        if last is not None:
            entries.append(("play", *last))
        total: dict[str, int] = dict.fromkeys(people, 0)
        computer = dict(total)
        game = Game.from_position(row.initial)
        setup, begun = True, None
        for kind, player, user_id, text in entries:
            if kind == "undo":
                game.undo()
                continue
            if kind != "play":
                continue
            begun = begun or game.stage
            game, _, done = _apply(game, text)
            if not done:
                continue
            setup = setup and begun not in TURN_STAGES
            if not setup and player in people:
                total[player] += 1
                computer[player] += user_id is None
            begun = None
        return [s.name for s in seats if s.name in people and 2 * computer[s.name] > total[s.name]]

    def _sent_here(self, created_at: float | None) -> float | None:
        """*created_at* (Discord's clock) on this host's clock, which turn starts are in.

        Each request's lag (arrival here minus creation there) is network time
        plus the clocks' offset; the smallest recent lag bounds the offset from
        above. Within normal network time the clocks are taken as agreeing; a
        larger smallest lag means this host's clock is ahead, and it is added,
        so that a skewed clock can't make fresh commands look older than the turn.
        """
        if created_at is None:
            return None
        self._lags.append(self._clock() - created_at)
        offset = min(self._lags)
        return created_at + offset if offset > LAG_NORMAL else created_at

    async def _check_sent_in_turn(
        self,
        row: GameRow,
        seats: Sequence[SeatRow],
        created_at: float | None,
        *,
        lang: str = DEFAULT,
    ) -> None:
        """Refuse the mover's command if it was sent before their turn began.

        A player who sends ``end`` out of turn just as the previous turn ends
        would otherwise end their own brand-new turn, which they never saw.
        (Called after the mover check: anyone else gets "not your turn".)
        """
        if created_at is None:
            return
        if row.turn_start_seq > 0:
            if created_at + CLOCK_SLACK >= row.updated_at:
                # Sent after the game's last change, so after its turn began (the same
                # clock wrote both, the change last): no need to read when that was.
                return
            rows = await self._store.actions(row.id, after_seq=row.turn_start_seq - 1)
            began = rows[0].time if rows else row.updated_at
        else:  # the first decision: the game's start (when the seats were taken)
            began = max((s.joined_at for s in seats), default=row.created_at)
        if created_at + CLOCK_SLACK < began:
            raise NotAllowed(
                t(
                    lang,
                    "This command was sent before your turn began (the previous turn ended "
                    "while it was on its way), so it was not played. Nothing was changed; "
                    "look at the latest turn message and send it again if you still want it.",
                )
            )

    def _forget(self, game_id: int) -> None:
        """A finished game leaves memory (it is only read from the database from now on)."""
        self._cache.pop(game_id, None)
        self._hints.pop(game_id, None)
        self._turn_log.pop(game_id, None)

    def _cache_size(self) -> int:
        """Games held in memory (for tests of the bounds)."""
        return len(self._cache) + len(self._hints) + len(self._turn_log)

    def _lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """This process's lock on the game, then the database's (bot.core.locks)."""
        return game_lock(self._store, game_id)

    @asynccontextmanager
    async def turn(
        self,
        game_id: int,
        user: User,
        *,
        stopped: str = NOT_RUNNING,
        turn: int | None = None,
        channel_id: int | None = None,
        version: int | None = None,
        created_at: float | None = None,
    ) -> AsyncIterator[Turn]:
        """The mover's request, under the game's lock, once every check has passed.

        Everything is checked under the lock: a cancel, a resignation or the end of the
        turn may have landed while this request waited. Refusals speak *user*'s
        language; *stopped* (a msgid) says the game no longer runs. *turn*: a button's
        turn (StaleButton if it ended); *channel_id*: the game was taken from the channel
        cache (``_MovedOn`` if it left); *version*: a panel's (``_OutOfDate`` if the game
        moved on); *created_at*: the command's sending time (refused if the turn began
        after it).
        """
        lang = user.lang
        async with self._lock(game_id):
            row, seats = await self._fresh_seated(game_id, lang=lang)
            _still_in(row, channel_id)
            if turn is not None:
                self._check_turn(row, turn, lang=lang)
            if row.status != "running":
                raise NoGame(t(lang, stopped))
            await self._check_version(row, version)
            game = await self._load(row)
            seat = self._mover(row, game, seats, user)
            await self._check_sent_in_turn(row, seats, created_at, lang=lang)
            yield Turn(row, seats, game, seat)

    @asynccontextmanager
    async def channel_game(self, channel_id: int, lang: str) -> AsyncIterator[GameRow]:
        """The channel's game, read again under its lock: the lobby's and the ways out's
        requests check its status there (it may have changed while they waited)."""
        row = await self._active(channel_id, lang=lang)
        async with self._lock(row.id):
            yield await self._fresh(row.id, lang=lang)

    @asynccontextmanager
    async def unmoved(self, row: GameRow) -> AsyncIterator[bool]:
        """The game's lock, and whether the game is still running at *row*'s log position
        (the computer thought outside the lock: its decision counts only then)."""
        async with self._lock(row.id):
            fresh = await self._fresh(row.id)
            yield fresh.last_seq == row.last_seq and fresh.status == "running"

    # The checks below refuse in *lang*, the language of the user who asked.

    async def _fresh(self, game_id: int, *, lang: str = DEFAULT) -> GameRow:
        if not 0 < game_id <= ID_MAX:
            raise NoGame(t(lang, "There is no game #{game}.", game=game_id))
        row = await self._store.game(game_id)
        if row is None:
            raise NoGame(t(lang, "There is no game #{game}.", game=game_id))
        return row

    async def _fresh_seated(
        self, game_id: int, *, lang: str = DEFAULT
    ) -> tuple[GameRow, list[SeatRow]]:
        """The game and its seats, read together (one round trip in PostgreSQL)."""
        if not 0 < game_id <= ID_MAX:
            raise NoGame(t(lang, "There is no game #{game}.", game=game_id))
        row, seats = await self._store.game_and_seats(game_id)
        if row is None:
            raise NoGame(t(lang, "There is no game #{game}.", game=game_id))
        return row, seats

    async def _active(self, channel_id: int, *, lang: str = DEFAULT) -> GameRow:
        """The channel's game: the one playing in it, else the one game whose lobby card is
        in it (each plays in its own thread); with several there, ask which is meant."""
        row = await self._store.active_game(channel_id)
        if row is None:
            here = await self._store.lobby_games(channel_id)
            if len(here) > 1:
                raise NotAllowed(lobby_words.which_game(here, lang))
            row = here[0] if here else None
        if row is None:
            raise NoGame(
                t(lang, "There is no Torres game in this channel. Open one with `/torres new`.")
            )
        return row

    async def _on_channel_game(
        self,
        channel_id: int,
        lang: str,
        act: Callable[[int, int | None], Awaitable[_R]],
    ) -> _R:
        """``act(game_id, check)`` on the channel's running game: first on the one
        remembered (``check`` = the channel: ``act`` raises ``_MovedOn``, having done
        nothing, if the game no longer runs there), else on the one looked up now."""
        known = self._channel_games.get(channel_id)
        if known is not None:
            try:
                return await act(known, channel_id)
            except _MovedOn:
                self._channel_games.pop(channel_id, None)
        row = await self._running(channel_id, lang=lang)
        self._channel_games[channel_id] = row.id
        return await act(row.id, None)

    async def _running(self, channel_id: int, *, lang: str = DEFAULT) -> GameRow:
        row = await self._active(channel_id, lang=lang)
        if row.status != "running":
            raise NotAllowed(
                t(
                    lang,
                    "Game #{game} hasn't started yet; {author} starts it with `/torres start`.",
                    game=row.id,
                    author=mention(row.author_id),
                )
            )
        return row

    @staticmethod
    def _check_ids(
        game_id: int, turn: int, *, version: int | None = None, lang: str = DEFAULT
    ) -> None:
        """A custom_id comes from the client and may be forged: a number outside
        SQLite's integer range would fail in the database instead of being refused."""
        if not (0 < game_id <= ID_MAX and 0 <= turn <= ID_MAX and 0 <= (version or 0) <= ID_MAX):
            raise StaleButton(
                t(lang, "This button doesn't belong to any game; nothing was changed.")
            )

    async def _check_button(
        self, game_id: int, turn: int, *, lang: str = DEFAULT
    ) -> tuple[GameRow, list[SeatRow]]:
        """A button's game and its seats, if the button still belongs to the current turn."""
        self._check_ids(game_id, turn, lang=lang)
        row, seats = await self._fresh_seated(game_id, lang=lang)
        self._check_turn(row, turn, lang=lang)
        return row, seats

    @staticmethod
    def _check_turn(row: GameRow, turn: int, *, lang: str = DEFAULT) -> None:
        """Refuse a button (or panel) of a finished game or of an earlier turn."""
        if row.status != "running":
            raise StaleButton(t(lang, "This game is over; these buttons no longer do anything."))
        if row.turn_no != turn:
            raise StaleButton(t(lang, texts.STALE_BUTTON))

    async def _load(self, row: GameRow) -> Game:
        """The game at the row's snapshot, with the current turn's undo history.

        The engine keeps undo history in the Game object, not in positions; so
        a game not in the cache (after a restart) is rebuilt from the position
        at the start of the current turn and that turn's log rows.
        """
        cached = self._cache.get(row.id)
        if cached is not None and cached[0] == row.last_seq:
            return cached[1].copy()
        assert row.position is not None
        game = Game.from_position(row.position)
        if row.turn_start_position is not None and row.last_seq > row.turn_start_seq:
            rebuilt = await self._rebuild_turn(row)
            if rebuilt is not None:
                game = rebuilt
        self._cache[row.id] = (row.last_seq, game.copy())
        return game

    async def _rebuild_turn(self, row: GameRow) -> Game | None:
        assert row.turn_start_position is not None
        game = Game.from_position(row.turn_start_position)
        try:
            for entry in await self._store.actions(row.id, after_seq=row.turn_start_seq):
                if entry.kind == "undo":
                    game.undo()
                elif entry.kind == "play":
                    game, _, _ = _apply(game, entry.action)
        except IllegalMove as exc:
            log.error("game %s: the turn's log does not replay (%s)", row.id, exc.message)
            return None
        if game.position() != row.position:
            log.error("game %s: the turn's log does not lead to the snapshot", row.id)
            return None
        return game

    @staticmethod
    def _seat_named(seats: Sequence[SeatRow], name: str | None) -> SeatRow | None:
        return next((s for s in seats if name is not None and s.name == name), None)

    def _mover(self, row: GameRow, game: Game, seats: list[SeatRow], user: User) -> SeatRow:
        lang = user.lang
        mine = next((s for s in seats if s.user_id == user.id), None)
        if mine is None:
            raise NotSeated(t(lang, "You're not playing in this game."))
        if mine.resigned:
            raise NotSeated(t(lang, "You resigned from this game."))
        if game.to_move != mine.name:
            seat = self._seat_named(seats, game.to_move)
            if seat is None:
                raise NotYourTurn(t(lang, "It's not your turn: nobody is to move."))
            raise NotYourTurn(
                t(
                    lang,
                    "It's not your turn: {player} ({colour}) is to move.",
                    player=texts.who(seat, lang),
                    colour=texts.colour(game.to_move, lang),
                )
            )
        return mine

    async def _record(
        self,
        row: GameRow,
        seat: SeatRow,
        user_id: int | None,
        kind: str,
        action: str,
        game: Game,
        *,
        turn_ended: bool,
        result: dict[str, Any] | None = None,
        seat_to_ai: str | None = None,
        outbox: Sequence[Post] = (),
    ) -> tuple[int, list[int]]:
        """Commit one log row with the new snapshot and the posts that report it (and,
        when it ends a game in a thread, the result's one post in the lobby's channel)."""
        if result is not None and row.lobby_channel_id is not None and outbox:
            over = replace(row, status="over", result=result)
            seats = await self._store.seats(row.id)
            notice = lobby_words.result_notice(over, seats, row.language)
            outbox = [*outbox, Post(row.lobby_channel_id, row.id, notice, language=row.language)]
        earlier: list[int] = []
        seq, ids = await self._store.record(
            row.id,
            expected_seq=row.last_seq,
            player=seat.name or "?",
            user_id=user_id,
            kind=kind,
            action=action,
            position=game.position(),
            turn_ended=turn_ended,
            result=result,
            now=self._clock(),
            seat_to_ai=seat_to_ai,
            outbox=[p.to_payload() for p in outbox],
            earlier=earlier,
        )
        if seq < 0:  # cannot happen while the game's lock is held
            raise RuntimeError(f"game {row.id} changed under its lock")
        for post, outbox_id in zip(outbox, ids, strict=True):
            post.outbox_id = outbox_id
            post.earlier = tuple(earlier)
            earlier.append(outbox_id)
        return seq, ids

    def _ai_pending(self, game: Game, seats: Sequence[SeatRow]) -> int | None:
        seat = self._seat_named(seats, game.to_move)
        return seat.game_id if seat is not None and seat.is_ai else None

    def _board_post(
        self,
        row: GameRow,
        game: Game,
        seats: Sequence[SeatRow],
        text: str,
        highlight: frozenset[str],
    ) -> Post:
        seat = self._seat_named(seats, game.to_move)
        human_next = seat is not None and not seat.is_ai and seat.user_id is not None
        buttons: tuple[str, ...] = ()
        if human_next:
            buttons = BUTTONS_ALL if game.stage in ("play", "draw-keep") else ("play", "hand")
        return Post(
            channel_id=row.channel_id,
            game_id=row.id,
            text=text,
            position=game.position(),
            highlight=highlight,
            turn=row.turn_no if human_next else None,
            buttons=buttons,
            mentions=(seat.user_id,) if human_next and seat and seat.user_id else (),
            labels=texts.picture_labels(seats, row.language),
            language=row.language,
        )

    def _next_line(
        self, row: GameRow, game: Game, seats: Sequence[SeatRow], clock: float | None = None
    ) -> str:
        """Who is to move; with a *clock* (seconds per turn), when the computer plays for them."""
        seat = self._seat_named(seats, game.to_move)
        if seat is None:
            return ""
        deadline = None
        if not seat.is_ai and row.reminder_limit > 0:
            deadline = int(self._clock() + row.reminder_interval)
        ends = int(self._clock() + clock) if clock is not None and not seat.is_ai else None
        return texts.next_player(game, seat, deadline, row.language, clock_ends=ends)

    async def _turn_clock(self, game_id: int) -> float | None:
        """A running game's time per turn (set before it starts, never changed after)."""
        if game_id not in self._clocks:
            self._clocks[game_id] = await self._store.turn_clock(game_id)
        return self._clocks.get(game_id)

    async def active_game_id(self, channel_id: int) -> int | None:
        """The id of the channel's open or running game, if any."""
        row = await self._store.active_game(channel_id)
        return row.id if row is not None else None

    async def turn_actions(self, game_id: int) -> list[str]:
        """The actions of the turn in progress, undone ones left out."""
        return await self._turn_actions(await self._fresh(game_id))

    async def _turn_actions(self, row: GameRow) -> list[str]:
        """The actions of *row*'s turn, from memory when this process knows them at
        the row's log position, else from the log."""
        return list((await self._turn_state(row))[0])

    async def _shown(self, row: GameRow) -> int:
        """The version of *row*'s position, which a panel carries: the log position of
        the turn's last play or undo (else of the turn's start). Entries that leave
        the position as it is (another player's resignation) don't change it."""
        return (await self._turn_state(row))[1]

    async def _check_version(self, row: GameRow, version: int | None) -> None:
        """Raise ``_OutOfDate`` if a panel bound to *version* no longer shows *row*'s
        position (the caller holds the game's lock)."""
        if version is not None and await self._shown(row) != version:
            raise _OutOfDate()

    async def _turn_state(self, row: GameRow) -> tuple[tuple[str, ...], int]:
        known = self._turn_log.get(row.id)
        if known is not None and known[0] == row.last_seq:
            return known[1], known[2]
        actions: list[str] = []
        shown = row.turn_start_seq
        for entry in await self._store.actions(row.id, after_seq=row.turn_start_seq):
            if entry.kind == "play":
                actions.extend(split_actions(entry.action))
            elif entry.kind == "undo" and actions:
                actions.pop()
            if entry.kind in ("play", "undo"):
                shown = entry.seq
        self._turn_log[row.id] = (row.last_seq, tuple(actions), shown)
        return tuple(actions), shown


_R = TypeVar("_R")


class _OutOfDate(Exception):
    """A panel's choice was made on a state the game has since left: nothing was done."""


class _MovedOn(Exception):
    """The channel's remembered game no longer runs there: look the channel up again."""


def _still_in(row: GameRow, channel_id: int | None) -> None:
    """Raise ``_MovedOn`` if *row*, taken from the channel cache, no longer runs there."""
    if channel_id is not None and (row.channel_id != channel_id or row.status != "running"):
        raise _MovedOn()
