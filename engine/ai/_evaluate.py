"""Static evaluation of a position for the computer players.

The evaluation estimates what each player's score will be worth at the end of the
game: the points already on the track, plus the castle points and king's bonus the
position would score if the pending phase ended now (weighted up when more scorings
follow, since a good position tends to keep scoring), plus half of what the best
step up within reach would add (a knight next to a free square one level higher:
without this term the players never build the steps they later climb, and lose
92% of games to players with it), plus small terms for what the player can still
use (knights on the board, cards in hand, action points left in the turn). It reads a position dict (NOTATION.md) so that it works on the
sampled positions the players search, never on hidden information.
"""

from __future__ import annotations

from typing import Any

_FILES = "abcdefgh"
SQUARES: tuple[str, ...] = tuple(f + r for r in "12345678" for f in _FILES)
INDEX: dict[str, int] = {sq: i for i, sq in enumerate(SQUARES)}


def _neighbours(i: int) -> tuple[int, ...]:
    f, r = i % 8, i // 8
    out = []
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nf, nr = f + df, r + dr
        if 0 <= nf < 8 and 0 <= nr < 8:
            out.append(nr * 8 + nf)
    return tuple(out)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(64))

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


_CASTLE_CACHE: dict[frozenset, tuple[dict[int, int], list[int], list[int]]] = {}


def castle_map(heights: dict[str, int]) -> tuple[dict[int, int], list[int], list[int]]:
    """Label castles: square index -> castle id, plus each castle's area and height.

    Cached: within a turn most actions move knights and leave the heights alone.
    """
    key = frozenset(heights.items())
    hit = _CASTLE_CACHE.get(key)
    if hit is None:
        if len(_CASTLE_CACHE) > 4096:
            _CASTLE_CACHE.clear()
        hit = _CASTLE_CACHE[key] = _castle_map(heights)
    return hit


def _castle_map(heights: dict[str, int]) -> tuple[dict[int, int], list[int], list[int]]:
    tall = {INDEX[sq]: h for sq, h in heights.items() if h > 0}
    label: dict[int, int] = {}
    areas: list[int] = []
    tops: list[int] = []
    for start in tall:
        if start in label:
            continue
        cid = len(areas)
        label[start] = cid
        todo = [start]
        area = 0
        top = 0
        while todo:
            i = todo.pop()
            area += 1
            top = max(top, tall[i])
            for n in NEIGHBOURS[i]:
                if n in tall and n not in label:
                    label[n] = cid
                    todo.append(n)
        areas.append(area)
        tops.append(top)
    return label, areas, tops


def pending_phase(pos: dict[str, Any]) -> int | None:
    """The phase whose scoring has not happened yet (None once the game is over)."""
    stage = pos.get("stage", "play")
    if stage == "over":
        return None
    phase = int(pos.get("phase", 1))
    # After a phase's scoring the king stage still names the finished phase; in the
    # setup king stage the king is not on the board yet.
    if stage == "king" and pos.get("king") is not None:
        return phase + 1 if phase < 3 else None
    return phase


def castle_points(pos: dict[str, Any]) -> dict[str, int]:
    """Castle points each player would score if the phase ended now (RULES.md §7.1)."""
    heights = pos.get("heights") or {}
    label, areas, _ = castle_map(heights)
    out = {}
    for p in pos["players"]:
        best: dict[int, int] = {}
        for sq in (pos.get("knights") or {}).get(p, []):
            h = heights.get(sq, 0)
            if h >= 1:
                c = label[INDEX[sq]]
                if h > best.get(c, 0):
                    best[c] = h
        out[p] = sum(areas[c] * lvl for c, lvl in best.items())
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
    label, areas, _ = castle_map(heights)
    king_castle = label.get(INDEX[king]) if king else None
    later = 3 - q  # scorings after the pending one
    w_castle = 1.0 + _LATER_CASTLE * later
    w_knight = _LATER_KNIGHT * later + _BASE_KNIGHT
    turn = pos.get("turn") or {}
    to_move = pos.get("to_move")
    out: dict[str, float] = {}
    master = pos.get("master_card")
    occupied = {INDEX[sq] for squares in knights.values() for sq in squares}
    if king:
        occupied.add(INDEX[king])
    for p in players:
        mine = knights.get(p, [])
        best: dict[int, int] = {}
        king_bonus = 0
        for sq in mine:
            h = heights.get(sq, 0)
            if h >= 1:
                c = label[INDEX[sq]]
                if h > best.get(c, 0):
                    best[c] = h
                if c == king_castle and h == q:
                    king_bonus = 5 * q
        cpts = sum(areas[c] * lvl for c, lvl in best.items())
        value = float(scores.get(p, 0)) + w_castle * cpts + king_bonus + w_knight * len(mine)
        if _POTENTIAL and mine:
            value += (
                _POTENTIAL * w_castle * _climb_gain(mine, heights, label, areas, best, occupied)
            )
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
            value += _master_estimate(master, q, mine, heights, label)
        out[p] = value
    if to_move in out and pos.get("stage") in ("play", "draw-keep"):
        out[to_move] += _AP_VALUE * int(turn.get("ap") or 0)
    return out


