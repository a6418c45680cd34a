"""The game service: everything the bot does, without Discord.

Each request takes the game's lock, loads the snapshot, applies the request
with the engine on a copy, and commits the action log row together with the
new snapshot before returning. Refusals raise a :class:`~bot.core.errors.ServiceError`
whose message is shown to the player; the game is then unchanged. Results are
plain objects that say what to reply privately and what to post publicly; the
Discord layer renders and sends them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from bot.core import panel as panels
from bot.core.actions import normalize, split_actions, split_with_clauses
from bot.core.config import AI_LEVELS
from bot.core.errors import IllegalMove, NoGame, NotAllowed, NotSeated, NotYourTurn, StaleButton
from bot.core.workers import WorkerPool
from bot.db.contract import GameStore
from bot.db.rows import ChannelBusy, GameRow, SeatRow
from bot.texts import posts as texts
from bot.texts.i18n import DEFAULT, N_, language, t
from bot.texts.refusals import refusal
from engine import Game, IllegalAction, NotationError, changed_squares, new_seed
from engine import decision_over as decision_done
from engine.ai import random_decision
from engine.events import TURN_STAGES

log = logging.getLogger(__name__)

COLOURS = ("red", "blue", "green", "yellow")
VARIANTS = ("common", "personal", "master")
BUTTONS_ALL = ("play", "end", "undo", "hand")
HINT_SECONDS = 0.05  # thinking time for the autocomplete hint (the quick "heuristic" player)
# The panel's 💡: a whole turn by the quick player, asked for by a tap (not at every
# keystroke), so it may think to its full budget (1500 nodes, ~0.1 s), in the worker pool.
SUGGEST_SECONDS = 0.2
SUGGEST_WAIT = 2.0  # seconds the panel waits for it
# Running games whose Game object (~23 KB with its turn's undo history), hint and
# turn's actions stay in memory: enough for every game of a busy process (a game
# missing here is rebuilt from the database at its next command: a read and a replay).
CACHED_GAMES = 1024
ID_MAX = 2**63 - 1  # SQLite's INTEGER range: a larger id in a forged custom_id is no game's
CLOCK_SLACK = 0.001  # Discord's snowflake times have millisecond resolution
LAG_NORMAL = 0.5  # seconds from a command's creation to its arrival, clocks agreeing

ChooseActions = Callable[[Game, float], list[str]]
_K = TypeVar("_K")
_V = TypeVar("_V")
_R = TypeVar("_R")


@dataclass(frozen=True, slots=True)
class User:
    """Who sent a request: a Discord user id, the name to show for them, their language.

    ``locale`` is Discord's ``interaction.locale`` (``"de"``, ``"en-US"``…);
    private replies to this user speak :attr:`lang`.
    """

    id: int
    display: str
    locale: str = "en-US"

    @property
    def lang(self) -> str:
        return language(self.locale)


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """Tunables; the defaults are the production values."""

    ai_seconds: float = 1.0
    ai_level: str = "search"
    reminder_interval: float = 24 * 3600.0
    reminder_limit: int = 3
    idle_cancel_after: float = 14 * 24 * 3600.0
    seed: int | None = None  # fixed seed for every new game (tests); None = random
    # Sharded across processes: this process does the background work (computer
    # moves, reminders, re-sends) of the games of these shards only.
    shard_count: int | None = None
    shard_ids: tuple[int, ...] = ()

    def owns(self, guild_id: int | None) -> bool:
        """Whether a guild's games are this process's: Discord's routing, DMs on shard 0."""
        if self.shard_count is None:
            return True
        shard = 0 if guild_id is None else (guild_id >> 22) % self.shard_count
        return shard in self.shard_ids


@dataclass(slots=True)
class Post:
    """A public message for a game's channel."""

    channel_id: int
    game_id: int
    text: str
    # The full position, rendered with viewer None as board.png: the renderer
    # shows nobody's cards then (it cannot read a viewer's position with "hidden").
    position: dict[str, Any] | None = None
    highlight: frozenset[str] = frozenset()
    turn: int | None = None  # the turn the buttons belong to
    buttons: tuple[str, ...] = ()  # which of "end", "undo", "hand"
    mentions: tuple[int, ...] = ()
    outbox_id: int | None = None  # set when the post was queued with the change it reports
    replay: bool = False  # game over: the animated replay of the whole game follows
    animation: bool = False  # this is that replay: replay.gif, drawn from the log when sent
    merged: list[Post] = field(default_factory=list)  # earlier posts this one also reports
    highlight_note: str | None = None  # what the highlighted squares are (the legend)
    labels: dict[str, str] = field(default_factory=dict)  # seat name -> name in the picture
    language: str = "en"  # the game's: the picture (and its alt text) speak it
    # Set once posted: notes (``meta`` rows) the database takes with the row's
    # mark as sent, in the same commit (not part of the payload).
    meta: dict[str, str] = field(default_factory=dict)
    # Set when queued by ``record``: the ids of the game's rows queued before this
    # one and unsent at its commit, oldest first (None: unknown). The poster reads
    # the outbox only when one of them is news to it.
    earlier: tuple[int, ...] | None = None

    def to_payload(self) -> dict[str, Any]:
        return {
            "channel_id": self.channel_id,
            "game_id": self.game_id,
            "text": self.text,
            "position": self.position,
            "highlight": sorted(self.highlight),
            "turn": self.turn,
            "buttons": list(self.buttons),
            "mentions": list(self.mentions),
            "replay": self.replay,
            "animation": self.animation,
            "highlight_note": self.highlight_note,
            "labels": dict(self.labels),
            "language": self.language,
        }

    @classmethod
    def from_payload(cls, data: dict[str, Any], outbox_id: int | None = None) -> Post:
        return cls(
            channel_id=int(data["channel_id"]),
            game_id=int(data["game_id"]),
            text=str(data["text"]),
            position=data.get("position"),
            highlight=frozenset(data.get("highlight") or ()),
            turn=data.get("turn"),
            buttons=tuple(data.get("buttons") or ()),
            mentions=tuple(int(m) for m in data.get("mentions") or ()),
            outbox_id=outbox_id,
            replay=bool(data.get("replay", False)),
            animation=bool(data.get("animation", False)),
            highlight_note=data.get("highlight_note"),
            labels={str(k): str(v) for k, v in (data.get("labels") or {}).items()},
            language=str(data.get("language") or "en"),
        )


@dataclass(slots=True)
class Outcome:
    """What a request produced: a private reply and public posts."""

    reply: str
    posts: list[Post] = field(default_factory=list)
    ai_game: int | None = None  # a game whose computer players should now move
    game_id: int | None = None  # the game it opened (``new``)


@dataclass(frozen=True, slots=True)
class BoardView:
    """A picture request: the full position, to be rendered as *viewer* may see it."""

    text: str
    position: dict[str, Any]
    viewer: str | None
    highlight: frozenset[str]
    highlight_note: str | None = None
    labels: dict[str, str] = field(default_factory=dict)  # seat name -> name in the picture
    language: str = DEFAULT  # the asker's: the picture (and its alt text) speak it
    # A decision of a game's record (HomeService.past_board): what ⏮ ◀ ▶ ⏭ step from.
    game_id: int | None = None
    decision: int | None = None
    decisions: int | None = None


@dataclass(slots=True)
class PanelState:
    """The play panel to show (and, once a turn ended, the public posts to make)."""

    model: panels.PanelModel
    position: dict[str, Any] | None = None
    viewer: str | None = None
    highlight: frozenset[str] = frozenset()
    outcome: Outcome | None = None
    note: str | None = None  # what the highlighted squares are
    labels: dict[str, str] = field(default_factory=dict)  # seat name -> name in the picture
    # The version of the position the panel shows (``GameService._shown``: the log
    # position of the turn's last play or undo): its choices carry it and act only
    # while the position is still that one (None: a closed panel).
    version: int | None = None


@dataclass(frozen=True, slots=True)
class Confirmable:
    """What a confirmation prompt asks about, checked before asking."""

    game_id: int
    question: str
    confirm_label: str


