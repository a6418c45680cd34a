"""Castles (and, from ``engine.squares``, the squares, neighbour tables and bit masks)."""

from __future__ import annotations

from collections.abc import Mapping, MutableSequence, Sequence
from itertools import compress

from .squares import (
    _LEVELS_MAX,
    _NOT_BOTTOM,
    _NOT_TOP,
    ALL,
    BIT,
    BY_LENGTH,
    DIAG,
    EDGE,
    FILES,
    MAIN_DIAGONALS,
    NAME_RANK,
    ORTH,
    ORTH_MASK,
    SORTED_SQUARES,
    SQUARE_INDEX,
    SQUARE_NAMES,
    VAULTS,
    _Ignored,
    _Levels,
    around,
    manhattan,
    mask_of,
    squares_of,
)

__all__ = [
    "FILES",
    "SQUARE_NAMES",
    "SQUARE_INDEX",
    "SORTED_SQUARES",
    "NAME_RANK",
    "ORTH",
    "DIAG",
    "VAULTS",
    "EDGE",
    "MAIN_DIAGONALS",
    "BIT",
    "ALL",
    "ORTH_MASK",
    "BY_LENGTH",
    "mask_of",
    "squares_of",
    "around",
    "manhattan",
    "Castles",
    "castles",
    "label_castles",
]


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


class Castles:
    """Connected components of a height array (no height below 0), with what move
    generation needs.

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
        # le: the squares of each height, summed up below; room for heights up to 63
        # (no max(h) to read first), else once more with the room the tallest needs
        size = 66
        while True:
            comp = [-1] * 64
            area: list[int] = []
            height: list[int] = []
            members: list[list[int]] = []
            masks: list[int] = []
            nears: list[int] = []  # per castle: its squares' neighbours, its own included
            # a Sequence, not a list, for the compiled core: squares._Ignored (and later
            # _Levels) subclass list, and compiled code indexes a list's items directly
            le: MutableSequence[int] = (
                [0] * size if size <= _LEVELS_MAX + 2 else _Ignored()  # _Levels later
            )
            left = list(h)  # not 0: a square with blocks not yet in a castle
            blocks = 0
            try:
                # compress() reads ``left`` as it goes: the squares of castles already
                # filled are passed over at C speed
                for c, start in enumerate(compress(range(64), left)):
                    left[start] = 0
                    comp[start] = c
                    squares = [start]
                    top = h[start]
                    m = near = 0
                    for s in squares:  # grows while it is read: a breadth-first search
                        b = BIT[s]
                        m |= b
                        near |= ORTH_MASK[s]
                        le[h[s]] |= b
                        for t in ORTH[s]:
                            if left[t]:
                                left[t] = 0
                                comp[t] = c
                                squares.append(t)
                                if h[t] > top:
                                    top = h[t]
                    area.append(len(squares))
                    height.append(top)
                    members.append(squares)
                    masks.append(m)
                    nears.append(near)
                    blocks |= m
                break
            except IndexError:  # a tower taller than 63
                size = max(h) + 2
        self.top = top_all = max(height, default=0)  # no height below 0
        small = top_all <= _LEVELS_MAX
        self.comp = comp
        self.area = area
        self.height = height
        self.members = members
        self.member_mask = masks
        bare = ALL & ~blocks
        if small:
            del le[top_all + 2 :]  # le[k] for every k up to top + 1
            below = bare  # height 0
            for k in range(1, len(le)):
                le[k - 1] = below
                below |= le[k]
            le[-1] = below
            self.le: Sequence[int] = le
        else:
            self.le = _Levels(h)
        # The bare squares next to each castle; those next to two or more are no frontier.
        # On the way, the squares where a block may go by the building rules
        # (rules.common.build_mask): a castle's squares lower than its area while it is
        # no taller, and its frontier while it is at most one taller.
        levels = self.le
        once = twice = build = beside = 0
        for n, m, a, hc in zip(nears, masks, area, height, strict=True):
            twice |= once & n  # no castle square is next to another castle
            once |= n
            if hc <= a + 1:
                beside |= n
                if hc < a:
                    build |= m
                elif hc == a:
                    build |= m & levels[a - 1]
        alone = bare & ~twice
        self.front = [n & alone for n in nears]
        self.build: int | None = build | beside & alone  # None: worked out on first use
        self._adj: list[tuple[int, ...]] | None = None
        # per castle {level: the mask of its doors so low}, shared by the tables of later
        # boards while that castle is unchanged
        self._low: list[dict[int, int] | None] = [None] * len(area)
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
                m = self.member_mask[c]  # around(m), le[0] in ALL
                found = (
                    ((m & _NOT_TOP) << 1) | ((m & _NOT_BOTTOM) >> 1) | (m << 8) | (m >> 8)
                ) & le[0]
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
        h[sq] = value if value > 0 else 0  # none below ground
    cs = Castles(h)
    return [frozenset(SQUARE_NAMES[s] for s in m) for m in cs.members]
