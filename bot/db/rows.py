"""What both stores share: row types, errors, decoders, the new-game columns, the migrations.

The two stores (:mod:`bot.db.sqlite`, :mod:`bot.db.postgres`) never import each
other; everything they both need is here, so that a new column is spelled in
:data:`new_game` (and the schema files), not once per store.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from importlib import resources
from typing import Any, NotRequired, TypedDict

from bot.db.errors import DISK_FULL, Unavailable

log = logging.getLogger(__name__)

# A full disk is logged once per this many seconds (with how many writes it refused).
DISK_FULL_LOG_EVERY = 60.0


def migrations(dialect: str) -> list[list[str]]:
    """The schema steps of *dialect* (``sqlite`` or ``postgres``): item i moves the schema
    from version i to i + 1, read from ``bot/db/schema/<dialect>/00N.sql``.

    A statement ends with ``;`` at the end of a line, outside ``$$ … $$`` (a PostgreSQL
    function body); lines starting with ``--`` are comments.
    """
    folder = resources.files("bot.db").joinpath("schema", dialect)
    names = sorted(f.name for f in folder.iterdir() if f.name.endswith(".sql"))
    if names != [f"{i:03d}.sql" for i in range(1, len(names) + 1)]:
        raise RuntimeError(f"the {dialect} schema files are not 001.sql … numbered: {names}")
    return [split_sql(folder.joinpath(name).read_text(encoding="utf-8")) for name in names]


def split_sql(text: str) -> list[str]:
    """The statements of one schema file (see :func:`migrations`), without their ``;``."""
    statements: list[str] = []
    lines: list[str] = []
    quoted = False
    for line in text.splitlines():
        if not lines and (not line.strip() or line.startswith("--")):
            continue
        lines.append(line)
        quoted ^= line.count("$$") % 2 == 1
        if not quoted and line.rstrip().endswith(";"):
            statements.append("\n".join(lines).rstrip()[:-1])
            lines = []
    if lines:
        raise RuntimeError(f"a schema statement does not end with ';': {lines[0]!r}")
    return statements


# The task that committed last in this context: lets an error handler tell whether
# the request it handles had already changed something.
committed_by: ContextVar[asyncio.Task[Any] | None] = ContextVar("committed_by", default=None)


class StoreError(RuntimeError):
    """The database cannot be used (for example it was written by a newer version).

    The message is one line fit for an operator's terminal.
    """


def versions_to_apply(current: int, latest: int) -> range:
    """The migrations a database at schema version *current* still needs (both stores);
    a database written by a newer bot is refused, changing nothing."""
    if current > latest:
        raise StoreError(
            f"the database has schema version {current}, newer than this bot's "
            f"{latest}; upgrade the bot"
        )
    return range(current, latest)


class DatabaseDamaged(StoreError):
    """``PRAGMA quick_check`` (or SQLite itself) found the file corrupt."""


class DatabaseReadOnly(StoreError):
    """The bot may not write the database file or its directory."""


class ChannelBusy(Exception):
    """A channel already holds an open or running game."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One row of ``games``; JSON columns are decoded."""

    id: int
    guild_id: int | None
    channel_id: int
    author_id: int
    status: str
    seats_wanted: int
    bots: int
    variant: str
    seed: int
    initial: dict[str, Any] | None
    position: dict[str, Any] | None
    turn_no: int
    turn_start_seq: int
    turn_start_position: dict[str, Any] | None
    last_seq: int
    created_at: float
    updated_at: float
    last_activity: float
    reminder_interval: float
    reminder_limit: int
    reminders_sent: int
    idle_cancel_after: float
    result: dict[str, Any] | None
    language: str = "en"  # public posts and the picture speak it (bot.texts.i18n)
    ai_level: str | None = None  # the computer players' level; None: the configured one
    # A game in a thread of its own: the channel holding its lobby card, and the card
    # (None: the game plays in ``channel_id`` itself, as before threads).
    lobby_channel_id: int | None = None
    lobby_message_id: int | None = None