class GameService:
    """Torres games in channels. See the module docstring for the guarantees."""

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
        # A lock lives while someone holds or awaits it; then it goes, so that
        # finished games leave no lock behind (a new one is made when needed).
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
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

    # -- lobby ------------------------------------------------------------------

    async def new(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        user: User,
        players: int = 2,
        variant: str = "common",
        bots: int = 0,
        language: str = "en",
        ai_level: str | None = None,
        lobby_channel_id: int | None = None,
        lobby_message_id: int | None = None,
    ) -> Outcome:
        """Open a game in a channel; its author takes the first seat.

        *ai_level* is how its computer players play (None: the configured level).
        A game in a thread of its own (*channel_id* the thread) has its lobby card,
        *lobby_message_id*, in *lobby_channel_id*: the card shows the lobby, so no
        lobby post is made.

        *language* is the game's (its public posts and pictures): the Discord
        layer decides it with :func:`bot.texts.i18n.game_language`.
        """
        lang = user.lang
        if not 2 <= players <= 4:
            raise NotAllowed(t(lang, "A game has 2 to 4 players."))
        if variant not in VARIANTS:
            raise NotAllowed(
                t(
                    lang,
                    "Unknown variant {variant}: choose common, personal or master.",
                    variant=repr(variant),
                )
            )
        if ai_level is not None and ai_level not in AI_LEVELS:
            raise NotAllowed(
                t(
                    lang,
                    "Unknown computer level {level}: choose random, heuristic, search or expert.",
                    level=repr(ai_level),
                )
            )
        if not 0 <= bots <= players - 1:
            raise NotAllowed(
                t(
                    lang,
                    "With {players} players there can be 0 to {most} computer players "
                    "(you take one seat yourself).",
                    players=players,
                    most=players - 1,
                )
            )
        cfg = self.config
        seed = cfg.seed if cfg.seed is not None else new_seed()  # 128 bits (docs/rules.md)
        try:
            game_id = await self._store.create_game(
                guild_id=guild_id,
                channel_id=channel_id,
                author_id=user.id,
                author_display=user.display,
                seats_wanted=players,
                bots=bots,
                variant=variant,
                seed=seed,
                reminder_interval=cfg.reminder_interval,
                reminder_limit=cfg.reminder_limit,
                idle_cancel_after=cfg.idle_cancel_after,
                now=self._clock(),
                language=language,
                ai_level=ai_level,
                lobby_channel_id=lobby_channel_id,
                lobby_message_id=lobby_message_id,
            )
        except ChannelBusy:
            row = await self._store.active_game(channel_id)
            if row:
                which = t(
                    lang,
                    "game #{game}, opened by {author}",
                    game=row.id,
                    author=f"<@{row.author_id}>",
                )
            else:
                which = t(lang, "another game")
            raise NotAllowed(
                t(
                    lang,
                    "This channel already has a Torres game ({which}). One game per channel: "
                    "start yours in a thread (or another channel), or finish that one first.",
                    which=which,
                )
            ) from None
        humans = players - bots
        text = texts.lobby_opened(game_id, user.id, players, variant, bots, humans, language)
        return Outcome(
            reply=t(lang, "You opened game #{game} and took the first seat.", game=game_id),
            posts=[] if lobby_message_id else [Post(channel_id, game_id, text, language=language)],
            game_id=game_id,
        )

    async def join(self, *, channel_id: int, user: User) -> Outcome:
        """Take a seat in the channel's open game."""
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        async with self._lock(row.id):
            row = await self._fresh(row.id, lang=lang)
            if row.status != "open":
                raise NotAllowed(t(lang, "This game has already started; wait for the next one."))
            seats = await self._store.seats(row.id)
            if any(s.user_id == user.id for s in seats):
                raise NotAllowed(t(lang, "You're already in this game."))
            human_seats = row.seats_wanted - row.bots
            if len(seats) >= human_seats:
                raise NotAllowed(
                    t(lang, "This game is full ({players} players).", players=human_seats)
                )
            await self._store.add_seat(row.id, user.id, user.display, self._clock())
        joined = len(seats) + 1
        public = row.language
        text = t(
            public,
            "{player} joined game #{game} ({joined}/{players} players).",
            player=texts.shown_name(user.display),
            game=row.id,
            joined=joined,
            players=human_seats,
        )
        if (joined >= 2 or row.bots) and row.lobby_message_id:
            text += " " + t(
                public,
                "{author} can start it with **Start** on the game's card (or `/torres start`).",
                author=f"<@{row.author_id}>",
            )
        elif joined >= 2 or row.bots:
            text += " " + t(
                public,
                "{author} can start it with `/torres start`.",
                author=f"<@{row.author_id}>",
            )
        return Outcome(
            reply=t(lang, "You joined game #{game} (seat {seat}).", game=row.id, seat=joined),
            posts=[Post(row.channel_id, row.id, text, language=public)],
        )

    async def leave(self, *, channel_id: int, user: User) -> Outcome:
        """Give up a seat in the channel's open game."""
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        async with self._lock(row.id):
            row = await self._fresh(row.id, lang=lang)
            if row.status != "open":
                raise NotAllowed(
                    t(lang, "The game has started; to stop playing use `/torres resign`.")
                )
            seats = await self._store.seats(row.id)
            if not any(s.user_id == user.id for s in seats):
                raise NotSeated(t(lang, "You're not in this game."))
            if user.id == row.author_id:
                raise NotAllowed(
                    t(lang, "You opened this game; close it with `/torres cancel` instead.")
                )
            await self._store.remove_seat(row.id, user.id, self._clock())
        text = t(
            row.language,
            "{player} left game #{game}.",
            player=texts.shown_name(user.display),
            game=row.id,
        )
        return Outcome(
            reply=t(lang, "You left game #{game}.", game=row.id),
            posts=[Post(row.channel_id, row.id, text, language=row.language)],
        )

    async def start(self, *, channel_id: int, user: User) -> Outcome:
        """Start the open game: seats in join order, then the computer players."""
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        async with self._lock(row.id):
            row = await self._fresh(row.id, lang=lang)
            if row.status != "open":
                raise NotAllowed(t(lang, "This game has already started."))
            if user.id != row.author_id:
                raise NotAllowed(
                    t(
                        lang,
                        "Only the game's author, {author}, can start it.",
                        author=f"<@{row.author_id}>",
                    )
                )
            humans = await self._store.seats(row.id)
            total = len(humans) + row.bots
            if total < 2:
                raise NotAllowed(
                    t(lang, "A game needs at least 2 players: wait for someone to `/torres join`.")
                )
            names = list(COLOURS[:total])
            game = Game.new(players=total, names=names, variant=row.variant, seed=row.seed)
            seating: list[tuple[int | None, str, str, bool]] = [
                (s.user_id, s.display, names[i], False) for i, s in enumerate(humans)
            ]
            seating += [(None, "Computer", names[i], True) for i in range(len(humans), total)]
            initial = game.position()
            now = self._clock()
            seats = [
                SeatRow(row.id, i, uid, display, name, is_ai, False, now)
                for i, (uid, display, name, is_ai) in enumerate(seating, start=1)
            ]
            row = replace(row, status="running", turn_no=1, turn_start_seq=0, last_seq=0)
            clock = await self._turn_clock(row.id)
            posts = [self._start_post(row, game, seats, initial, clock)]
            if row.lobby_channel_id is not None:  # the channel hears once that it started
                notice = texts.start_notice(row, seats, row.language)
                posts.append(Post(row.lobby_channel_id, row.id, notice, language=row.language))
            ids = await self._store.start_game(
                row.id,
                seats=seating,
                initial=initial,
                now=now,
                outbox=[p.to_payload() for p in posts],
            )
            for post, outbox_id in zip(posts, ids, strict=True):
                post.outbox_id = outbox_id
            self._cache[row.id] = (row.last_seq, game.copy())
        return Outcome(
            reply=t(lang, "Game #{game} started.", game=row.id),
            posts=posts,
            ai_game=self._ai_pending(game, seats),
        )

    def _start_post(
        self,
        row: GameRow,
        game: Game,
        seats: list[SeatRow],
        initial: dict[str, Any],
        clock: float | None = None,
    ) -> Post:
        lang = row.language
        lines = [
            t(
                lang,
                "**Game #{game} starts** ({variant}).",
                game=row.id,
                variant=texts.variant_name(row.variant, lang),
            )
        ]
        lines += [f"{texts.dotted(s.name, lang)}: {_who(s, lang)}" for s in seats]
        master = texts.master_card_line(initial.get("master_card"), lang)
        if master:
            lines.append(master)
        lines.append(
            t(
                lang,
                "On your turn press **Play** below: a panel only you see lets you play by taps. "
                "`/torres play` does the same by text; `/torres rules` explains the game.",
            )
        )
        lines.append(self._next_line(row, game, seats, clock))
        return self._board_post(row, game, seats, "\n".join(lines), frozenset())

    # -- playing ------------------------------------------------------------------

    async def play(
        self, *, channel_id: int, user: User, text: str, created_at: float | None = None
    ) -> Outcome:
        """Apply one or more actions of the player to move, all or nothing up to a draw.

        A draw shows the player new cards and can't be taken back, so a command
        is played up to and including each draw, which is committed, and what
        follows is checked against the cards really drawn (docs/rules.md,
        rulings). *created_at* is when the player sent the command (the
        interaction's creation time): a command sent before the current turn
        began is refused, so that it cannot act on a turn its sender never saw.
        """
        sent = self._sent_here(created_at)
        return await self._on_channel_game(
            channel_id,
            user.lang,
            lambda game_id, check: self._play(
                game_id, user, text, created_at=sent, channel_id=check
            ),
        )

    async def end_turn(
        self, *, game_id: int, turn: int, user: User, created_at: float | None = None
    ) -> Outcome:
        """The End turn button."""
        sent = self._sent_here(created_at)
        self._check_ids(game_id, turn, lang=user.lang)
        return await self._play(game_id, user, "end", turn=turn, created_at=sent)

    async def undo(
        self, *, channel_id: int, user: User, created_at: float | None = None
    ) -> Outcome:
        """``/torres undo``: take back the last action of the current turn; the reply
        adds the AP left (the panel, which shows them itself, takes ``_undo``'s bare
        sentence). A button has no unbound undo: the turn message's Undo opens the
        panel (``panel_open(undo=True)``), whose Undo is bound to the state it shows."""
        lang = user.lang
        created_at = self._sent_here(created_at)
        took, work = await self._on_channel_game(
            channel_id,
            lang,
            lambda game_id, check: self._undo(game_id, None, user, created_at, channel_id=check),
        )
        return Outcome(reply=f"{took} " + _ap_line(work, lang))

    async def _undo(
        self,
        game_id: int,
        turn: int | None,
        user: User,
        created_at: float | None,
        *,
        channel_id: int | None = None,
        version: int | None = None,
    ) -> tuple[str, Game]:
        """What was taken back, in a sentence, and the game after it. *version*: a
        panel's (``PanelState.version``); raises ``_OutOfDate``, having done nothing,
        if the game has moved on from it."""
        lang = user.lang
        if turn is not None:
            self._check_ids(game_id, turn, lang=lang)
        async with self._lock(game_id):
            # Everything is checked under the lock: a cancel, a resignation or the
            # end of the turn may have landed while this request waited.
            row, seats = await self._fresh_seated(game_id, lang=lang)
            _still_in(row, channel_id)
            if turn is not None:
                self._check_turn(row, turn, lang=lang)
            if row.status != "running":
                raise NoGame(t(lang, "This game is not running any more; nothing was changed."))
            await self._check_version(row, version)
            game = await self._load(row)
            seat = self._mover(row, game, seats, user)
            await self._check_sent_in_turn(row, seats, created_at, lang=lang)
            work = game.copy()
            done_before = await self._turn_actions(row)
            undone = (done_before or [""])[-1]
            if not work.undo():
                raise NotAllowed(t(lang, NOTHING_TO_UNDO))
            seq, _ = await self._record(row, seat, user.id, "undo", "undo", work, turn_ended=False)
            self._cache[game_id] = (seq, work.copy())
            self._turn_log[game_id] = (seq, tuple(done_before[:-1]), seq)
        if undone:
            took = t(
                lang,
                "Took back `{action}` — {description}.",
                action=undone,
                description=panels.describe(undone, lang=lang),
            )
        else:
            took = t(lang, "Took back your last action.")
        return took, work

    async def _play(
        self,
        game_id: int,
        user: User,
        text: str,
        *,
        turn: int | None = None,
        created_at: float | None = None,
        channel_id: int | None = None,
        version: int | None = None,
    ) -> Outcome:
        """*channel_id*: the game was taken from the channel cache; raises ``_MovedOn``
        (nothing done) if it no longer runs in that channel. *version*: a panel's
        (``PanelState.version``); raises ``_OutOfDate`` (nothing done) if the game has
        moved on from it: a second tap, or another panel of the same turn, acted first."""
        lang = user.lang
        async with self._lock(game_id):
            row, seats = await self._fresh_seated(game_id, lang=lang)
            _still_in(row, channel_id)
            if turn is not None:
                self._check_turn(row, turn, lang=lang)
            if row.status != "running":
                raise NoGame(t(lang, "This game is not running any more."))
            await self._check_version(row, version)
            game = await self._load(row)
            seat = self._mover(row, game, seats, user)
            await self._check_sent_in_turn(row, seats, created_at, lang=lang)
            parts = draw_parts(text)
            if not parts:
                raise IllegalMove(t(lang, TYPE_AN_ACTION))
            played: list[str] = []
            outcome: Outcome | None = None
            start = game
            for part in parts:
                # Nothing after a draw is looked at before that draw is committed:
                # until then no answer may depend on the cards it will show.
                try:
                    work, events, done = _apply(game, part, unchanged=not played, lang=lang)
                except IllegalMove as exc:
                    if not played:
                        raise
                    return Outcome(
                        reply=_after_draw_refusal(played, part, exc.message, start, game, lang)
                    )
                outcome = await self._commit(
                    row, seats, seat, user.id, part, game, work, events, done, lang=lang
                )
                played.append(part)
                if done or len(played) == len(parts):
                    break
                row = await self._fresh(game_id, lang=lang)
                game = work
            assert outcome is not None
            if len(played) > 1 and not outcome.posts:
                joined = normalize("; ".join(played))
                outcome.reply = t(
                    lang,
                    "Done: `{actions}` — {words}",
                    actions=texts.shorten(joined, 1500),
                    words=panels.done_words(joined, start, game, lang=lang),
                )
            return outcome

    async def _commit(
        self,
        row: GameRow,
        seats: list[SeatRow],
        seat: SeatRow,
        user_id: int | None,
        text: str,
        before: Game,
        work: Game,
        events: list[dict[str, Any]],
        done: bool,
        *,
        note: str = "",
        lang: str = DEFAULT,
    ) -> Outcome:
        """Write the accepted actions and describe them; the caller holds the lock.

        The reply speaks *lang* (the player's), the turn message the game's language.
        """
        over = next((e for e in events if e.get("type") == "game_over"), None)
        result = None
        stand_ins: list[str] = []
        if over is not None:
            stand_ins = await self._stand_ins(row, seats, (seat.name or "?", user_id, text))
            result = {
                "reason": "finished",
                "scores": dict(over.get("scores", work.scores)),
                "winners": list(over.get("winners", work.winners)),
            }
            if stand_ins:  # seats the computer played for their players (docs/bot.md, Ratings)
                result["stand_ins"] = stand_ins
        posts: list[Post] = []
        done_before = await self._turn_actions(row)
        if done:
            nxt = row.last_seq + 1
            new_row = replace(row, turn_no=row.turn_no + 1, turn_start_seq=nxt, last_seq=nxt)
            posts.append(
                await self._turn_post(
                    row,
                    new_row,
                    seats,
                    seat,
                    before,
                    work,
                    events,
                    [*done_before, *split_actions(text)],
                    stand_ins=stand_ins,
                )
            )
            if note:  # e.g. why the computer played this turn (play_for), in the same message
                posts[-1].text = f"{note}\n{posts[-1].text}"
        seq, ids = await self._record(
            row,
            seat,
            user_id,
            "play",
            normalize(text),
            work,
            turn_ended=done,
            result=result,
            outbox=posts,
        )
        if over is not None:
            self._forget(row.id)
        else:
            self._cache[row.id] = (seq, work.copy())
            now_done = () if done else (*done_before, *split_actions(normalize(text)))
            self._turn_log[row.id] = (seq, now_done, seq)
        if not done:
            return Outcome(
                reply=t(
                    lang,
                    "Done: `{actions}` — {words}",
                    actions=texts.shorten(normalize(text), 1500),
                    words=panels.done_words(text, before, work, lang=lang),
                )
            )
        reply = t(lang, "Your turn is over.") if seat.user_id is not None else ""
        if over is not None:
            reply = t(lang, "The game is over.")
        return Outcome(reply=reply, posts=posts, ai_game=self._ai_pending(work, seats))

    async def ai_step(self, game_id: int) -> Outcome | None:
        """Let the computer make one decision if a computer seat is to move.

        Returns None when no computer player is to move (or the game ended).
        The computer thinks outside the game's lock; if the game moved on in the
        meantime the result is thrown away and an empty outcome is returned so
        that the caller asks again.
        """
        row = await self._store.game(game_id)
        if row is None or row.status != "running":
            return None
        seats = await self._store.seats(game_id)
        game = await self._load(row)
        seat = self._seat_named(seats, game.to_move)
        if seat is None or not seat.is_ai:
            return None
        seconds = self.config.ai_seconds
        try:
            if self._workers is not None:
                actions = await self._workers.run(self._chooser(row), game.copy(), seconds)
            else:
                actions = await asyncio.to_thread(self._chooser(row), game.copy(), seconds)
        except Exception:
            log.exception("the AI failed in game %s; playing a random legal decision", game_id)
            actions = _random_decision(game, random.Random(row.last_seq))
        async with self._lock(game_id):
            fresh = await self._fresh(game_id)
            if fresh.last_seq != row.last_seq or fresh.status != "running":
                return Outcome(reply="")
            text = "\n".join(actions)
            try:
                # A decision may stop short of its end (personal decks: a draw); the
                # caller then asks again while the computer is still to move.
                work, events, done = _apply(game, text)
            except IllegalMove as exc:
                log.error("the AI chose %r in game %s: %s", actions, game_id, exc.message)
                text = "\n".join(_random_decision(game, random.Random(row.last_seq)))
                work, events, done = _apply(game, text)
            return await self._commit(row, seats, seat, None, text, game, work, events, done)

    async def owns_game(self, game_id: int) -> bool:
        """Whether this process does the game's background work (its shard is ours)."""
        if self.config.shard_count is None:
            return True
        row = await self._store.game(game_id)
        return row is None or self.config.owns(row.guild_id)

    async def games_awaiting_ai(self) -> list[int]:
        """Running games whose player to move is a computer (e.g. after a restart)."""
        out = []
        for row in await self._store.games_with_status("running"):
            if not self.config.owns(row.guild_id):
                continue
            seats = await self._store.seats(row.id)
            seat = self._seat_named(seats, (row.position or {}).get("to_move"))
            if seat is not None and seat.is_ai:
                out.append(row.id)
        return out

    async def play_for(self, game_id: int, *, turn: int, note: str) -> Outcome | None:
        """The computer plays the current decision of a human seat (their time ran out).

        *turn* is the turn the clock ran out on: if the game moved on meanwhile nothing
        is played (None). The turn message names the computer as playing for the seat
        and starts with *note* (why).
        """
        row = await self._store.game(game_id)
        if row is None or row.status != "running" or row.turn_no != turn:
            return None
        seats = await self._store.seats(game_id)
        game = await self._load(row)
        seat = self._seat_named(seats, game.to_move)
        if seat is None or seat.is_ai:
            return None
        actions: list[str] = []
        work = game.copy()
        for _ in range(8):  # a decision may stop short of its end (a draw); go on to it
            try:
                if self._workers is not None:
                    chosen = await self._workers.run(
                        self._chooser(row), work.copy(), self.config.ai_seconds
                    )
                else:
                    chosen = await asyncio.to_thread(
                        self._chooser(row), work.copy(), self.config.ai_seconds
                    )
                work, _, done = _apply(work, "\n".join(chosen))
            except Exception:
                log.exception("the AI failed for a timed-out turn in game %s", game_id)
                chosen = _random_decision(work, random.Random(row.last_seq))
                work, _, done = _apply(work, "\n".join(chosen))
            actions += chosen
            if done:
                break
        async with self._lock(game_id):
            fresh = await self._fresh(game_id)
            if fresh.last_seq != row.last_seq or fresh.status != "running":
                return None
            text = "\n".join(actions)
            work, events, done = _apply(game, text)
            stand_in = replace(seat, is_ai=True)  # "Computer (for …)" in the turn message
            return await self._commit(
                row, seats, stand_in, None, text, game, work, events, done, note=note
            )

    # -- information -----------------------------------------------------------------

    async def board(self, *, channel_id: int, user: User) -> BoardView:
        """The current picture, as the asking player may see it (in their language)."""
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        if row.status != "running" or row.position is None:
            raise NotAllowed(t(lang, "The game hasn't started yet: there is no board to show."))
        seats = await self._store.seats(row.id)
        game = await self._load(row)
        mine = next((s for s in seats if s.user_id == user.id and not s.resigned), None)
        viewer = mine.name if mine else None
        highlight = frozenset(
            changed_squares(row.turn_start_position or row.position, row.position)
        )
        note = t(lang, "changed this turn so far")
        if not highlight:  # nothing done yet this turn: show what the last turn changed
            last = await self._store.last_payload(row.id) or {}
            highlight = frozenset(last.get("highlight") or ())
            note = t(lang, "changed by the last turn")
            if last.get("highlight_note") and (last.get("language") or DEFAULT) == lang:
                note = last["highlight_note"]  # its own words, when they are the asker's
        return BoardView(
            text=texts.status_line(row.id, game, seats, lang),
            position=game.position(),
            viewer=viewer,
            highlight=highlight,
            highlight_note=note,
            labels=picture_labels(seats, lang),
            language=lang,
        )

    async def hand(
        self,
        *,
        channel_id: int | None = None,
        game_id: int | None = None,
        turn: int | None = None,
        user: User,
    ) -> str:
        """The asking player's cards; nobody else's (in their language)."""
        lang = user.lang
        if game_id is None:
            assert channel_id is not None
            row = await self._active(channel_id, lang=lang)
        else:
            if turn is not None:
                row, seats = await self._check_button(game_id, turn, lang=lang)
            else:
                row, seats = await self._fresh_seated(game_id, lang=lang)
        if row.status != "running":
            raise NotAllowed(t(lang, "The game hasn't started yet: nobody holds cards."))
        if game_id is None:
            seats = await self._store.seats(row.id)
        mine = next((s for s in seats if s.user_id == user.id), None)
        if mine is None or mine.name is None:
            raise NotSeated(t(lang, "You're not playing in this game, so you have no hand."))
        if mine.resigned:
            raise NotSeated(
                t(lang, "You resigned from this game; the computer holds your cards now.")
            )
        game = await self._load(row)
        return texts.hand(game, mine.name, lang)

    async def suggest(
        self, *, channel_id: int, user_id: int, typed: str, lang: str = DEFAULT
    ) -> list[tuple[str, str]]:
        """Autocomplete ``(label, value)`` pairs for ``/torres play actions:`` (at most 25).

        Labels speak *lang* (the user's); values stay in the notation.

        Only the player to move gets actions; anyone else one entry saying why.
        What the user typed before the last ``;`` is kept as a prefix; the
        suggestions continue it. If that prefix is illegal the single
        suggestion says why (see :mod:`bot.core.complete`). Nothing is suggested
        past a draw: what may follow depends on cards not drawn yet.
        """
        from bot.core.complete import complete, why

        row = await self._store.active_game(channel_id)
        if row is None:
            return why(t(lang, "No Torres game in this channel: open one with /torres new."), typed)
        if row.status != "running":
            return why(t(lang, "Game #{game} hasn't started yet.", game=row.id), typed)
        seats = await self._store.seats(row.id)
        game = await self._load(row)
        seat = self._seat_named(seats, game.to_move)
        mine = next((s for s in seats if s.user_id == user_id and not s.resigned), None)
        if mine is None:
            return why(t(lang, "You're not playing in this game."), typed)
        if seat is None or seat.user_id != user_id or seat.is_ai:
            if seat is None:
                return why(t(lang, "It's not your turn: nobody is to move."), typed)
            return why(
                t(
                    lang,
                    "It's not your turn: {player} is to move.",
                    player=texts.seat_name(seat, lang),
                ),
                typed,
            )
        head, sep, partial = typed.replace("\n", ";").rpartition(";")
        done_text = normalize(head) if sep else ""
        work = game
        if "draw" in split_actions(done_text):
            return _suggest_past_draw(game, done_text, lang)
        if done_text:
            try:
                work, _, finished = _apply(game, done_text, lang=lang)
            except IllegalMove as exc:
                return why(exc.message, done_text)
            if finished:
                label = t(lang, "{actions} (ends your turn)", actions=done_text)
                return [(_fit(label), _fit(done_text))]
        hint = await self._hint(row, done_text, work)
        return complete(work, done_text, partial, hint, lang=lang)

    async def _hint(self, row: GameRow, done_text: str, game: Game) -> str | None:
        """The next action the quick computer player would choose here, offered first.

        Computed once per game state and typed prefix (autocomplete asks at every
        keystroke) and given at most a second. The computer is handed a game in
        which everything the player can't see (decks, other hands) is made up,
        so the hint cannot depend on hidden cards even by accident.
        """
        key = (row.last_seq, done_text)
        cached = self._hints.get(row.id)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            seen = _as_seen_by_mover(game, row.last_seq)
            actions = await asyncio.wait_for(
                asyncio.to_thread(self._suggest_actions, seen, HINT_SECONDS), 1.0
            )
            hint: str | None = actions[0] if actions else None
        except TimeoutError:
            hint = None
        except Exception:
            log.exception("the hint for game %s failed", row.id)
            hint = None
        self._hints[row.id] = (key, hint)
        return hint

    async def _suggested_turn(self, row: GameRow, game: Game) -> tuple[str, ...]:
        """The rest of the mover's decision as the quick computer player would play it
        (the panel's 💡), computed in the worker pool when there is one, once per state.

        Like the hint, it is computed on a game whose hidden cards are made up."""
        cached = self._suggested.get(row.id)
        if cached is not None and cached[0] == row.last_seq:
            return tuple(cached[1])
        seen = _as_seen_by_mover(game, row.last_seq)
        try:
            if self._workers is not None:
                work = self._workers.run(self._suggest_actions, seen, SUGGEST_SECONDS)
            else:
                work = asyncio.to_thread(self._suggest_actions, seen, SUGGEST_SECONDS)
            actions = tuple(await asyncio.wait_for(work, SUGGEST_WAIT))
        except TimeoutError:
            actions = ()
        except Exception:
            log.exception("the suggested turn for game %s failed", row.id)
            actions = ()
        try:  # what is offered must be legal as a whole here, hidden cards and all
            game.copy().play("; ".join(actions))
        except Exception:
            actions = ()
        self._suggested[row.id] = (row.last_seq, actions)
        return actions

    # -- leaving and ending ----------------------------------------------------------

    async def resign(self, *, channel_id: int, user: User) -> Outcome:
        """Leave a running game: a computer takes the seat if the game has any, else it ends."""
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        if row.status != "running":
            raise NotAllowed(
                t(lang, "The game hasn't started; use `/torres leave` to give up your seat.")
            )
        async with self._lock(row.id):
            row = await self._fresh(row.id, lang=lang)
            if row.status != "running":
                raise NoGame(t(lang, "This game is not running any more."))
            seats = await self._store.seats(row.id)
            seat = next((s for s in seats if s.user_id == user.id and not s.resigned), None)
            if seat is None or seat.name is None:
                raise NotSeated(t(lang, "You're not playing in this game."))
            game = await self._load(row)
            humans_left = [s for s in seats if not s.is_ai and s.user_id != user.id]
            has_ai = any(s.is_ai for s in seats)
            public = row.language
            if has_ai and humans_left:
                text = t(
                    public,
                    "{player} ({colour}) resigned from game #{game}; "
                    "the computer plays their seat from now on.",
                    player=texts.shown_name(user.display),
                    colour=texts.colour(seat.name, public),
                    game=row.id,
                )
                post = Post(row.channel_id, row.id, text, language=public)
                await self._record(
                    row,
                    seat,
                    user.id,
                    "resign",
                    "resign",
                    game,
                    turn_ended=False,
                    seat_to_ai=seat.name,
                    outbox=[post],
                )
                seats = await self._store.seats(row.id)
                return Outcome(
                    reply=t(lang, "You resigned; the computer takes over your seat."),
                    posts=[post],
                    ai_game=self._ai_pending(game, seats),
                )
            stand_ins = await self._stand_ins(row, [s for s in seats if s.name != seat.name])
            result: dict[str, Any] = {
                "reason": "resigned",
                "by": seat.name,
                "scores": dict(game.scores),
                "winners": [],
            }
            if stand_ins:
                result["stand_ins"] = stand_ins
            mentions = tuple(
                s.user_id for s in seats if s.user_id and s.user_id != user.id and not s.is_ai
            )
            text = (
                t(
                    public,
                    "{player} ({colour}) resigned, so game #{game} ends here {mentions}",
                    player=texts.shown_name(user.display),
                    colour=texts.colour(seat.name, public),
                    game=row.id,
                    mentions=" ".join(f"<@{m}>" for m in mentions),
                )
                + "\n"
                + texts.score_table(game, seats, public)
            )
            note = stand_in_note(seats, stand_ins, public)
            text += f"\n{note}" if note else ""
            post = Post(row.channel_id, row.id, text, mentions=mentions, language=public)
            await self._record(
                row,
                seat,
                user.id,
                "resign",
                "resign",
                game,
                turn_ended=False,
                result=result,
                outbox=[post],
            )
            self._forget(row.id)
        return Outcome(reply=t(lang, "You resigned; the game is over."), posts=[post])

    async def cancel(self, *, channel_id: int, user: User, can_manage_channel: bool) -> Outcome:
        """End the channel's game: its author may; a channel manager may once it is idle."""
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        async with self._lock(row.id):
            row = await self._fresh(row.id, lang=lang)
            now = self._clock()
            idle = now - row.last_activity
            if user.id != row.author_id:
                if not can_manage_channel:
                    raise NotAllowed(
                        t(
                            lang,
                            "Only the game's author, {author}, can cancel it.",
                            author=f"<@{row.author_id}>",
                        )
                    )
                if idle < row.idle_cancel_after:
                    when = int(row.last_activity + row.idle_cancel_after)
                    raise NotAllowed(
                        t(
                            lang,
                            "Only the author can cancel an active game; as a channel manager you "
                            "can cancel it once it has been idle for {duration} (<t:{time}:R>).",
                            duration=texts.duration(row.idle_cancel_after, lang),
                            time=when,
                        )
                    )
            scores = dict((row.position or {}).get("scores") or {})
            result = {"reason": "cancelled", "by": user.id, "scores": scores, "winners": []}
            public = row.language
            text = t(
                public,
                "Game #{game} was cancelled by {player}.",
                game=row.id,
                player=texts.shown_name(user.display),
            )
            if scores:
                text += " " + t(
                    public,
                    "Scores at that point: {scores}",
                    scores=texts.score_list(
                        scores, (row.position or {}).get("players") or scores, public
                    ),
                )
            post = Post(row.channel_id, row.id, text, language=public)
            queued: list[int] = []  # the note is committed with the game's end
            if not await self._store.finish(
                row.id,
                status="cancelled",
                result=result,
                now=now,
                outbox=[post.to_payload()],
                queued=queued,
            ):
                raise NoGame(t(lang, "This game has already ended."))
            (post.outbox_id,) = queued
            self._forget(row.id)
        return Outcome(reply=t(lang, "Game #{game} is cancelled.", game=row.id), posts=[post])

    # -- reminders -----------------------------------------------------------------

    async def due_reminders(self) -> list[Post]:
        """Reminder posts for players who have been idle too long; each is counted as sent."""
        now = self._clock()
        posts = []
        for row in await self._store.games_with_status("running"):
            if row.reminders_sent >= row.reminder_limit or row.position is None:
                continue
            if not self.config.owns(row.guild_id):
                continue
            due = row.last_activity + row.reminder_interval * (row.reminders_sent + 1)
            if now < due:
                continue
            seats = await self._store.seats(row.id)
            seat = self._seat_named(seats, row.position.get("to_move"))
            if seat is None or seat.is_ai or seat.user_id is None:
                continue
            if await self._store.away_users([seat.user_id], now):  # /torres away: paused
                continue
            text = texts.reminder(row, seat, row.reminders_sent + 1, now)
            post = Post(
                row.channel_id, row.id, text, mentions=(seat.user_id,), language=row.language
            )
            queued: list[int] = []  # counted and queued in one commit
            if not await self._store.note_reminder(
                row.id,
                expected_sent=row.reminders_sent,
                expected_seq=row.last_seq,
                outbox=[post.to_payload()],
                queued=queued,
            ):
                continue
            (post.outbox_id,) = queued
            posts.append(post)
        return posts

    # -- delivery -------------------------------------------------------------------

    async def prune_delivered(self, *, age: float = 86400.0) -> int:
        """Drop delivered posts older than *age* seconds (each game keeps its latest)."""
        return await self._store.prune_outbox(sent_before=self._clock() - age)

    # -- replay ---------------------------------------------------------------------

    async def replay(self, game_id: int) -> Game:
        """Rebuild a game from its starting position and action log."""
        return (await self._replayed(game_id))[0]

    async def replay_frames(self, game_id: int) -> list[dict[str, Any]]:
        """The starting position and the position after every finished decision.

        Rebuilt from the log, so the animated replay posted at the game's end
        needs nothing stored beyond what crash safety already keeps.
        """
        return (await self._replayed(game_id))[1]

    async def _replayed(self, game_id: int) -> tuple[Game, list[dict[str, Any]]]:
        row = await self._store.game(game_id)
        if row is None or row.initial is None:
            raise NoGame(f"Game #{game_id} never started.")
        game = Game.from_position(row.initial)
        frames = [game.position()]
        for entry in await self._store.actions(game_id):
            if entry.kind == "undo":
                if not game.undo():
                    raise RuntimeError(f"game {game_id} log row {entry.seq}: undo failed")
            elif entry.kind == "play":
                game, _, done = _apply(game, entry.action)
                if done:
                    frames.append(game.position())
        return game, frames

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

    @asynccontextmanager
    async def _lock(self, game_id: int) -> AsyncIterator[None]:
        """This process's lock on the game, then the database's (other processes wait)."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        async with lock, self._store.game_lock(game_id):
            yield

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
                raise NotAllowed(texts.which_game(here, lang))
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
                    author=f"<@{row.author_id}>",
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
                    player=_who(seat, lang),
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
            notice = texts.result_notice(over, seats, row.language)
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
            labels=picture_labels(seats, row.language),
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

    async def _turn_post(
        self,
        old_row: GameRow,
        new_row: GameRow,
        seats: list[SeatRow],
        seat: SeatRow,
        before: Game,
        after: Game,
        events: list[dict[str, Any]],
        played: Sequence[str],
        *,
        stand_ins: Sequence[str] = (),
    ) -> Post:
        """The public message for a finished decision; *played* are the turn's actions.

        At the game's end, *stand_ins* are the seats the computer played for their
        player (``_stand_ins``): named so in the result, with whether the game counts.
        """
        actions = [public_action(a) for a in played]
        lang = new_row.language
        start = old_row.turn_start_position or before.position()
        start_scores = dict(start.get("scores") or {})
        lines = [texts.turn_header(new_row.id, seat, actions, lang)]
        lines.append(texts.scores_line(after.scores, start_scores, after.players, lang))
        prior = _before_scoring(start, played, events)
        for event in events:
            if event.get("type") == "phase_scored":
                lines.append(texts.phase_summary(event, seats, after.position(), lang, prior))
        over = next((e for e in events if e.get("type") == "game_over"), None)
        if over is not None:
            # A person's seat is named as the result counts it: theirs, or the computer's
            # (one the computer played for them, or took over when they resigned).
            shown = [
                x if x.user_id is None else replace(x, is_ai=x.name in stand_ins or x.resigned)
                for x in seats
            ]
            lines.append(texts.game_over(after, shown, lang))
            lines.append(stand_in_note(seats, stand_ins, lang))
        else:
            clock = await self._turn_clock(new_row.id)
            lines.append(self._next_line(new_row, after, seats, clock))
        highlight = frozenset(changed_squares(start, after.position()))
        post = self._board_post(new_row, after, seats, "\n".join(x for x in lines if x), highlight)
        post.highlight_note = t(
            lang, "changed by {player}'s turn", player=_picture_label(seat, lang)
        )
        if over is not None:
            post.buttons = ()
            post.turn = None
            post.mentions = tuple(s.user_id for s in seats if s.user_id and not s.is_ai)
            post.replay = True  # the whole game, animated, follows in a message of its own
        return post

    # -- the play panel ------------------------------------------------------------

    async def panel_open(
        self, *, game_id: int, turn: int, user: User, undo: bool = False
    ) -> PanelState:
        """The Play button of a turn message: the mover's panel; anyone else is refused.

        *undo*: the turn message's Undo button, which opens the panel saying what its
        Undo would take back. That message is the same for every action of the turn,
        so it can't say which state its player saw; the panel's Undo is bound to the
        state it shows, so a double tap or a press on two devices takes back one action.
        """
        lang = user.lang
        row, seats = await self._check_button(game_id, turn, lang=lang)
        game = await self._load(row)
        self._mover(row, game, seats, user)
        note = ""
        if undo:
            done = await self._turn_actions(row)
            if game.can_undo and done:
                note = t(
                    lang,
                    "Press **Undo** below to take back `{action}` — {description}.",
                    action=done[-1],
                    description=panels.describe(done[-1], lang=lang),
                )
            else:
                note = f"⚠ {t(lang, NOTHING_TO_UNDO)}"
        return await self._panel_state(row, game, None, note, lang, seats)

    async def panel_press(
        self,
        *,
        game_id: int,
        turn: int,
        user: User,
        op: str,
        value: str = "",
        version: int | None = None,
        values: Sequence[str] = (),
    ) -> PanelState:
        """A choice on an open panel: *op* is ``what``, ``do``, ``undo``, ``hint``, ``end``,
        ``endok`` or ``back``; *value* the chosen option's value (*values*: all of them,
        from a select that takes several: blocks built in one choice).

        *version* is the ``PanelState.version`` of the panel pressed (None: not bound,
        for callers that draw no panel). A choice that changes the game acts only if the
        game is still at that version, checked under the game's lock: a second tap on
        the same choice, or the same choice on a second panel of the turn, comes back
        as the panel of the game as it is now, saying so, and does nothing.
        A refused action leaves the game unchanged and shows why on the panel;
        a panel of a finished turn comes back closed.
        """
        lang = user.lang
        self._check_ids(game_id, turn, version=version, lang=lang)
        row, seats = await self._fresh_seated(game_id, lang=lang)
        if row.status != "running" or row.turn_no != turn:
            return self._closed_panel(row, turn, lang)
        game = await self._load(row)
        self._mover(row, game, seats, user)
        shown = await self._shown(row)
        stale = version is not None and version != shown
        group: str | None = None
        action: str | None = None
        if op in ("what", "do") and value.startswith(panels.WHAT):  # a group, or its source
            group = value[len(panels.WHAT) :]
        elif op in ("what", "do") and value.startswith(panels.DO):
            action = value[len(panels.DO) :]
            if len(values) > 1:
                several = await self._several(row, game, values, lang, seats, stale)
                if isinstance(several, PanelState):
                    return several
                action = several
        elif op not in ("hint", "undo", "end", "endok", "back"):
            return await self._panel_state(row, game, None, "", lang, seats)
        if action is None and op in ("what", "do", "back"):  # only the panel changes
            note = f"⚠ {t(lang, panels.OUT_OF_DATE)}" if stale else ""
            return await self._panel_state(row, game, group, note, lang, seats)
        if stale:
            return await self._out_of_date(game_id, turn, lang)
        if op == "hint":
            suggestion = await self._suggested_turn(row, game)
            note = "" if suggestion else t(lang, "No suggestion right now: choose yourself.")
            return await self._panel_state(
                row, game, None, note, lang, seats, suggestion=suggestion
            )
        elif op == "undo":
            try:
                took, _ = await self._undo(game_id, turn, user, None, version=version)
            except _OutOfDate:
                return await self._out_of_date(game_id, turn, lang)
            except StaleButton:
                return self._closed_panel(await self._fresh(game_id, lang=lang), turn, lang)
            except NotAllowed as exc:
                return await self._panel_state(row, game, None, f"⚠ {exc.message}", lang, seats)
            row, seats = await self._fresh_seated(game_id, lang=lang)
            return await self._panel_state(row, await self._load(row), None, took, lang, seats)
        elif op in ("end", "endok"):
            action = "end"
            if op == "end" and game.stage == "play" and (game.ap or 0) > 0:
                return PanelState(
                    panels.confirm_end_model(
                        self._panel_header(row, game, lang), game.ap or 0, lang
                    ),
                    position=None,
                    version=shown,
                )
        assert action is not None
        before_actions = await self._turn_actions(row)
        try:
            outcome = await self._play(game_id, user, action, turn=turn, version=version)
        except _OutOfDate:
            return await self._out_of_date(game_id, turn, lang)
        except StaleButton:
            return self._closed_panel(await self._fresh(game_id, lang=lang), turn, lang)
        except IllegalMove as exc:
            return await self._panel_state(row, game, None, f"⚠ {exc.message}", lang, seats)
        row, seats = await self._fresh_seated(game_id, lang=lang)
        if (
            outcome.posts
            or outcome.ai_game is not None
            or row.status != "running"
            or row.turn_no != turn
        ):
            played = "; ".join([*before_actions, *split_actions(action)])
            text = t(
                lang,
                "**{reply}** You played `{actions}`; the turn message is in the channel.",
                reply=outcome.reply or t(lang, "Done."),
                actions=texts.shorten(played, 1500),
            )
            return PanelState(panels.closed_model(text), outcome=outcome)
        after = await self._load(row)
        words = panels.done_words(action, game, after, panel=True, lang=lang)
        groups = panels.grouped(after) if after.to_move == game.to_move else {}
        nxt = panels.follow_group(action, groups)
        return await self._panel_state(
            row, after, nxt, t(lang, "Done: {words}", words=words), lang, seats
        )

    async def _several(
        self,
        row: GameRow,
        game: Game,
        values: Sequence[str],
        lang: str,
        seats: Sequence[SeatRow],
        stale: bool,
    ) -> str | PanelState:
        """Several squares of the build select as one action text, or the panel saying
        why not (nothing done): only blocks, and a set the engine takes in some order."""
        squares = []
        for v in values:
            words = v[len(panels.DO) :].split() if v.startswith(panels.DO) else []
            if len(words) != 2 or words[0] != "build":
                return await self._panel_state(row, game, None, "", lang, seats)
            squares.append(words[1])
        if stale:  # acted on by a later check; the order does not matter for it
            return "; ".join(f"build {sq}" for sq in squares)
        text = panels.build_order(game, squares)
        if text is not None:
            return text
        note = "⚠ " + t(
            lang,
            "Blocks on {squares} can't all be built now; nothing was built. Choose fewer squares.",
            squares=", ".join(squares),
        )
        return await self._panel_state(row, game, "build", note, lang, seats)

    async def panel_refresh(self, *, game_id: int, turn: int, user: User) -> PanelState:
        """A panel that does not say which state it shows (its custom ids predate
        ``PanelState.version``): drawn again as the game is now, saying so; nothing done."""
        self._check_ids(game_id, turn, lang=user.lang)
        row, seats = await self._fresh_seated(game_id, lang=user.lang)
        if row.status == "running" and row.turn_no == turn:
            self._mover(row, await self._load(row), seats, user)
        return await self._out_of_date(game_id, turn, user.lang)

    async def _out_of_date(self, game_id: int, turn: int, lang: str) -> PanelState:
        """The panel of the game as it is now, after a choice made on an older state."""
        row, seats = await self._fresh_seated(game_id, lang=lang)
        if row.status != "running" or row.turn_no != turn:
            return self._closed_panel(row, turn, lang)
        game = await self._load(row)
        note = f"⚠ {t(lang, panels.OUT_OF_DATE)}"
        return await self._panel_state(row, game, None, note, lang, seats)

    async def confirmable(
        self, *, what: str, channel_id: int, user: User, can_manage_channel: bool = False
    ) -> Confirmable:
        """Check a resign or cancel request before asking the player to confirm it.

        The question and the Confirm button's label are in the user's language.
        """
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        if what == "resign":
            if row.status != "running":
                raise NotAllowed(
                    t(lang, "The game hasn't started; use `/torres leave` to give up your seat.")
                )
            seats = await self._store.seats(row.id)
            seat = next((s for s in seats if s.user_id == user.id and not s.resigned), None)
            if seat is None or seat.name is None:
                raise NotSeated(t(lang, "You're not playing in this game."))
            humans_left = [s for s in seats if not s.is_ai and s.user_id != user.id]
            if any(s.is_ai for s in seats) and humans_left:
                question = t(
                    lang,
                    "Resign from game #{game}? You can't come back: the computer plays your "
                    "seat from then on.",
                    game=row.id,
                )
            else:
                question = t(
                    lang,
                    "Resign from game #{game}? You can't come back: the game ends for everyone.",
                    game=row.id,
                )
            return Confirmable(row.id, question, t(lang, "Resign"))
        if user.id != row.author_id:
            if not can_manage_channel:
                raise NotAllowed(
                    t(
                        lang,
                        "Only the game's author, <@{author}>, can cancel it.",
                        author=row.author_id,
                    )
                )
            if self._clock() - row.last_activity < row.idle_cancel_after:
                when = int(row.last_activity + row.idle_cancel_after)
                raise NotAllowed(
                    t(
                        lang,
                        "Only the author can cancel an active game; as a channel manager you "
                        "can cancel it once it has been idle for {duration} (<t:{when}:R>).",
                        duration=texts.duration(row.idle_cancel_after, lang),
                        when=when,
                    )
                )
        return Confirmable(
            row.id,
            t(
                lang,
                "Cancel game #{game} for everyone? It ends now, without a winner.",
                game=row.id,
            ),
            t(lang, "Cancel the game"),
        )

    async def lobby_card(self, game_id: int) -> tuple[GameRow, list[SeatRow]] | None:
        """A game in a thread of its own, as its lobby card shows it (None: no card)."""
        row, seats = await self._store.game_and_seats(game_id)
        if row is None or row.lobby_message_id is None:
            return None
        return row, seats

    async def game_channel(self, game_id: int, *, lang: str = DEFAULT) -> int:
        """Where a game plays (its thread, for a game in a thread of its own)."""
        row = await self._store.game(game_id)
        if row is None:
            raise NoGame(t(lang, "There is no game #{game}.", game=game_id))
        return row.channel_id

    async def active_game_id(self, channel_id: int) -> int | None:
        """The id of the channel's open or running game, if any."""
        row = await self._store.active_game(channel_id)
        return row.id if row is not None else None

    async def end_needs_confirm(self, *, game_id: int, turn: int, user: User) -> int:
        """AP the player would give up by ending now (0: no confirmation needed)."""
        row, seats = await self._check_button(game_id, turn, lang=user.lang)
        game = await self._load(row)
        self._mover(row, game, seats, user)
        return (game.ap or 0) if game.stage == "play" else 0

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

    def _panel_header(self, row: GameRow, game: Game, lang: str = "en") -> str:
        me = game.to_move or ""
        seat = texts.dotted(me, lang)
        if game.stage in ("play", "draw-keep"):
            return t(
                lang,
                "**Your turn** in game #{game} ({seat}, phase {phase}, round {round})",
                game=row.id,
                seat=seat,
                phase=game.phase,
                round=game.round,
            )
        if game.stage == "king" and game.position().get("king") is not None:
            return t(
                lang,
                "**Your turn** in game #{game} ({seat}, the king's move after phase {phase})",
                game=row.id,
                seat=seat,
                phase=game.phase,
            )
        return t(lang, "**Your turn** in game #{game} ({seat}, setup)", game=row.id, seat=seat)

    def _closed_panel(self, row: GameRow, turn: int, lang: str = "en") -> PanelState:
        if row.status != "running":
            text = t(lang, "Game #{game} is over; this panel no longer does anything.", game=row.id)
        else:
            text = t(
                lang,
                "This turn is over (the game is at turn {now}, this panel was for turn {turn}). "
                "Press **Play** on the latest turn message.",
                now=row.turn_no,
                turn=turn,
            )
        return PanelState(panels.closed_model(text))

    async def _panel_state(
        self,
        row: GameRow,
        game: Game,
        group: str | None,
        note: str,
        lang: str = "en",
        seats: Sequence[SeatRow] | None = None,
        *,
        suggestion: Sequence[str] = (),
    ) -> PanelState:
        done = await self._turn_actions(row)
        if seats is None:
            seats = await self._store.seats(row.id)
        model = panels.build_panel(
            game,
            header=self._panel_header(row, game, lang),
            group=group,
            note=note,
            stack_text=texts.shorten("; ".join(done), 300) if done else "",
            lang=lang,
            suggestion=suggestion,
        )
        assert row.position is not None
        highlight = frozenset(
            changed_squares(row.turn_start_position or row.position, row.position)
        )
        return PanelState(
            model,
            game.position(),
            game.to_move,
            highlight,
            note=t(lang, "changed this turn so far"),
            labels=picture_labels(seats, lang),
            version=await self._shown(row),
        )


