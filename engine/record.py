"""Game records: a whole game as text a person can read and the engine can replay.

A record is a few ``Key: value`` header lines (the format, variant, seed and
players are required; anything else, such as the players' display names or the
result, is kept as it is), a blank line, and then one *decision* per line, numbered
from 1: ``12 blue: move c3 d3; build e4 e5; score; end``. A decision is one setup
or king choice, or a whole turn up to its ``end``, in canonical notation
(docs/notation.md, "Game records").

>>> rec = Record(variant="common", seed=7, players=("red", "blue"))
>>> rec.decisions.append(Decision("red", ("place c3",)))
>>> replay(parse_record(format_record(rec))).to_move
'blue'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import IllegalAction, NotationError
from .events import decision_over
from .game import Game
from .notation import canonical_actions, parse_actions
from .rules.cards import lift_source

FORMAT = "torres-record/1"
_REQUIRED = ("Format", "Variant", "Seed", "Players")
_HEADER = re.compile(r"^([A-Za-z][A-Za-z0-9 _-]{0,39}):[ \t]*(.*)$")
_DECISION = re.compile(r"^([0-9]{1,6})[ \t]+([^:\s]{1,40}):[ \t]*(.*)$")
_MAX_LINE = 4000
_SEED_DIGITS = 100  # a fresh seed has 128 bits (39 digits); room for wider ones
_SEED = re.compile(rf"-?[0-9]{{1,{_SEED_DIGITS}}}")


class RecordError(ValueError):
    """A record that cannot be read or replayed; ``line`` is its 1-based line number
    (0: the record as a whole) and ``str(e)`` says where and why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Decision:
    """One player's decision: the canonical single actions, in order."""

    player: str
    actions: tuple[str, ...]
    line: int = field(default=0, compare=False)
    """Where the decision stood in the text it was read from (0: not read from text)."""


@dataclass(slots=True)
class Record:
    """A game's header facts and its decisions (see the module doc)."""

    variant: str
    seed: int
    players: tuple[str, ...]
    headers: dict[str, str] = field(default_factory=dict)
    """Further header lines in order (e.g. ``Game``, ``Result``, ``Name red``)."""
    decisions: list[Decision] = field(default_factory=list)

    def new_game(self) -> Game:
        """The game at its start, as the record's header sets it up."""
        return Game.new(
            len(self.players), names=list(self.players), variant=self.variant, seed=self.seed
        )


def format_record(record: Record) -> str:
    """The record as text (parse_record reads it back)."""
    lines = [
        f"Format: {FORMAT}",
        f"Variant: {record.variant}",
        f"Seed: {record.seed}",
        f"Players: {', '.join(record.players)}",
    ]
    for key, value in record.headers.items():
        if key in _REQUIRED or not _HEADER.match(f"{key}: x"):
            raise ValueError(f"{key!r} cannot be a further header.")
        lines.append(f"{key}: {' '.join(str(value).split())}")
    lines.append("")
    for n, d in enumerate(record.decisions, start=1):
        lines.append(f"{n} {d.player}: {'; '.join(d.actions)}")
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> Record:
    """Read a record; the decisions are checked for form here and for legality by
    ``replay``.

    :raises RecordError: naming the line and what is wrong with it.
    """
    if not isinstance(text, str):
        raise RecordError(0, "A record is text.")
    lines = text.removeprefix("\ufeff").splitlines()  # a byte order mark an editor wrote
    headers: dict[str, str] = {}
    i = 0
    while i < len(lines) and lines[i].strip():
        line = _line(lines, i)
        if not line.startswith("#"):
            m = _HEADER.match(line)
            if m is None:
                raise RecordError(i + 1, "expected a header line 'Key: value' or a blank line.")
            key, value = m.group(1), m.group(2).strip()
            if key in headers:
                raise RecordError(i + 1, f"the header '{key}' appears twice.")
            headers[key] = value
        i += 1
    for key in _REQUIRED:
        if key not in headers:
            raise RecordError(
                0,
                f"The header has no '{key}:' line; a record starts with "
                f"{', '.join(k + ':' for k in _REQUIRED)}.",
            )
    if headers["Format"] != FORMAT:
        raise RecordError(_find(lines, "Format"), f"unknown format; this engine reads {FORMAT}.")
    seed_text = headers["Seed"]
    if not _SEED.fullmatch(seed_text):
        raise RecordError(
            _find(lines, "Seed"),
            f"the seed must be a whole number of at most {_SEED_DIGITS} digits.",
        )
    players = tuple(p.strip() for p in headers["Players"].split(","))
    record = Record(
        variant=headers["Variant"],
        seed=int(seed_text),
        players=players,
        headers={k: v for k, v in headers.items() if k not in _REQUIRED},
    )
    expected = 1
    for j in range(i, len(lines)):
        line = _line(lines, j).strip()
        if not line or line.startswith("#"):
            continue
        m = _DECISION.match(line)
        if m is None:
            raise RecordError(j + 1, "expected a decision: 'N player: actions'.")
        if int(m.group(1)) != expected:
            raise RecordError(j + 1, f"decision {m.group(1)} is out of order; expected {expected}.")
        try:
            actions = tuple(canonical_actions(parse_actions(m.group(3))))
        except NotationError as e:
            raise RecordError(j + 1, str(e)) from None
        if not actions:
            raise RecordError(j + 1, "the decision has no actions.")
        record.decisions.append(Decision(m.group(2), actions, j + 1))
        expected += 1
    return record


