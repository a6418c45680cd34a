"""Static evaluation of a position for the computer players.

The evaluation estimates what each player's score will be worth at the end of the
game: the points already on the track, plus the castle points and king's bonus the
position would score if the pending phase ended now (weighted up when more scorings
follow, since a good position tends to keep scoring), plus half of what the best
step up within reach would add (a knight next to a free square one level higher:
without this term the players never build the steps they later climb, and lose
92% of games to players with it), plus small terms for what the player can still
use (knights on the board, cards in hand, action points left in the turn). It reads a
position dict (docs/notation.md) so that it works on the sampled positions the players
search, never on hidden information.  Castles, castle points, the king's bonus and the
master cards are worked out by the engine's own pure functions (``engine.board``,
``engine.rules.scoring``), so the players score a position exactly as the game does.
"""

from __future__ import annotations

from typing import Any

from engine.board import ORTH, SQUARE_INDEX, label_castles
from engine.rules.scoring import (
    FORMATION_POINTS,
    castles_held,
    formation_points,
    highest_levels,
    king_bonus,
    zone_count,
)
from engine.rules.scoring import pending_phase as _pending_phase

# How much a card in hand is worth, in points, while turns remain to play it.
_CARD_VALUE = {
    "ap7": 1.4,
    "ap6": 1.0,
    "extra": 1.2,
    "jump": 1.2,
    "lift": 1.2,
    "doorclimb": 1.0,
    "diagonal": 1.0,
    "relocate": 1.0,
    "moveblock": 0.8,
    "vault": 0.8,
}
_AP_VALUE = 0.9  # an action point left in the turn is worth almost one `score` step
_LATER_CASTLE = 0.45  # weight of today's castle points for each scoring after the next
_LATER_KNIGHT = 0.8  # worth of a knight on the board per scoring after the next
_BASE_KNIGHT = 0.4
_POTENTIAL = 0.5  # share of the gain one step away (a knight next to a higher square)
_WIN_BONUS = 100.0


Board = tuple[list[int], list[int], list[int]]  # heights, castle per square, areas
_BOARD_CACHE: dict[frozenset[tuple[str, int]], Board] = {}


def board_of(heights: dict[str, int]) -> Board:
    """Heights as a list, with the castle labels and areas of ``engine.board``.

    Cached: within a turn most actions move knights and leave the heights alone.
    """
    key = frozenset(heights.items())
    hit = _BOARD_CACHE.get(key)
    if hit is None:
        if len(_BOARD_CACHE) > 4096:
            _BOARD_CACHE.clear()
        h = [0] * 64
        for sq, v in heights.items():
            h[SQUARE_INDEX[sq]] = v
        comp, area, _height, _members = label_castles(h)
        hit = _BOARD_CACHE[key] = (h, comp, area)
    return hit


def pending_phase(pos: dict[str, Any]) -> int | None:
    """The phase whose scoring has not happened yet (None once the game is over)."""
    return _pending_phase(
        pos.get("stage", "play"), int(pos.get("phase", 1)), pos.get("king") is not None
    )


def castle_points(pos: dict[str, Any]) -> dict[str, int]:
    """Castle points each player would score if the phase ended now (docs/rules.md §7.1)."""
    h, comp, area = board_of(pos.get("heights") or {})
    knights = pos.get("knights") or {}
    out = {}
    for p in pos["players"]:
        best = highest_levels([SQUARE_INDEX[sq] for sq in knights.get(p, [])], h, comp)
        out[p] = sum(area[c] * lvl for c, lvl in best.items())
    return out