# -- pure helpers ---------------------------------------------------------------------


def _before_scoring(
    start: dict[str, Any], played: Sequence[str], events: Sequence[dict[str, Any]]
) -> dict[str, int] | None:
    """The scores just before a phase was scored at this turn's end (None: no scoring, or
    the turn cannot be replayed): the turn's actions but its last, from its start."""
    if not any(e.get("type") == "phase_scored" for e in events) or not played:
        return None
    try:
        game = Game.from_position(start)
        for action in played[:-1]:
            game.play(action)
    except Exception:  # noqa: BLE001 - only the leap-frog line is missing then
        log.warning("could not replay a turn to explain its scoring", exc_info=True)
        return None
    return game.scores


def public_action(action: str) -> str:
    """An action as the other players may see it: which card a player keeps stays secret.

    >>> public_action("keep ap6 bottom")
    'keep ? bottom'
    """
    words = action.split()
    if len(words) == 3 and words[0] == "keep":
        return f"keep ? {words[2]}"
    return action


def draw_parts(text: str) -> list[str]:
    """*text* cut after every ``draw``: the parts the bot plays (and commits) one by one.

    >>> draw_parts("move c3 d3; draw; keep lift top; end")
    ['move c3 d3; draw', 'keep lift top; end']
    """
    parts: list[list[str]] = [[]]
    for clause in normalize(text).split("; "):  # clauses as typed: `score 6` stays one
        if clause:
            parts[-1].append(clause)
            if split_actions(clause) == ["draw"]:
                parts.append([])
    return ["; ".join(p) for p in parts if p]


