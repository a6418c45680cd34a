"""A finished (or running) game's story in numbers, for the score chart and its post.

``score_track(record)`` replays a game record with the engine and keeps, after every
decision, each player's points and the size of the king's castle, where the three
phase scorings fell, and per player the castles that scored most. Pure and
deterministic: the same record gives the same track (the chart draws it,
``renderer.chart``; the bot's final post lists the castles).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .board import SQUARE_INDEX, SQUARE_NAMES, Castles, castles
from .record import Record
from .rules.scoring import highest_levels

__all__ = ["CastleScore", "ScoreTrack", "castle_scores", "score_track"]


@dataclass(frozen=True, slots=True)
class CastleScore:
    """One castle's points for one player at one phase scoring: area x knight's level."""

    phase: int
    square: str  # the castle's name: its lowest square by rank, then file
    area: int
    level: int

    @property
    def points(self) -> int:
        return self.area * self.level


@dataclass(slots=True)
class ScoreTrack:
    """Points after every decision (index 0: the start), as the engine scored them."""

    players: tuple[str, ...]
    scores: list[dict[str, int]] = field(default_factory=list)
    king_castle: list[int] = field(default_factory=list)
    """After each decision: how many squares the king's castle covers (0: no king yet)."""
    scorings: list[tuple[int, int]] = field(default_factory=list)
    """``(phase, decision)``: the decision after which that phase was scored."""
    castles: dict[str, list[CastleScore]] = field(default_factory=dict)
    """Per player, every castle that scored, most points first."""

    def best(self, player: str, n: int = 3) -> list[CastleScore]:
        """The *n* castles that scored most for *player* over the whole game."""
        return self.castles.get(player, [])[:n]


def score_track(record: Record) -> ScoreTrack:
    """Replay *record* and keep the numbers the chart needs (see the module doc).

    :raises IllegalAction, NotationError: the record does not replay.
    """
    game = record.new_game()
    track = ScoreTrack(players=tuple(game.players))
    scored: dict[str, list[CastleScore]] = {p: [] for p in game.players}
    _note(track, game.position())
    for n, decision in enumerate(record.decisions, start=1):
        events = game.play("; ".join(decision.actions))
        pos = game.position()
        _note(track, pos)
        for e in events:
            if e.get("type") == "phase_scored":
                phase = int(e["phase"])
                track.scorings.append((phase, n))
                for player, found in castle_scores(pos, phase).items():
                    scored[player].extend(found)
    track.castles = {
        p: sorted(found, key=lambda c: (-c.points, c.phase, c.square))
        for p, found in scored.items()
    }
    return track


def _note(track: ScoreTrack, pos: dict[str, Any]) -> None:
    track.scores.append({p: int(pos["scores"][p]) for p in track.players})
    track.king_castle.append(_king_castle(pos))


def _king_castle(pos: dict[str, Any]) -> int:
    king = pos.get("king")
    if not king:
        return 0
    for castle in castles(pos.get("heights") or {}):
        if king in castle:
            return len(castle)
    return 0


def castle_scores(pos: dict[str, Any], phase: int) -> dict[str, list[CastleScore]]:
    """Per player, each castle that would score in *pos*: a knight above the ground
    in it, counted once at the level of the player's highest knight there (§7.1, the
    engine's own ``highest_levels``)."""
    h = [0] * 64
    for sq, height in (pos.get("heights") or {}).items():
        h[SQUARE_INDEX[sq.lower()]] = max(0, int(height))
    found = Castles(h)
    out: dict[str, list[CastleScore]] = {}
    for player in pos["players"]:
        knights = [SQUARE_INDEX[sq.lower()] for sq in (pos.get("knights") or {}).get(player, [])]
        out[player] = [
            CastleScore(phase, _first(found.members[c]), found.area[c], level)
            for c, level in highest_levels(knights, h, found.comp).items()
        ]
    return out


def _first(squares: Iterable[int]) -> str:
    """A castle's name: its lowest square by rank, then file."""
    names = [SQUARE_NAMES[s] for s in squares]
    return min(names, key=lambda sq: (int(sq[1:]), sq[0]))
