"""Stages of a game and the events ``Game.play`` reports.

Both are typed values that still read like the plain strings and dicts of the
public contract (docs/notation.md, docs/rules.md engine ruling 24): a ``Stage``
*is* its string (``Stage.PLAY == "play"``), and an event is a read-only mapping
(``event["type"]``, ``event.get("points")``, ``dict(event)``) as well as a
dataclass with named fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar


class Stage(StrEnum):
    """Whose decision of which kind the game waits for (docs/notation.md "Positions", ``stage``)."""

    CASTLES = "castles"  # master setup: starting blocks
    PLACE = "place"  # setup: first knights
    KING = "king"  # setup king, or the king move after a phase's scoring
    PLAY = "play"  # a turn
    DRAW_KEEP = "draw-keep"  # personal decks: a draw awaits 'keep'
    OVER = "over"


SETUP_STAGES: frozenset[str] = frozenset({Stage.CASTLES, Stage.PLACE, Stage.KING})
TURN_STAGES: frozenset[str] = frozenset({Stage.PLAY, Stage.DRAW_KEEP})


class Event(Mapping[str, Any]):
    """Base of the events: a dataclass that also reads as the dict of the contract."""

    type: ClassVar[str]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]  # every subclass is a dataclass
            out[f.name] = getattr(self, f.name)
        return out

    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def __len__(self) -> int:
        return len(self.as_dict())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.as_dict()!r})"


@dataclass(frozen=True, eq=False, repr=False)
class TurnEnd(Event):
    """After every ``end``."""

    type: ClassVar[str] = "turn_end"
    player: str


@dataclass(frozen=True, eq=False, repr=False)
class PhaseScored(Event):
    """After the last turn of a phase: points earned (before leap-frog) and the scores."""

    type: ClassVar[str] = "phase_scored"
    phase: int
    points: dict[str, dict[str, int]]  # player -> {"castles", "king", "master"}
    scores: dict[str, int]


@dataclass(frozen=True, eq=False, repr=False)
class GameOver(Event):
    """After the scoring of phase 3."""

    type: ClassVar[str] = "game_over"
    scores: dict[str, int]
    winners: list[str]


def decision_over(stage_before: str, events: Iterable[Mapping[str, Any]]) -> bool:
    """Whether an action, played in ``stage_before`` and causing ``events``, ended its
    player's decision: a setup or king choice always does, a turn ends with ``end``."""
    if stage_before in SETUP_STAGES:
        return True
    return any(e.get("type") in ("turn_end", "game_over") for e in events)