def _after_draw_refusal(
    played: list[str], refused: str, why: str, before: Game, after: Game, lang: str = DEFAULT
) -> str:
    """The reply when a command's draw was made but what followed it was refused.

    *before* is the game before the command, *after* the game after its draw.
    """
    done = normalize("; ".join(played))
    words = panels.done_words(done, before, after, lang=lang)
    return t(
        lang,
        "Done: `{actions}` (a draw can't be taken back) — {words} "
        "Then `{refused}` was not played: {reason}",
        actions=texts.shorten(done, 300),
        words=words,
        refused=texts.shorten(refused, 300),
        reason=why,
    )


NOTHING_TO_UNDO = N_(
    "Nothing to take back: this turn has no actions yet, or the last one "
    "was a card draw (a draw can't be undone)."
)
TYPE_AN_ACTION = N_("Type at least one action, for example `move c3 d3` or `end`.")


def _refused(lang: str, number: int, count: int, action: str, reason: str, unchanged: bool) -> str:
    """Why action *number* of *count* was refused, as a whole sentence in *lang*."""
    if count > 1 and unchanged:
        return t(
            lang,
            "Action {number} of {count}, `{action}`: {reason} Nothing was changed.",
            number=number,
            count=count,
            action=action,
            reason=reason,
        )
    if count > 1:
        return t(
            lang,
            "Action {number} of {count}, `{action}`: {reason}",
            number=number,
            count=count,
            action=action,
            reason=reason,
        )
    if unchanged:
        return t(lang, "{reason} Nothing was changed.", reason=reason)
    return reason


