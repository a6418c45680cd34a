"""The "move a tower block" card (docs/rules.md §6, engine ruling 17): its legal
plays, its refusals and its effect.  Its own module: finding every legal move of
a block, fast, is the most work of any card."""

from __future__ import annotations

from ..board import (
    ALL,
    BIT,
    BY_LENGTH,
    ORTH,
    ORTH_MASK,
    SORTED_SQUARES,
    SQUARE_NAMES,
    Castles,
    around,
    label_castles,
)
from ..castle_steps import lowered
from ..errors import IllegalAction
from ..notation import Action
from ..state import EMPTY, KING, State
from .common import BYTE_BITS, N, add_block, castles, illegal, need_empty

_MOVEBLOCK = [
    [f"play moveblock {SQUARE_NAMES[a]} {SQUARE_NAMES[b]}" for b in range(64)] for a in range(64)
]
# _BY_LENGTH[A][m.bit_length()]: the text of ``play moveblock A B``, m the bit of B
_BY_LENGTH = [["", *(row[b] for b in SORTED_SQUARES)] for row in _MOVEBLOCK]


def targets(st: State) -> dict[int, int]:
    """Every legal ``play moveblock A B`` as {A: the mask of the B} (docs/rules.md §6).

    Works on the current castle labels: taking a block off a square changes only
    that square's castle (and the bare squares next to it, if it becomes bare), so
    destinations are grouped by the castle they land on or extend.
    """
    cc = castles(st)
    found = cc.moveblock
    if found is None or found[0] != st.pieces:
        found = _targets(st, cc)
    return found[1]


def _targets(st: State, cc: Castles) -> tuple[int, dict[int, int], list[str]]:
    """``targets`` (as masks) and ``plays`` worked out, kept with the castle tables
    (they depend on the heights and on which squares hold a piece)."""
    h = st.heights
    comp, area, height, members = cc.comp, cc.area, cc.height, cc.members
    masks, front, le, top = cc.member_mask, cc.front, cc.le, cc.top
    free = ALL & ~st.pieces
    n_before = len(area)
    bad_base = {c for c in range(n_before) if height[c] > area[c]}
    # per castle: the empty squares on it and the empty bare squares next to it alone
    # (every destination on or next to it), and those fine while it is unchanged
    on = [m & free for m in masks]
    beside = [m & free for m in front]
    groups = []
    for c in range(n_before):
        a_c = area[c]
        g = 0
        if height[c] <= a_c:
            g = on[c] & le[a_c - 1 if a_c <= top else top]
        if height[c] <= a_c + 1:
            g |= beside[c]
        groups.append(g)
    every_group = 0
    for g in groups:
        every_group |= g
    # per castle: how many of its squares are as tall as it (one block off one of them
    # leaves it that tall only if there are others)
    tallest = [0] * n_before
    for c, ms in enumerate(members):
        hc = height[c]
        tallest[c] = sum(1 for s in ms if h[s] == hc)
    blocks = ALL & ~le[0]
    fresh = le[0] & free & ~around(blocks)  # bare squares touching no castle
    out: dict[int, int] = {}
    texts: list[str] = []
    sources = blocks & free
    while sources:
        low = sources & -sources
        sources ^= low
        a = BY_LENGTH[low.bit_length()]
        ha = h[a]
        ca = comp[a]
        height_a = height[ca]  # the castle's height with one block less on a
        if ha == height_a and tallest[ca] == 1:
            height_a -= 1  # a was its one tallest square (and is still, or the castle goes)
        if ha >= 2:
            area_a = area[ca]
            n2 = n_before
            gone = False
        else:
            area_a = area[ca] - 1
            if area_a > 0 and _is_cut(a, members[ca], comp):
                continue
            n2 = n_before if area_a > 0 else n_before - 1
            gone = True
        bad = bad_base - {ca}
        if height_a > area_a:
            bad.add(ca)
        if len(bad) > 1 or n2 < 5:
            continue
        bad_c = next(iter(bad)) if bad else -1
        targets = 0
        if n2 >= 6:
            if bad_c < 0:
                targets = every_group & ~groups[ca]
            elif bad_c != ca:
                targets = groups[bad_c]
            if bad_c < 0 or bad_c == ca:
                if height_a <= area_a and area_a > 0:
                    targets |= on[ca] & le[area_a - 1 if area_a <= top else top] & ~low
                if height_a <= area_a + 1:
                    targets |= beside[ca]
        if bad_c < 0:
            targets |= fresh
        if gone:
            near = ORTH_MASK[a] & le[0] & free
            if near:
                targets &= ~near
                for b in ORTH[a]:
                    if not BIT[b] & near:
                        continue
                    touch = {comp[t] for t in ORTH[b] if t != a and comp[t] >= 0}
                    if not touch:
                        if bad_c < 0:
                            targets |= BIT[b]
                    elif len(touch) == 1 and n2 >= 6:
                        (c,) = touch
                        if bad_c >= 0 and bad_c != c:
                            continue
                        if c == ca:
                            if height_a <= area_a + 1:
                                targets |= BIT[b]
                        elif height[c] <= area[c] + 1:
                            targets |= BIT[b]
        if targets:
            out[a] = targets
            key = a << 11
            for byte in targets.to_bytes(8, "little"):
                if byte:
                    texts += _TEXTS.get(key | byte) or _texts_of(key | byte)
                key += 256  # the next file
    found = cc.moveblock = (st.pieces, out, texts)
    return found


