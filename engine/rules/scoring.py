"""Scoring at the end of a phase (docs/rules.md §7) and the master cards (§8).

The point rules are pure functions of squares and heights, so that the computer
players' evaluation scores a position exactly as the game does.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..board import EDGE, MAIN_DIAGONALS, ORTH
from ..events import Event, GameOver, PhaseScored, Stage
from ..state import NOBODY, State
from .common import advance, castles
from .tables import KING_BONUS

# Master cards scored after phase 3 only, and their points (§8).
FORMATION_POINTS: dict[str, int] = {
    "levels": 40,
    "same-level": 50,
    "row": 50,
    "square": 50,
    "neighbors": 40,
}
PER_KNIGHT = (2, 5, 10)  # border, diagonal: points per knight after phase 1 / 2 / 3
CASTLES_NEEDED = (4, 5, 6)  # castles: exactly this many castles after phase 1 / 2 / 3 ...
CASTLES_POINTS = (5, 15, 30)  # ... scores this


def pending_phase(
    stage: str, phase: int, king_on_board: bool, rnd: int | None = None
) -> int | None:
    """The phase whose scoring is still to come (None once the game is over).

    During the king move after a scoring, ``phase`` still names the finished phase;
    in the setup's king placement (phase 1, round ``rnd`` 1) the king is not on the
    board yet. A king stage without the king at any other round is a king move after
    a scoring too (a position read from JSON may have no king).
    """
    if stage == Stage.OVER:
        return None
    if stage == Stage.KING and (king_on_board or (rnd is not None and (phase, rnd) != (1, 1))):
        return phase + 1 if phase < 3 else None
    return phase


def highest_levels(knights: Sequence[int], h: Sequence[int], comp: Sequence[int]) -> dict[int, int]:
    """Castle -> the level of the player's highest knight on it (knights on level 0 aside)."""
    best: dict[int, int] = {}
    for k in knights:
        lv = h[k]
        if lv >= 1:
            c = comp[k]
            if lv > best.get(c, 0):
                best[c] = lv
    return best


def castle_points(
    knights: Sequence[int], h: Sequence[int], comp: Sequence[int], area: Sequence[int]
) -> int:
    """§7.1: per castle, its area × the level of the player's highest knight on it (level ≥ 1)."""
    return points_of(highest_levels(knights, h, comp), area)


def points_of(best: dict[int, int], area: Sequence[int]) -> int:
    """Castle points of ``highest_levels``' result: per castle, area × level."""
    total = 0
    for c, lv in best.items():
        total += area[c] * lv
    return total


def king_bonus(
    knights: Sequence[int], h: Sequence[int], comp: Sequence[int], king: int | None, phase: int
) -> int:
    """§7.2: a knight on exactly level ``phase`` of the king's castle earns 5 / 10 / 15, once."""
    if king is None or h[king] <= 0:
        return 0
    kc = comp[king]
    for k in knights:
        if h[k] == phase and comp[k] == kc:
            return KING_BONUS[phase - 1]
    return 0