def _apply(
    game: Game, text: str, *, unchanged: bool = True, lang: str = DEFAULT
) -> tuple[Game, list[dict[str, Any]], bool]:
    """Apply *text* to a copy of *game*, one action at a time, all or nothing.

    *unchanged*: a refusal says "Nothing was changed" (False once part of the
    command, a draw, was committed). Refusals speak *lang*.

    :raises IllegalMove: if any action is refused, or if the text goes on past
        the end of the player's decision.
    """
    if game.stage == "king" and " ".join(text.split()).lower() == "pass":
        text = "king pass"  # after a phase's scoring, "pass" means leaving the king
    pairs = split_with_clauses(text)
    actions = [a for a, _ in pairs]
    if not actions:
        raise IllegalMove(t(lang, TYPE_AN_ACTION))
    work = game.copy()
    events: list[dict[str, Any]] = []
    done = False
    for i, action in enumerate(actions):
        stage = work.stage
        _check_score_clause(work, pairs, i, lang)
        try:
            caused = work.play(action)
        except (IllegalAction, NotationError) as exc:
            reason = texts.shorten(refusal(lang, exc), 600)
            raise IllegalMove(
                _refused(lang, i + 1, len(actions), action, reason, unchanged)
            ) from None
        events.extend(caused or [])
        done = decision_done(stage, caused or [])
        if done and i + 1 < len(actions):
            following = texts.shorten(actions[i + 1], 100)
            if unchanged:
                why = t(
                    lang,
                    "`{action}` already finishes your turn, so `{next}` would be played for the "
                    "next player. Nothing was changed. Leave out what follows `{action}`.",
                    action=action,
                    next=following,
                )
            else:
                why = t(
                    lang,
                    "`{action}` already finishes your turn, so `{next}` would be played for the "
                    "next player. Leave out what follows `{action}`.",
                    action=action,
                    next=following,
                )
            raise IllegalMove(why)
    return work, events, done