# The texts of the moves of a block from one square to the squares of one byte of a
# mask (one file): (from << 11 | file << 8 | byte) -> texts, filled on first use.
_TEXTS: dict[int, tuple[str, ...]] = {}
_TEXTS_MAX = 1 << 16


def _texts_of(key: int) -> tuple[str, ...]:
    if len(_TEXTS) >= _TEXTS_MAX:
        _TEXTS.clear()
    row = _BY_LENGTH[key >> 11]
    first = 8 * (key >> 8 & 7)
    out = []
    for i in BYTE_BITS[key & 255]:
        out.append(row[first + i])
    found = _TEXTS[key] = tuple(out)
    return found


def plays(st: State) -> list[str]:
    """Every ``play moveblock A B``, sorted (the list is kept: do not change it)."""
    cc = castles(st)
    found = cc.moveblock
    if found is None or found[0] != st.pieces:
        found = _targets(st, cc)
    return found[2]


def effect(st: State, a: Action) -> None:
    src, dst = a[2], a[3]
    h = st.heights
    if h[src] == 0:
        raise illegal(a, "moveblock_no_block", square=N[src])
    if st.occupant[src] != EMPTY:
        raise _occupied(st, a, src)
    if dst == src:
        raise illegal(a, "moveblock_same_square")
    need_empty(st, a, dst)
    if not targets(st).get(src, 0) & BIT[dst]:
        _explain(st, a, src, dst)
    h = st.heights = h[:]  # copied, never changed in place (see State)
    h[src] -= 1
    cc = st.castles
    if cc is not None and h[src] > 0:  # the castles keep their squares: follow cheaply
        st.castles = lowered(cc, h, src)
        add_block(st, dst)
    else:
        h[dst] += 1
        st.castles = None


def _occupied(st: State, a: Action, src: int) -> IllegalAction:
    """The refusal of a block with a piece on it.

    The English text starts with the piece, the name of another player's knight
    capitalized as it always was (``str.capitalize``): ``player`` is given so.
    """
    o = st.occupant[src]
    if o == KING:
        return illegal(a, "moveblock_under_king", square=N[src])
    if o == st.to_move:
        return illegal(a, "moveblock_under_own", square=N[src])
    return illegal(a, "moveblock_under_knight", square=N[src], player=st.names[o].capitalize())


def _explain(st: State, a: Action, src: int, dst: int) -> None:
    h = st.heights[:]
    cc = castles(st)
    n_before = len(cc.area)
    h[src] -= 1
    comp2, area2, _height2, _m2 = label_castles(h)
    if h[src] == 0 and len(area2) > (n_before if cc.area[cc.comp[src]] > 1 else n_before - 1):
        raise illegal(a, "moveblock_splits", square=N[src])
    if h[dst] == 0:
        touch = {comp2[t] for t in ORTH[dst] if comp2[t] >= 0}
        if len(touch) > 1:
            raise illegal(a, "moveblock_joins", square=N[dst])
    h[dst] += 1
    comp3, area3, height3, _m3 = label_castles(h)
    if len(area3) < 6:
        raise illegal(a, "moveblock_too_few_castles", castles=len(area3))
    for c in range(len(area3)):
        if height3[c] > area3[c]:
            sq = next(s for s in range(64) if comp3[s] == c and h[s] == height3[c])
            raise illegal(a, "moveblock_too_tall", square=N[sq], height=height3[c], area=area3[c])
    raise illegal(a, "moveblock_not_there", src=N[src], dst=N[dst])


def _is_cut(a: int, castle: list[int], comp: list[int]) -> bool:
    """Whether the castle ``castle`` (which holds a) falls apart without square a."""
    c = comp[a]
    near = [t for t in ORTH[a] if comp[t] == c]
    if len(near) <= 1:
        return False
    seen = {a, near[0]}
    todo = [near[0]]
    while todo:
        s = todo.pop()
        for t in ORTH[s]:
            if comp[t] == c and t not in seen:
                seen.add(t)
                todo.append(t)
    return len(seen) < len(castle)