@dataclass(frozen=True, slots=True)
class SeatRow:
    game_id: int
    seat: int
    user_id: int | None
    display: str
    name: str | None
    is_ai: bool
    resigned: bool
    joined_at: float


@dataclass(frozen=True, slots=True)
class ActionRow:
    game_id: int
    seq: int
    player: str
    user_id: int | None
    kind: str
    action: str
    time: float


JSON_COLUMNS = ("initial", "position", "turn_start_position", "result")
_INT64 = range(-(2**63), 2**63)


def seed_columns(seed: int) -> tuple[int, str]:
    """A new game's ``seed`` and ``seed_text`` columns. Both databases keep ``seed`` as a
    64-bit integer (games made before schema 7 have only it); a 128-bit seed does not
    fit it, so ``seed_text`` holds every new seed exactly and ``seed`` has it only where
    it fits (0 otherwise). ``seed_from`` reads them back."""
    return (seed if seed in _INT64 else 0), str(seed)


def seed_from(data: dict[str, Any]) -> None:
    """Replace a row's ``seed``/``seed_text`` pair by the seed (see ``seed_columns``)."""
    text = data.pop("seed_text", None)
    if text is not None:
        data["seed"] = int(text)


def game_row(data: dict[str, Any], loads: Callable[[str], Any]) -> GameRow:
    """A ``games`` row (*data*, a fresh dict) as a :class:`GameRow`; *loads* reads JSON."""
    data.pop("turn_seconds", None)  # bot.core.home reads it on its own (turn_clock)
    seed_from(data)
    for key in JSON_COLUMNS:
        if data[key] is not None:
            data[key] = loads(data[key])
    return GameRow(**data)


# Every table in foreign-key order, with its columns: the column list (bot.core.migrate copies
# these; tests/bot/db/test_schema_files.py checks them against both dialects' schema files).
TABLES: dict[str, tuple[str, ...]] = {
    "meta": ("key", "value"),
    "games": (
        "id",
        "guild_id",
        "channel_id",
        "author_id",
        "status",
        "seats_wanted",
        "bots",
        "variant",
        "seed",
        "seed_text",
        "initial",
        "position",
        "turn_no",
        "turn_start_seq",
        "turn_start_position",
        "last_seq",
        "created_at",
        "updated_at",
        "last_activity",
        "reminder_interval",
        "reminder_limit",
        "reminders_sent",
        "idle_cancel_after",
        "result",
        "turn_seconds",
        "language",
        "ai_level",
        "lobby_channel_id",
        "lobby_message_id",
    ),
    "seats": ("game_id", "seat", "user_id", "display", "name", "is_ai", "resigned", "joined_at"),
    "actions": ("game_id", "seq", "player", "user_id", "kind", "action", "time"),
    "outbox": ("id", "game_id", "created_at", "sent_at", "payload"),
    "results": ("game_id", "guild_id", "channel_id", "variant", "started_at", "finished_at"),
    "result_seats": (
        "game_id",
        "seat",
        "name",
        "user_id",
        "display",
        "ai_level",
        "score",
        "rank",
    ),
    "user_settings": ("user_id", "dm", "dm_refused", "away_until"),
    "tutorials": (
        "user_id",
        "seed_text",
        "log",
        "shown",
        "tried",
        "version",
        "finished",
        "created_at",
        "updated_at",
    ),
}

# The columns of ``games`` a new game starts without (their defaults, or NULL): the id,
# the play (written by start_game and record), and what later events set.
_PLAY = ("initial", "position", "turn_no", "turn_start_seq", "turn_start_position", "last_seq")
_SET_LATER = frozenset(("id", *_PLAY, "reminders_sent", "result", "turn_seconds"))
# The columns a new game is inserted with, in order (both stores build their INSERT from it).
NEW_GAME_COLUMNS = tuple(c for c in TABLES["games"] if c not in _SET_LATER)