def _suggest_past_draw(game: Game, done_text: str, lang: str = DEFAULT) -> list[tuple[str, str]]:
    """The one suggestion for a typed prefix holding a draw, without drawing anything.

    Only what comes before the first draw is played (on a copy), and the draw
    itself is checked with ``legal()``, which depends only on what everybody
    sees (action points, draws so far, whether the deck is empty).
    """
    actions = split_actions(done_text)
    first = actions.index("draw")
    work = game
    try:
        if first:
            work, _, finished = _apply(game, "; ".join(actions[:first]), lang=lang)
            if finished:  # refused before the draw is reached: "already finishes your turn"
                _apply(game, "; ".join(actions[: first + 1]), lang=lang)
        if "draw" not in work.legal():
            _apply(work, "draw", lang=lang)  # refused for a reason everybody can see
    except IllegalMove as exc:
        from bot.core.complete import why

        return why(exc.message, done_text)
    if len(done_text) > 100:
        return []
    if actions[-1] == "draw":
        label = t(
            lang,
            "🃏 {actions} — send it; then pick what follows from your new card(s)",
            actions=done_text,
        )
    else:
        label = t(
            lang,
            "🃏 {actions} — what follows the draw is checked against the card(s) you draw",
            actions=done_text,
        )
    return [(label if len(label) <= 100 else _label(done_text), done_text)]