def _climb_gain(
    squares: list[str],
    heights: dict[str, int],
    label: dict[int, int],
    areas: list[int],
    best: dict[int, int],
    occupied: set[int],
) -> float:
    """What stepping up once would add: the best such step, plus a little of the others.

    A knight next to a square one level higher (or a castle it could climb onto)
    can score more next turn; this rewards building the steps one climbs.
    """
    gains = []
    for sq in squares:
        i = INDEX[sq]
        level = heights.get(sq, 0)
        top = 0
        for n in NEIGHBOURS[i]:
            if n in occupied:
                continue
            h = heights.get(SQUARES[n], 0)
            if h < 1 or h > level + 1:
                continue
            c = label[n]
            gain = areas[c] * (h - best.get(c, 0))
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
    vals = player_values(pos)
    mine = vals[me]
    others = [v for p, v in vals.items() if p != me]
    if not others:
        return mine
    top = max(others)
    if pos.get("stage") == "over":
        return mine - top + (_WIN_BONUS if mine > top else 0.0)
    return mine - 0.5 * top - 0.5 * sum(others) / len(others)


_LAST = {"levels", "same-level", "row", "square", "neighbors"}


def _master_estimate(
    card: str, q: int, squares: list[str], heights: dict[str, int], label: dict[int, int]
) -> float:
    """Points the master card would give these knights now, discounted if far off."""
    n = len(squares)
    if card in _LAST:
        weight = {1: 0.2, 2: 0.4, 3: 0.9}[q]
        if n < 2:
            return 0.0
        levels = [heights.get(sq, 0) for sq in squares]
        files = {sq[0] for sq in squares}
        ranks = {sq[1] for sq in squares}
        ok = False
        points = 0
        if card == "levels":
            ok, points = len(set(levels)) == n, 40
        elif card == "same-level":
            ok, points = len(set(levels)) == 1, 50
        elif card == "row":
            ok, points = len(files) == 1 or len(ranks) == 1, 50
        elif card == "square":
            points = 50
            have = {(INDEX[sq] % 8, INDEX[sq] // 8) for sq in squares}
            ok = any(
                (f + d, r) in have and (f, r + d) in have and (f + d, r + d) in have
                for f, r in have
                for d in range(1, 8)
            )
        elif card == "neighbors":
            points = 40
            idx = {INDEX[sq] for sq in squares}
            seen = {next(iter(idx))}
            todo = list(seen)
            while todo:
                i = todo.pop()
                for nb in NEIGHBOURS[i]:
                    if nb in idx and nb not in seen:
                        seen.add(nb)
                        todo.append(nb)
            ok = len(seen) == n
        return weight * points if ok else 0.0
    step = {1: 2, 2: 5, 3: 10}[q]
    if card == "border":
        count = sum(1 for sq in squares if sq[0] in "ah" or sq[1] in "18")
        return 0.7 * step * count
    if card == "diagonal":
        count = 0
        for sq in squares:
            f, r = INDEX[sq] % 8, INDEX[sq] // 8
            if f == r or f + r == 7:
                count += 1
        return 0.7 * step * count
    if card == "castles":
        on = {label[INDEX[sq]] for sq in squares if heights.get(sq, 0) >= 1}
        need = {1: 4, 2: 5, 3: 6}[q]
        pts = {1: 5, 2: 15, 3: 30}[q]
        return 0.8 * pts if len(on) == need else 0.1 * pts * min(len(on), need) / need
    return 0.0
