"""Squares, neighbour tables and castles; squares are ints 0..63 internally (a1 = 0, h8 = 63)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress

FILES = "abcdefgh"
SQUARE_NAMES: tuple[str, ...] = tuple(f + str(r + 1) for r in range(8) for f in FILES)
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}
# Names sorted as strings, for output in a stable, readable order (a1, a2, ... h8).
SORTED_SQUARES: tuple[int, ...] = tuple(sorted(range(64), key=lambda i: SQUARE_NAMES[i]))
# NAME_RANK[s]: the place of s in that order (a sort key for squares as ints).
NAME_RANK: tuple[int, ...] = tuple(SORTED_SQUARES.index(s) for s in range(64))


def _offsets(deltas: Iterable[tuple[int, int]]) -> tuple[tuple[int, ...], ...]:
    table = []
    for sq in range(64):
        f, r = sq % 8, sq // 8
        table.append(
            tuple((r + dr) * 8 + f + df for df, dr in deltas if 0 <= f + df < 8 and 0 <= r + dr < 8)
        )
    return tuple(table)


ORTH: tuple[tuple[int, ...], ...] = _offsets(((0, 1), (1, 0), (0, -1), (-1, 0)))
DIAG: tuple[tuple[int, ...], ...] = _offsets(((1, 1), (1, -1), (-1, -1), (-1, 1)))
# (over, landing) pairs for a straight orthogonal jump of two squares.
VAULTS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(
        ((sq // 8 + dr) * 8 + sq % 8 + df, (sq // 8 + 2 * dr) * 8 + sq % 8 + 2 * df)
        for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0))
        if 0 <= sq % 8 + 2 * df < 8 and 0 <= sq // 8 + 2 * dr < 8
    )
    for sq in range(64)
)
EDGE: frozenset[int] = frozenset(sq for sq in range(64) if sq % 8 in (0, 7) or sq // 8 in (0, 7))
MAIN_DIAGONALS: frozenset[int] = frozenset(
    sq for sq in range(64) if sq % 8 == sq // 8 or sq % 8 + sq // 8 == 7
)


# Bit masks of squares: square s is bit NAME_RANK[s], so that a mask's bits from the
# lowest up are its squares in the order of their names (the legal-action order).
BIT: tuple[int, ...] = tuple(1 << NAME_RANK[s] for s in range(64))
ALL = (1 << 64) - 1
ORTH_MASK: tuple[int, ...] = tuple(sum(BIT[t] for t in ORTH[s]) for s in range(64))
# BY_LENGTH[m.bit_length()]: the square of the single bit m (index 0 unused).
BY_LENGTH: tuple[int, ...] = (-1, *SORTED_SQUARES)


def mask_of(squares: Iterable[int]) -> int:
    m = 0
    for s in squares:
        m |= BIT[s]
    return m


def squares_of(m: int) -> list[int]:
    """The squares of mask ``m`` in the order of their names."""
    out = []
    while m:
        low = m & -m
        out.append(BY_LENGTH[low.bit_length()])
        m ^= low
    return out


_NOT_TOP = ALL & ~sum(BIT[s] for s in range(56, 64))  # rank 8: no square above
_NOT_BOTTOM = ALL & ~sum(BIT[s] for s in range(8))  # rank 1: no square below


def around(m: int) -> int:
    """The squares orthogonally next to a square of mask ``m`` (``m``'s own included
    only where they are next to another of its squares)."""
    return ((m & _NOT_TOP) << 1) | ((m & _NOT_BOTTOM) >> 1) | ((m << 8) & ALL) | (m >> 8)


def manhattan(a: int, b: int) -> int:
    return abs(a % 8 - b % 8) + abs(a // 8 - b // 8)


def label_castles(h: Sequence[int]) -> tuple[list[int], list[int], list[int], list[list[int]]]:
    """The castles of a height array: (castle per square or -1, area, height, squares) per castle.

    For the moveblock card and the AI's evaluation.  ``Castles`` runs its own fill (gathering
    each castle's mask and the squares by height on the way): faster on fresh boards.
    """
    comp = [-1] * 64
    area: list[int] = []
    height: list[int] = []
    members: list[list[int]] = []
    for start in compress(range(64), h):  # squares of height 0 aside at C speed
        if comp[start] >= 0 or h[start] < 0:
            continue
        c = len(area)
        comp[start] = c
        squares = [start]
        top = h[start]
        for s in squares:  # grows while it is read: a breadth-first search
            for t in ORTH[s]:
                if comp[t] < 0:
                    ht = h[t]
                    if ht > 0:
                        comp[t] = c
                        squares.append(t)
                        if ht > top:
                            top = ht
        area.append(len(squares))
        height.append(top)
        members.append(squares)
    return comp, area, height, members


_LEVELS_MAX = 1024  # towers taller than this (the notation allows them) get _Levels


class _Levels(list[int]):
    """``Castles.le`` of a board with an absurdly tall tower: each level worked out
    when asked (a list as long as the tower would not fit in memory)."""

    __slots__ = ("h",)

    def __init__(self, h: Sequence[int]) -> None:
        super().__init__()
        self.h = tuple(h)

    def __getitem__(self, k: int) -> int:  # type: ignore[override]
        return mask_of([s for s, x in enumerate(self.h) if x <= k])


class Castles:
    """Connected components of a height array, with what move generation needs.

    Immutable once built (the rules' caches aside): the game replaces it whenever a
    height changes, so undo snapshots and copies may share it.  ``adj[v]``: the
    castles orthogonally next to the bare square v (which castles a block there would
    touch; () for squares of castles).  ``front[c]``: the mask of the bare squares
    touching castle c and no other; ``member_mask[c]``: the mask of c's squares.
    ``le[k]``: the mask of the squares of height k or less (for every k up to
    ``top`` + 1, ``top`` no lower than the tallest square).  Doors are worked out per castle on first use.
    """

    __slots__ = (
        "comp",
        "area",
        "height",
        "members",
        "member_mask",
        "_adj",
        "front",
        "le",
        "top",
        "_low",
        "build",
        "reach",
        "reach_keys",
        "moveblock",
    )

    def __init__(self, h: Sequence[int]) -> None:
        comp = [-1] * 64
        area: list[int] = []
        height: list[int] = []
        members: list[list[int]] = []
        masks: list[int] = []
        self.top = top_all = max(h)
        small = top_all <= _LEVELS_MAX
        le = [0] * (top_all + 2 if small else 1)  # squares of each height, summed up below
        blocks = 0
        for start in compress(range(64), h):  # squares of height 0 aside at C speed
            if comp[start] >= 0 or h[start] < 0:
                continue
            c = len(area)
            comp[start] = c
            squares = [start]
            top = h[start]
            m = 0
            for s in squares:  # grows while it is read: a breadth-first search
                b = BIT[s]
                m |= b
                if small:
                    le[h[s]] |= b
                for t in ORTH[s]:
                    if comp[t] < 0:
                        ht = h[t]
                        if ht > 0:
                            comp[t] = c
                            squares.append(t)
                            if ht > top:
                                top = ht
            area.append(len(squares))
            height.append(top)
            members.append(squares)
            masks.append(m)
            blocks |= m
        self.comp = comp
        self.area = area
        self.height = height
        self.members = members
        self.member_mask = masks
        bare = ALL & ~blocks
        if small:
            below = bare  # height 0
            for k in range(1, len(le)):
                le[k - 1] = below
                below |= le[k]
            le[-1] = below
            self.le = le
        else:
            self.le = _Levels(h)
        # The bare squares next to each castle; those next to two or more are no frontier.
        once = twice = 0
        near = []
        for m in masks:
            n = (
                ((m & _NOT_TOP) << 1) | ((m & _NOT_BOTTOM) >> 1) | ((m << 8) & ALL) | (m >> 8)
            ) & bare
            twice |= once & n
            once |= n
            near.append(n)
        self.front = [n & ~twice for n in near]
        self._adj: list[tuple[int, ...]] | None = None
        # per castle {level: the mask of its doors so low}, shared by the tables of later
        # boards while that castle is unchanged
        self._low: list[dict[int, int] | None] = [None] * len(area)
        self.build: int | None = None  # the mask of block squares, filled by the rules
        self.reach: dict[int, int] = {}  # the mask of knight moves by start, ditto
        self.reach_keys = 0  # the mask of the squares in ``reach``
        # (pieces, {from: mask of to}, its plays) of the moveblock card, filled by the rules
        self.moveblock: tuple[int, dict[int, int], list[str]] | None = None

    @property
    def adj(self) -> list[tuple[int, ...]]:
        """``adj[v]``: the castles next to the bare square v, in order (worked out on
        first use)."""
        adj = self._adj
        if adj is None:
            adj = [()] * 64
            single = 0
            for c, m in enumerate(self.front):  # next to castle c alone
                single |= m
                for v in squares_of(m):
                    adj[v] = (c,)
            comp = self.comp
            blocks = ALL & ~self.le[0]
            for v in squares_of(around(blocks) & ~blocks & ~single):  # next to two or more
                adj[v] = tuple(sorted({comp[t] for t in ORTH[v] if comp[t] >= 0}))
            self._adj = adj
        return adj

    def __len__(self) -> int:
        return len(self.area)

    def doors_up_to(self, h: Sequence[int], c: int, level: int) -> int:
        """The mask of the doors of castle c no higher than ``level`` (knights at one
        level near one castle share them)."""
        low = self._low[c]
        if low is None:
            low = self._low[c] = {}
        found = low.get(level)
        if found is None:
            le = self.le
            if level:
                found = 0
                for m in self.members[c]:
                    hm = h[m]
                    found |= ORTH_MASK[m] & le[hm - 1 if hm <= level else level]
            else:  # from the ground: every bare square next to the castle
                found = around(self.member_mask[c]) & le[0]
            low[level] = found
        return found


def castles(heights: Mapping[str, int]) -> list[frozenset[str]]:
    """The castles of a board given as square -> height: orthogonally connected squares of height >= 1."""
    from .errors import notation_error

    h = [0] * 64
    for name, value in heights.items():
        sq = SQUARE_INDEX.get(name.lower()) if isinstance(name, str) else None
        if sq is None:
            raise notation_error("castles_not_a_square", value=repr(name))
        if isinstance(value, bool) or not isinstance(value, int):
            raise notation_error("castles_bad_height", square=name, value=repr(value))
        h[sq] = value
    cs = Castles(h)
    return [frozenset(SQUARE_NAMES[s] for s in m) for m in cs.members]