def _check_score_clause(
    game: Game, pairs: list[tuple[str, str]], i: int, lang: str = DEFAULT
) -> None:
    """``score N`` asks for N AP at once: say so rather than fail at its last step."""
    action, clause = pairs[i]
    if action != "score" or (i > 0 and pairs[i - 1][1] == clause):
        return
    words = clause.split()
    # Only plain small numbers: "²" passes isdigit() and fails int(); the engine
    # explains whatever else was typed.
    if len(words) != 2 or not (words[1].isascii() and words[1].isdigit()) or len(words[1]) > 3:
        return
    need, ap = int(words[1]), game.ap
    if ap is not None and game.stage == "play" and need > ap:
        raise IllegalMove(
            t(
                lang,
                "`{clause}` needs {need} AP and you have {ap}. Nothing was changed.",
                clause=clause,
                need=need,
                ap=ap,
            )
        )


_KIND_ORDER = (
    "castle",
    "place",
    "king",
    "build",
    "move",
    "knight",
    "play",
    "stack",
    "keep",
    "draw",
    "score",
    "end",
)


def rank_actions(legal: Sequence[str], limit: int = 25) -> list[str]:
    """Pick at most *limit* actions, every kind represented, most useful kinds first.

    Kinds take turns contributing one action each (so that, say, forty builds
    cannot crowd out the moves), and ``end`` is always offered when legal.
    """
    groups: dict[str, list[str]] = {}
    for action in legal:
        groups.setdefault(action.split(" ", 1)[0], []).append(action)
    kinds = sorted(groups, key=lambda k: _KIND_ORDER.index(k) if k in _KIND_ORDER else 99)
    chosen: set[str] = set()
    if "end" in groups:
        chosen.add("end")
    depth = 0
    while len(chosen) < limit and any(depth < len(groups[k]) for k in kinds):
        for k in kinds:
            if depth < len(groups[k]) and len(chosen) < limit:
                chosen.add(groups[k][depth])
        depth += 1
    order = {a: i for i, a in enumerate(legal)}
    return sorted(
        chosen,
        key=lambda a: (
            _KIND_ORDER.index(a.split(" ", 1)[0]) if a.split(" ", 1)[0] in _KIND_ORDER else 99,
            order[a],
        ),
    )


