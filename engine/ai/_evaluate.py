"""Static evaluation of a position for the computer players.

The evaluation estimates what each player's score will be worth at the end of the
game: the points already on the track, plus the castle points and king's bonus the
position would score if the pending phase ended now (weighted up when more scorings
follow, since a good position tends to keep scoring), plus half of what the best
step up within reach would add (a knight next to a free square one level higher:
without this term the players never build the steps they later climb, and lose
92% of games to players with it), plus small terms for what the player can still
use (knights on the board, cards in hand, action points left in the turn). It reads a
position dict (docs/notation.md), or (``evaluate_world``, what the players' searches
use) a game's state directly, with the same result bit for bit: writing a position
for every node took a fifth of a search's time, evaluating it half. The players
evaluate only the worlds they sample, never hidden information. Castles, castle
points, the king's bonus and the master cards are worked out by the engine's own
pure functions (``engine.board``, ``engine.rules.scoring``), so the players score a
position exactly as the game does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.board import BIT, ORTH, ORTH_MASK, SQUARE_INDEX, label_castles
from engine.events import Stage
from engine.rules.common import castles
from engine.rules.scoring import (
    FORMATION_POINTS,
    castles_held,
    formation_points,
    highest_levels,
    king_bonus,
    points_of,
    zone_count,
)
from engine.rules.scoring import castle_points as _castle_points
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
_FORMATION_SHARE = 0.9  # of a phase-3 master card's points, for a formation held in phase 3
_PLAY, _DRAW_KEEP, _OVER = Stage.PLAY, Stage.DRAW_KEEP, Stage.OVER


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
        pos.get("stage", "play"),
        int(pos.get("phase", 1)),
        pos.get("king") is not None,
        int(pos.get("round", 1)),
    )


def castle_points(pos: dict[str, Any]) -> dict[str, int]:
    """Castle points each player would score if the phase ended now (docs/rules.md §7.1)."""
    h, comp, area = board_of(pos.get("heights") or {})
    knights = pos.get("knights") or {}
    out = {}
    for p in pos["players"]:
        out[p] = _castle_points([SQUARE_INDEX[sq] for sq in knights.get(p, [])], h, comp, area)
    return out


def player_values(pos: dict[str, Any], cards: float = 1.0) -> dict[str, float]:
    """Each player's worth, in points (see the module docstring); *cards* weighs the
    worth of the cards in hand (the expert's own evaluation weighs them more)."""
    players = pos["players"]
    scores = pos.get("scores") or {}
    q = pending_phase(pos)
    if q is None:
        return {p: float(scores.get(p, 0)) for p in players}
    knights = pos.get("knights") or {}
    stacks = pos.get("stacks") or {}
    hands = pos.get("hands") or {}
    king = pos.get("king")
    h, label, areas = board_of(pos.get("heights") or {})
    playing = pos.get("stage") in ("play", "draw-keep")
    turn = pos.get("turn") or {}
    return _values(
        list(players),
        [scores.get(p, 0) for p in players],
        [[SQUARE_INDEX[sq] for sq in knights.get(p, [])] for p in players],
        [len(stacks.get(p, [])) for p in players],
        [hands.get(p, []) for p in players],
        h,
        label,
        areas,
        SQUARE_INDEX[king] if king else None,
        q,
        players.index(pos["to_move"]) if playing and pos.get("to_move") in players else -1,
        bool(turn.get("played")),
        turn.get("revealed") or (),
        int(turn.get("ap") or 0),
        pos.get("master_card"),
        _pieces(knights, king),
        cards=cards,
    )


def _pieces(knights: dict[str, list[str]], king: str | None) -> int:
    """The mask of the squares with a knight or the king."""
    out = BIT[SQUARE_INDEX[king]] if king else 0
    for squares in knights.values():
        for sq in squares:
            out |= BIT[SQUARE_INDEX[sq]]
    return out


def world_values(game: Any, cards: float = 1.0) -> dict[str, float]:
    """``player_values(game.position(), cards)``, read from the game's state without writing
    the position (the same numbers, bit for bit: most of a search's time went into
    writing positions only to evaluate them)."""
    st = game._st  # the computer players are part of the engine
    names = st.names
    stage = st.stage
    q = _pending_phase(stage, st.phase, st.king is not None, st.round)
    if q is None:
        return {p: float(v) for p, v in zip(names, st.scores, strict=True)}
    playing = stage is _PLAY or stage is _DRAW_KEEP
    cc = st.castles
    if cc is None:
        cc = castles(st)
    return _values(
        names,
        st.scores,
        st.knights,
        [len(s) for s in st.stacks],
        st.hands,
        st.heights,
        cc.comp,
        cc.area,
        st.king,
        q,
        st.to_move if playing else -1,
        bool(st.played),
        st.revealed if playing else (),
        int(st.ap or 0) if playing else 0,
        st.master,
        st.pieces,
        cc,
        cards,
    )


def _values(
    players: Sequence[str],
    scores: Sequence[int],
    knights: Sequence[Sequence[int]],
    stacks: Sequence[int],
    hands: Sequence[Sequence[str]],
    h: Sequence[int],
    label: Sequence[int],
    areas: Sequence[int],
    king_sq: int | None,
    q: int,
    to_move: int,
    played: bool,
    revealed: Sequence[str],
    ap: int,
    master: str | None,
    pieces: int,
    board: Any = None,
    cards: float = 1.0,
) -> dict[str, float]:
    """The worth of each player (by seat) of a position not over, from its parts:
    knights by square index, ``stacks`` the number of stacks left, ``to_move`` the
    seat in a turn (-1 outside one) with that turn's ``played``, ``revealed`` and
    ``ap``, ``pieces`` the mask (``board.BIT``) of the squares with a knight or the king.

    ``board``, if given, stands for the heights (the same object for the same heights,
    hashable): each player's castle terms are then kept by board, knights and the
    pieces next to them, since most positions of a search differ from the last only
    in one player's pieces. ``cards`` weighs the worth of each hand."""
    later = 3 - q  # scorings after the pending one
    w_castle = 1.0 + _LATER_CASTLE * later
    w_knight = _LATER_KNIGHT * later + _BASE_KNIGHT
    out: dict[str, float] = {}
    if board is not None and len(_TERMS) > _TERMS_MAX:
        _TERMS.clear()
    for i, p in enumerate(players):
        idx = knights[i]
        terms = None
        if board is not None:
            mine = tuple(idx)
            near = _NEAR.get(mine)
            if near is None:
                near = _near(mine)
            key = (board, mine, pieces & near, king_sq, q, master)
            terms = _TERMS.get(key)
        if terms is None:
            best = highest_levels(idx, h, label)
            terms = (
                points_of(best, areas),
                king_bonus(idx, h, label, king_sq, q),
                _climb_gain(idx, h, label, areas, best, pieces) if _POTENTIAL and idx else 0.0,
                _master_estimate(master, q, idx, h, label) if master else 0.0,
            )
            if board is not None:
                _TERMS[key] = terms
        cpts, bonus, climb, by_master = terms
        value = float(scores[i]) + w_castle * cpts + bonus + w_knight * len(idx)
        if _POTENTIAL and idx:
            value += _POTENTIAL * w_castle * climb
        # Cards: worth something only while turns remain to play them (one per turn).
        turns_left = stacks[i] + 3 * later
        if i == to_move:
            turns_left += 0 if played else 1
            hand = (tuple(hands[i]), turns_left, tuple(revealed))
        else:
            hand = (tuple(hands[i]), turns_left, ())
        worth = _CARDS.get(hand)
        if worth is None:
            if len(_CARDS) > _TERMS_MAX:
                _CARDS.clear()
            worth = _CARDS[hand] = _cards_worth(*hand)
        value += worth * cards
        if master:
            value += by_master
        out[p] = value
    if to_move >= 0:
        out[players[to_move]] += _AP_VALUE * ap
    return out


def _cards_worth(hand: Sequence[str], turns_left: int, revealed: Sequence[str]) -> float:
    """What a hand is worth with *turns_left* turns to play it (and the best of the
    cards *revealed* by a draw in this turn, which the player will keep)."""
    held = [c for c in hand if c != "hidden"]
    hidden = len(hand) - len(held)
    shown = [c for c in revealed if c != "hidden"]
    if shown:
        held = held + [max(shown, key=lambda c: _CARD_VALUE.get(c, 1.0))]
    card_vals = sorted((_CARD_VALUE.get(c, 1.0) for c in held), reverse=True)
    card_vals += [1.0] * hidden
    return sum(card_vals[: max(0, turns_left)])


def _near(knights: tuple[int, ...]) -> int:
    """The mask of the squares next to *knights*, kept in ``_NEAR``."""
    if len(_NEAR) > _TERMS_MAX:
        _NEAR.clear()
    near = 0
    for k in knights:
        near |= ORTH_MASK[k]
    _NEAR[knights] = near
    return near


_NEAR: dict[tuple[int, ...], int] = {}
# Hands' worth by (hand, turns left, revealed).
_CARDS: dict[tuple[Any, ...], float] = {}
# Each player's castle terms by (board, knights, pieces next to them, king, phase,
# master card): (castle points, king's bonus, climb gain, master card estimate).
_TERMS: dict[tuple[Any, ...], tuple[int, int, float, float]] = {}
_TERMS_MAX = 1 << 15


def _climb_gain(
    knights: Sequence[int],
    h: Sequence[int],
    label: Sequence[int],
    areas: Sequence[int],
    best: dict[int, int],
    pieces: int,
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
            if pieces & BIT[n]:
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
    return relative_value(player_values(pos), pos.get("stage") == "over", me)


def evaluate_world(game: Any, me: str) -> float:
    """``evaluate(game.position(), me)``, without writing the position."""
    return relative_value(world_values(game), game._st.stage is _OVER, me)


def relative_value(
    vals: dict[str, float], over: bool, me: str, others_weight: float = 1.0
) -> float:
    """*me*'s worth in *vals* against the leader's and the field's, those two weighed
    *others_weight* times (the expert weighs them more); at the end, *over*: the margin
    over the best other, and a bonus for the win."""
    mine = vals[me]
    others = [v for p, v in vals.items() if p != me]
    if not others:
        return mine
    top = max(others)
    if over:
        return mine - top + (_WIN_BONUS if mine > top else 0.0)
    half = 0.5 * others_weight  # exactly 0.5 at weight 1: the shared value unchanged
    return mine - half * top - half * sum(others) / len(others)


def _master_estimate(
    card: str, q: int, knights: Sequence[int], h: Sequence[int], label: Sequence[int]
) -> float:
    """Points the master card would give these knights now, discounted if far off."""
    if card in FORMATION_POINTS:  # scored after phase 3 only
        # Counted in phase 3 only: one held earlier is rarely still held after phase 3
        # (the next knight or the next moves break it), and a share of its points then
        # made the players chase it (docs/expert-experiments.md, "Formations").
        return _FORMATION_SHARE * formation_points(card, knights, h) if q == 3 else 0.0
    step = {1: 2, 2: 5, 3: 10}[q]
    if card in ("border", "diagonal"):
        return 0.7 * step * zone_count(card, knights)
    if card == "castles":
        on = castles_held(knights, h, label)
        need = {1: 4, 2: 5, 3: 6}[q]
        pts = {1: 5, 2: 15, 3: 30}[q]
        return 0.8 * pts if on == need else 0.1 * pts * min(on, need) / need
    return 0.0