def replay(record: Record, decision: int | None = None) -> Game:
    """The game after *decision* decisions (all by default; 0: the start).

    The last decision may stop mid-turn (the record of a game still running).

    :raises RecordError: the header sets up no game, a decision is played by the
        wrong player, an action is illegal, or a decision ends early or late.
    """
    try:
        game = record.new_game()
    except NotationError as e:
        raise RecordError(0, f"The header sets up no game: {e}") from None
    total = len(record.decisions)
    if decision is None:
        decision = total
    if not 0 <= decision <= total:
        raise RecordError(0, f"The record has decisions 1 to {total}, not {decision}.")
    for n, d in enumerate(record.decisions[:decision]):
        if game.stage == "over":
            raise _at(d, n, "the game was already over.")
        if d.player != game.to_move:
            raise _at(d, n, f"it is {game.to_move}'s decision, not {d.player}'s.")
        for k, action in enumerate(d.actions):
            stage = game.stage
            try:
                events = game.play(action)
            except (IllegalAction, NotationError) as e:
                raise _at(d, n, f"`{action}`: {e}") from None
            done = decision_over(stage, events)
            if done and k + 1 < len(d.actions):
                raise _at(d, n, f"the decision is over after `{action}`.")
            if not done and k + 1 == len(d.actions) and n + 1 < total:
                raise _at(d, n, "the decision does not end (a turn ends with `end`).")
    return game


def record_from_log(
    *,
    variant: str,
    seed: int,
    players: Iterable[str],
    log: Iterable[tuple[str, str]],
    headers: Mapping[str, Any] | None = None,
) -> Record:
    """Build a record from an action log of ``(kind, text)`` rows, ``kind`` being
    ``"play"`` (one or more actions) or ``"undo"`` (take back the last action of the
    turn), as a game service keeps it. Undone actions leave no trace.

    :raises RecordError: the log does not replay (line numbers are log rows).
    """
    record = Record(
        variant=variant,
        seed=seed,
        players=tuple(players),
        headers={k: str(v) for k, v in (headers or {}).items()},
    )
    game = record.new_game()
    current: list[str] = []
    for row, (kind, text) in enumerate(log, start=1):
        if kind == "undo":
            if not current or not game.undo():
                raise RecordError(row, "an undo with nothing to take back.")
            current.pop()
            continue
        if kind != "play":
            raise RecordError(row, f"unknown log entry {kind!r}.")
        try:
            singles = canonical_actions(parse_actions(text))
        except NotationError as e:
            raise RecordError(row, str(e)) from None
        for action in singles:
            action = _canonical_lift(game, action)
            player, stage = game.to_move, game.stage
            try:
                events = game.play(action)
            except (IllegalAction, NotationError) as e:
                raise RecordError(row, f"`{action}`: {e}") from None
            current.append(action)
            if decision_over(stage, events):
                record.decisions.append(Decision(str(player), tuple(current)))
                current = []
    if current:
        record.decisions.append(Decision(str(game.to_move), tuple(current)))
    return record


def _canonical_lift(game: Game, action: str) -> str:
    """``play lift A`` as the engine resolves it now (``play lift A K`` or ``… turn``):
    a record is written in canonical form, and the short form's stack depends on the
    position (docs/notation.md, "Canonical form")."""
    if not action.startswith("play lift ") or action.count(" ") != 2:
        return action
    try:
        (parsed,) = parse_actions(action)
        source = lift_source(game._st, parsed)  # the record is part of the engine
    except (IllegalAction, NotationError, ValueError):
        return action  # refused when played, with the reason
    return f"{action} {source}"


def _at(d: Decision, n: int, reason: str) -> RecordError:
    """An error at decision *d* (number *n* + 1): by its line when read from text."""
    return RecordError(d.line, reason if d.line else f"decision {n + 1}: {reason}")


def _find(lines: list[str], key: str) -> int:
    for n, line in enumerate(lines, start=1):
        if line.startswith(key + ":"):
            return n
    return 0


def _line(lines: list[str], i: int) -> str:
    line = lines[i]
    if len(line) > _MAX_LINE:
        raise RecordError(i + 1, f"the line is longer than {_MAX_LINE} characters.")
    return line