def _as_seen_by_mover(game: Game, salt: int) -> Game:
    """*game* with what its player to move can't see replaced by a sample of it.

    The sample depends only on that player's view and *salt* (something public),
    so whatever is computed from it cannot tell two deck orders apart.
    """
    from engine.ai import sample_game

    me = game.to_move
    if me is None:
        return game.copy()
    view = game.position(viewer=me)
    return sample_game(game, me, random.Random(salt), view)


def _random_decision(game: Game, rng: random.Random) -> list[str]:
    """A legal decision chosen at random: the safety net when the AI fails."""
    return random_decision(game, rng, cap=6, end_chance=0.2, through_draw=True)


def _engine_ai(level: str) -> ChooseActions:
    """The engine's computer player at *level* (``random``, ``heuristic``, ``search``,
    ``expert``)."""
    return functools.partial(_engine_choose, level=level)


def _engine_choose(game: Game, seconds: float, *, level: str) -> list[str]:
    """Module-level, so that it pickles into a worker process."""
    from engine.ai import choose_actions

    return list(choose_actions(game, seconds=seconds, level=level))


def stand_ins_count(seats: Iterable[SeatRow], stand_ins: Collection[str]) -> bool:
    """Whether a finished game counts in stats and ratings (docs/bot.md, "Ratings").

    It does when some person really played a seat (one not among *stand_ins*, the seats
    the computer played for their players, ``GameService._stand_ins``): each stand-in
    seat then counts as a loss for its player. When the computer played every person's
    seat, nobody played the game and it counts for nobody.
    """
    return any(s.user_id is not None and s.name not in stand_ins for s in seats)


def stand_in_note(seats: Sequence[SeatRow], stand_ins: Sequence[str], lang: str = DEFAULT) -> str:
    """The game-over line saying for whom the computer played, and what counts (or "")."""
    if not stand_ins:
        return ""
    players = ", ".join(
        f"{texts.shown_name(s.display)} ({texts.colour(s.name, lang)})"
        for s in seats
        if s.name in stand_ins
    )
    if stand_ins_count(seats, stand_ins):
        return t(
            lang,
            "🤖 The computer played most of the turns of {players}: that counts as a loss "
            "for them in stats and ratings.",
            players=players,
        )
    return t(
        lang,
        "🤖 The computer played most of the turns of {players}: this game counts in nobody's "
        "stats or rating.",
        players=players,
    )


def picture_labels(seats: Iterable[SeatRow], lang: str = DEFAULT) -> dict[str, str]:
    """What the board picture calls each seat: the player's display name, or
    "Computer (green)" for a computer seat (the picture draws text: nothing to escape)."""
    return {s.name: _picture_label(s, lang) for s in seats if s.name}


def _picture_label(seat: SeatRow, lang: str = DEFAULT) -> str:
    if seat.is_ai or seat.user_id is None:
        return t(lang, "Computer ({colour})", colour=texts.colour(seat.name, lang))
    return seat.display


def _who(seat: SeatRow, lang: str = DEFAULT) -> str:
    if seat.is_ai or seat.user_id is None:
        return t(lang, "the computer")
    return f"<@{seat.user_id}>"


def _ap_line(game: Game, lang: str = DEFAULT) -> str:
    return panels.ap_line(game, lang=lang)


def _label(value: str) -> str:
    """Choice labels show the end of a long value, which is the part that differs."""
    return value if len(value) <= 100 else "…" + value[-99:]


def _fit(text: str) -> str:
    return text if len(text) <= 100 else text[:99] + "…"


class _OutOfDate(Exception):
    """A panel's choice was made on a state the game has since left: nothing was done."""


class _MovedOn(Exception):
    """The channel's remembered game no longer runs there: look the channel up again."""


def _still_in(row: GameRow, channel_id: int | None) -> None:
    """Raise ``_MovedOn`` if *row*, taken from the channel cache, no longer runs there."""
    if channel_id is not None and (row.channel_id != channel_id or row.status != "running"):
        raise _MovedOn()


class Lru(OrderedDict[_K, _V]):
    """A dict that keeps its *maxsize* most recently used entries."""

    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = maxsize

    def get(self, key: _K, default: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            return default
        self.move_to_end(key)
        return self[key]

    def __setitem__(self, key: _K, value: _V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.maxsize:
            self.popitem(last=False)