class NewGame(TypedDict):
    """``create_game``'s keywords, typed once for the contract and both stores."""

    guild_id: int | None
    channel_id: int
    author_id: int
    author_display: str
    seats_wanted: int
    bots: int
    variant: str
    seed: int
    reminder_interval: float
    reminder_limit: int
    idle_cancel_after: float
    now: NotRequired[float | None]  # None: the clock's
    language: NotRequired[str]
    ai_level: NotRequired[str | None]
    lobby_channel_id: NotRequired[int | None]
    lobby_message_id: NotRequired[int | None]


_NEW_GAME_DEFAULTS: dict[str, Any] = {
    "language": "en",
    "ai_level": None,
    "lobby_channel_id": None,
    "lobby_message_id": None,
}


def new_game(game: NewGame) -> tuple[float, tuple[Any, ...]]:
    """When a new open game is created (*game*'s ``now``, else the clock's) and its
    values of :data:`NEW_GAME_COLUMNS`: the settings *game* names as they are, the seed
    and the times derived here (the author's seat is the store's second insert)."""
    given: dict[str, Any] = {**_NEW_GAME_DEFAULTS, **game}
    now = given.pop("now", None)
    now = time.time() if now is None else now
    del given["author_display"]
    seed_int, seed_text = seed_columns(given.pop("seed"))
    values = {
        **given,
        "status": "open",
        "seed": seed_int,
        "seed_text": seed_text,
        "created_at": now,
        "updated_at": now,
        "last_activity": now,
    }
    if values.keys() != set(NEW_GAME_COLUMNS):
        raise TypeError(f"a new game's columns are {NEW_GAME_COLUMNS}, not {tuple(values)}")
    return now, tuple(values[c] for c in NEW_GAME_COLUMNS)


class DiskFull:
    """A full disk fails every command alike: one log line now and then says so, with
    how many writes it refused, instead of a traceback per command."""

    def __init__(self, where: str) -> None:
        self._where = where
        self._logged = -DISK_FULL_LOG_EVERY
        self._count = 0

    def refuse(self) -> Unavailable:
        """Count a write the full disk refused; what to raise (nothing was written)."""
        self._count += 1
        now = time.monotonic()
        if now - self._logged >= DISK_FULL_LOG_EVERY:
            log.error(
                "cannot write the database %s: its disk is full (%d write(s) refused, nothing "
                "changed; logged once a minute while it lasts): free some space",
                self._where,
                self._count,
            )
            self._logged, self._count = now, 0
        return Unavailable(DISK_FULL)


def committed_here() -> bool:
    """Whether the current task has committed a write (so its request changed something)."""
    task = asyncio.current_task()
    return task is not None and committed_by.get() is task


# The time the current turn of game ``g`` began (SQL both backends read): its first log row's time, or the
# game's start (every seat is written anew when it starts) for the first turn.
TURN_SINCE = (
    "CASE WHEN g.status = 'open' THEN g.created_at ELSE COALESCE("
    "(SELECT a.time FROM actions a WHERE a.game_id = g.id AND a.seq = g.turn_start_seq),"
    " (SELECT MAX(x.joined_at) FROM seats x WHERE x.game_id = g.id)) END"
)


@dataclass(frozen=True, slots=True)
class ResultSeat:
    """One seat of a finished game: who played it (a user, or the computer at a level)."""

    seat: int
    name: str
    user_id: int | None
    display: str
    ai_level: str | None
    score: int
    rank: int


@dataclass(frozen=True, slots=True)
class ResultRow:
    """A finished game's result, as the ``results`` and ``result_seats`` tables keep it."""

    game_id: int
    guild_id: int | None
    channel_id: int
    variant: str
    started_at: float
    finished_at: float
    seats: tuple[ResultSeat, ...]


def result_values(result: ResultRow) -> tuple[Any, ...]:
    """A ``results`` row's values in the order both stores insert them (game_id,
    guild_id, channel_id, variant, started_at, finished_at)."""
    return (
        result.game_id,
        result.guild_id,
        result.channel_id,
        result.variant,
        result.started_at,
        result.finished_at,
    )


def result_seat_values(result: ResultRow) -> list[tuple[Any, ...]]:
    """Its ``result_seats`` rows' values (game_id, seat, name, user_id, display,
    ai_level, score, rank), one a seat."""
    return [
        (result.game_id, s.seat, s.name, s.user_id, s.display, s.ai_level, s.score, s.rank)
        for s in result.seats
    ]