def player_values(pos: dict[str, Any]) -> dict[str, float]:
    """Each player's estimated worth, in points (see the module docstring)."""
    players = pos["players"]
    scores = pos.get("scores") or {}
    q = pending_phase(pos)
    if q is None:
        return {p: float(scores.get(p, 0)) for p in players}
    heights = pos.get("heights") or {}
    knights = pos.get("knights") or {}
    stacks = pos.get("stacks") or {}
    hands = pos.get("hands") or {}
    king = pos.get("king")
    h, label, areas = board_of(heights)
    king_sq = SQUARE_INDEX[king] if king else None
    later = 3 - q  # scorings after the pending one
    w_castle = 1.0 + _LATER_CASTLE * later
    w_knight = _LATER_KNIGHT * later + _BASE_KNIGHT
    turn = pos.get("turn") or {}
    to_move = pos.get("to_move")
    out: dict[str, float] = {}
    master = pos.get("master_card")
    occupied = {SQUARE_INDEX[sq] for squares in knights.values() for sq in squares}
    if king:
        occupied.add(SQUARE_INDEX[king])
    for p in players:
        mine = knights.get(p, [])
        idx = [SQUARE_INDEX[sq] for sq in mine]
        best = highest_levels(idx, h, label)
        bonus = king_bonus(idx, h, label, king_sq, q)
        cpts = sum(areas[c] * lvl for c, lvl in best.items())
        value = float(scores.get(p, 0)) + w_castle * cpts + bonus + w_knight * len(mine)
        if _POTENTIAL and mine:
            value += _POTENTIAL * w_castle * _climb_gain(idx, h, label, areas, best, occupied)
        # Cards: worth something only while turns remain to play them (one per turn).
        turns_left = len(stacks.get(p, [])) + 3 * later
        if p == to_move and pos.get("stage") in ("play", "draw-keep"):
            turns_left += 0 if turn.get("played") else 1
        hand = [c for c in hands.get(p, []) if c != "hidden"]
        hidden = len(hands.get(p, [])) - len(hand)
        if p == to_move and turn.get("revealed"):
            revealed = [c for c in turn["revealed"] if c != "hidden"]
            if revealed:
                hand = hand + [max(revealed, key=lambda c: _CARD_VALUE.get(c, 1.0))]
        card_vals = sorted((_CARD_VALUE.get(c, 1.0) for c in hand), reverse=True)
        card_vals += [1.0] * hidden
        value += sum(card_vals[: max(0, turns_left)])
        if master:
            value += _master_estimate(master, q, idx, h, label)
        out[p] = value
    if to_move in out and pos.get("stage") in ("play", "draw-keep"):
        out[to_move] += _AP_VALUE * int(turn.get("ap") or 0)
    return out


def _climb_gain(
    knights: list[int],
    h: list[int],
    label: list[int],
    areas: list[int],
    best: dict[int, int],
    occupied: set[int],
) -> float:
    """What stepping up once would add: the best such step, plus a little of the others.

    A knight next to a square one level higher (or a castle it could climb onto)
    can score more next turn; this rewards building the steps one climbs.
    """
    gains = []
    for i in knights:
        level = h[i]
        top = 0
        for n in ORTH[i]:
            if n in occupied:
                continue
            hn = h[n]
            if hn < 1 or hn > level + 1:
                continue
            c = label[n]
            gain = areas[c] * (hn - best.get(c, 0))
            if gain > top:
                top = gain
        if top:
            gains.append(top)
    if not gains:
        return 0.0
    gains.sort(reverse=True)
    return gains[0] + 0.4 * sum(gains[1:])


def evaluate(pos: dict[str, Any], me: str) -> float:
    """The position's value for *me*: my worth against the leader's and the field's."""
    return relative_value(player_values(pos), pos, me)


def relative_value(vals: dict[str, float], pos: dict[str, Any], me: str) -> float:
    """*me*'s worth in *vals* against the leader's and the field's (at the end: the
    margin over the best other, and a bonus for the win)."""
    mine = vals[me]
    others = [v for p, v in vals.items() if p != me]
    if not others:
        return mine
    top = max(others)
    if pos.get("stage") == "over":
        return mine - top + (_WIN_BONUS if mine > top else 0.0)
    return mine - 0.5 * top - 0.5 * sum(others) / len(others)


def _master_estimate(
    card: str, q: int, knights: list[int], h: list[int], label: list[int]
) -> float:
    """Points the master card would give these knights now, discounted if far off."""
    if card in FORMATION_POINTS:  # scored after phase 3 only
        weight = {1: 0.2, 2: 0.4, 3: 0.9}[q]
        return weight * formation_points(card, knights, h)
    step = {1: 2, 2: 5, 3: 10}[q]
    if card in ("border", "diagonal"):
        return 0.7 * step * zone_count(card, knights)
    if card == "castles":
        on = castles_held(knights, h, label)
        need = {1: 4, 2: 5, 3: 6}[q]
        pts = {1: 5, 2: 15, 3: 30}[q]
        return 0.8 * pts if on == need else 0.1 * pts * min(on, need) / need
    return 0.0
