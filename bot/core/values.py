"""The service's plain values: who asks (:class:`User`), what it answers (:class:`Outcome`,
:class:`Post`, :class:`PanelState`…), its settings, and the bounded caches it keeps."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot.core import panel as panels
from bot.texts.i18n import DEFAULT, language
from engine import Game

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


class Lru(OrderedDict[_K, _V]):
    """A dict that keeps its *maxsize* most recently used entries."""

    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = maxsize

    def get(self, key: _K, default: None = None) -> _V | None:  # type: ignore[override]
        """The value of *key* (now the most recently used), or None."""
        if key not in self:
            return None
        self.move_to_end(key)
        return self[key]

    def __setitem__(self, key: _K, value: _V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.maxsize:
            self.popitem(last=False)