def formation_points(card: str, knights: Sequence[int], h: Sequence[int]) -> int:
    """Points of a phase-3 master card for one player's knights (0 if not met)."""
    ks = list(knights)
    if card == "square":
        return FORMATION_POINTS[card] if len(ks) >= 4 and has_square(ks) else 0
    if len(ks) < 2:  # "all your knights" needs at least 2 (engine ruling 13)
        return 0
    if card == "levels":
        met = len({h[k] for k in ks}) == len(ks)
    elif card == "same-level":
        met = len({h[k] for k in ks}) == 1
    elif card == "row":  # Ruling: one rank or one file, not a diagonal
        met = len({k % 8 for k in ks}) == 1 or len({k // 8 for k in ks}) == 1
    elif card == "neighbors":  # Ruling: one orthogonally connected group
        met = connected(ks)
    else:
        return 0
    return FORMATION_POINTS[card] if met else 0


def has_square(ks: Sequence[int]) -> bool:
    """Whether four of the squares ``ks`` are the corners of a square, tilted ones included."""
    have = {(s % 8, s // 8) for s in ks}
    for f, r in have:
        for g, q in have:
            dx, dy = g - f, q - r
            if (dx, dy) <= (0, 0):
                continue  # each side once, in one direction
            if (f - dy, r + dx) in have and (g - dy, q + dx) in have:
                return True
    return False


def connected(ks: Sequence[int]) -> bool:
    """Whether the squares ``ks`` form one orthogonally connected group."""
    group = set(ks)
    seen = {ks[0]}
    todo = [ks[0]]
    while todo:
        s = todo.pop()
        for t in ORTH[s]:
            if t in group and t not in seen:
                seen.add(t)
                todo.append(t)
    return len(seen) == len(group)


def zone_count(card: str, knights: Sequence[int]) -> int:
    """``border`` / ``diagonal``: how many of the knights stand in the card's zone."""
    zone = EDGE if card == "border" else MAIN_DIAGONALS
    return sum(1 for k in knights if k in zone)


def castles_held(knights: Sequence[int], h: Sequence[int], comp: Sequence[int]) -> int:
    """``castles``: how many different castles the knights stand on at level 1 or more."""
    return len({comp[k] for k in knights if h[k] >= 1})


def master_points(
    card: str, phase: int, knights: Sequence[Sequence[int]], h: Sequence[int], comp: Sequence[int]
) -> list[int]:
    """Points each seat earns from the master card at the scoring of ``phase`` (§8)."""
    n = len(knights)
    pts = [0] * n
    if card in ("border", "diagonal"):
        per = PER_KNIGHT[phase - 1]
        counts = [zone_count(card, knights[p]) for p in range(n)]
        for p in range(n):
            pts[p] = counts[p] * per
        best = max(counts)
        if best > 0 and counts.count(best) == 1:
            pts[counts.index(best)] += per
        return pts
    if card == "castles":
        for p in range(n):
            if castles_held(knights[p], h, comp) == CASTLES_NEEDED[phase - 1]:
                pts[p] = CASTLES_POINTS[phase - 1]
        return pts
    if phase == 3:
        for p in range(n):
            pts[p] = formation_points(card, knights[p], h)
    return pts


def score_phase(st: State, events: list[Event]) -> None:
    """§7: score the phase that just ended, then the king decision or the end of the game."""
    n = st.seats
    names = st.names
    order = [(st.phase_starter + i) % n for i in range(n)]
    cc = castles(st)
    h = st.heights
    points = {name: {"castles": 0, "king": 0, "master": 0} for name in names}
    for p in order:
        pts = castle_points(st.knights[p], h, cc.comp, cc.area)
        points[names[p]]["castles"] = pts
        advance(st, p, pts)
    for p in order:
        bonus = king_bonus(st.knights[p], h, cc.comp, st.king, st.phase)
        if bonus:
            points[names[p]]["king"] = bonus
            advance(st, p, bonus)
    if st.master is not None:
        earned = master_points(st.master, st.phase, st.knights, h, cc.comp)
        for p in order:
            points[names[p]]["master"] = earned[p]
            advance(st, p, earned[p])
    for p in range(n):
        st.supply += sum(st.stacks[p])
        st.stacks[p] = []
    st.clear_turn()
    scores = dict(zip(names, st.scores, strict=True))
    events.append(PhaseScored(st.phase, points, scores))
    if st.phase >= 3:
        st.stage = Stage.OVER
        st.to_move = NOBODY
        best = max(st.scores)
        winners = [name for name, s in zip(names, st.scores, strict=True) if s == best]
        events.append(GameOver(dict(scores), winners))
        return
    st.stage = Stage.KING
    st.to_move = min(order, key=lambda q: st.scores[q])