def waiting(
    data: dict[str, Any], game: Callable[[dict[str, Any]], GameRow]
) -> tuple[GameRow, float]:
    """A row of ``games`` with ``turn_since`` (:data:`TURN_SINCE`): the game (*game*:
    the store's decoder) and since when its turn runs (its creation, before a turn)."""
    since = float(data.pop("turn_since") or data["created_at"])
    return game(data), since


def clocked(
    data: dict[str, Any], game: Callable[[dict[str, Any]], GameRow]
) -> tuple[GameRow, float, float]:
    """:func:`waiting` of a clocked game's row, with its seconds a turn between."""
    seconds = float(data.pop("turn_seconds"))
    row, since = waiting(data, game)
    return row, seconds, since


def results_of(rows: Sequence[Sequence[Any]]) -> list[ResultRow]:
    """Group joined ``results`` x ``result_seats`` rows (ordered by game) into results."""
    out: list[ResultRow] = []
    seats: list[ResultSeat] = []
    head: Sequence[Any] | None = None
    for r in rows:
        if head is not None and r[0] != head[0]:
            out.append(_result_of(head, seats))
            seats = []
        head = r
        seats.append(
            ResultSeat(int(r[6]), str(r[7]), r[8], str(r[9]), r[10], int(r[11]), int(r[12]))
        )
    if head is not None:
        out.append(_result_of(head, seats))
    return out


def _result_of(head: Sequence[Any], seats: list[ResultSeat]) -> ResultRow:
    return ResultRow(
        int(head[0]),
        head[1],
        int(head[2]),
        str(head[3]),
        float(head[4]),
        float(head[5]),
        tuple(seats),
    )


@dataclass(frozen=True, slots=True)
class UserSettings:
    """A user's own settings (``/torres settings``, ``/torres away``)."""

    user_id: int
    dm: bool = False
    """Turn notices by direct message (else the channel ping)."""
    dm_refused: bool = False
    """A DM could not be delivered and the user has not been told yet."""
    away_until: float | None = None
    """Until then their clocks and reminders are paused."""


def is_postgres(target: str) -> bool:
    """Whether a ``TORRES_DB`` value names a PostgreSQL database rather than a SQLite file."""
    return target.startswith(("postgresql://", "postgres://"))


def describe(target: str) -> str:
    """*target* for messages, without a password."""
    if not is_postgres(target):
        return repr(target)
    head, sep, tail = target.partition("@")
    if not sep:
        return repr(target)
    scheme, _, cred = head.partition("://")
    user = cred.split(":", 1)[0]
    return repr(f"{scheme}://{user}@{tail}")


@dataclass(frozen=True, slots=True)
class TutorialRow:
    """A user's tutorial (``/torres learn``, bot.core.learn): its game is the seed and
    the actions played since (``"undo"`` takes the last one back); ``version`` rises
    with every change."""

    user_id: int
    seed: int
    log: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    tried: tuple[str, ...] = ()
    version: int = 0
    finished: bool = False
    created_at: float = 0.0
    updated_at: float = 0.0

    def values(self) -> tuple[Any, ...]:
        """The row's columns in ``TABLES["tutorials"]`` order, the lists as JSON."""
        return (
            self.user_id,
            str(self.seed),
            json.dumps(list(self.log)),
            json.dumps(list(self.shown)),
            json.dumps(list(self.tried)),
            self.version,
            self.finished,
            self.created_at,
            self.updated_at,
        )


def tutorial_of(row: Sequence[Any]) -> TutorialRow:
    """A ``tutorials`` row (its columns in ``TABLES`` order) as a :class:`TutorialRow`."""
    user_id, seed, log, shown, tried, version, finished, created, updated = row
    return TutorialRow(
        int(user_id),
        int(seed),
        tuple(json.loads(log)),
        tuple(json.loads(shown)),
        tuple(json.loads(tried)),
        int(version),
        bool(finished),
        float(created),
        float(updated),
    )
