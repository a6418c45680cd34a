"""Squares, neighbour tables and castles; squares are ints 0..63 internally (a1 = 0, h8 = 63)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

FILES = "abcdefgh"
SQUARE_NAMES: tuple[str, ...] = tuple(f + str(r + 1) for r in range(8) for f in FILES)
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}
# Names sorted as strings, for output in a stable, readable order (a1, a2, ... h8).
SORTED_SQUARES: tuple[int, ...] = tuple(sorted(range(64), key=lambda i: SQUARE_NAMES[i]))


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


def manhattan(a: int, b: int) -> int:
    return abs(a % 8 - b % 8) + abs(a // 8 - b // 8)


def label_castles(h: Sequence[int]) -> tuple[list[int], list[int], list[int], list[list[int]]]:
    """The castles of a height array: (castle per square or -1, area, height, squares) per castle.

    The one flood fill of the project: the game's tables and the AI's evaluation use it.
    """
    comp = [-1] * 64
    area: list[int] = []
    height: list[int] = []
    members: list[list[int]] = []
    for start in range(64):
        if h[start] <= 0 or comp[start] >= 0:
            continue
        c = len(area)
        comp[start] = c
        todo = [start]
        squares = []
        top = 0
        while todo:
            s = todo.pop()
            squares.append(s)
            if h[s] > top:
                top = h[s]
            for t in ORTH[s]:
                if h[t] > 0 and comp[t] < 0:
                    comp[t] = c
                    todo.append(t)
        area.append(len(squares))
        height.append(top)
        members.append(squares)
    return comp, area, height, members


class Castles:
    """Connected components of a height array, with what move generation needs.

    Immutable once built: the game replaces it whenever a height changes, so undo
    snapshots may share it.
    """

    __slots__ = ("comp", "area", "height", "members", "doors", "adj", "build", "moveblock")

    def __init__(self, h: Sequence[int]) -> None:
        comp, area, height, members = label_castles(h)
        self.comp = comp
        self.area = area
        self.height = height
        self.members = members
        # adj[s]: the castles orthogonally next to square s (for bare squares: which
        # castles a block there would touch).  doors[c]: (v, m) for every square v next
        # to castle c with m = the tallest square of c next to v, when h[v] < m: a
        # knight may leave c onto v.
        adj: list[tuple[int, ...]] = [()] * 64
        doors: list[list[tuple[int, int]]] = [[] for _ in area]
        for v in range(64):
            best: dict[int, int] | None = None
            for u in ORTH[v]:
                cu = comp[u]
                if cu >= 0:
                    hu = h[u]
                    if best is None:
                        best = {cu: hu}
                    elif hu > best.get(cu, 0):
                        best[cu] = hu
            if best is None:
                continue
            adj[v] = tuple(sorted(best)) if len(best) > 1 else tuple(best)
            hv = h[v]
            for cu, m in best.items():
                if hv < m:
                    doors[cu].append((v, m))
        self.adj = adj
        self.doors = doors
        self.build: list[int] | None = None  # filled by the rules on first use
        # (occupants, {from: [to, ...]}) of the moveblock card, filled by the rules
        self.moveblock: tuple[tuple[int, ...], dict[int, list[int]]] | None = None

    def __len__(self) -> int:
        return len(self.area)

    def with_block(self, h: Sequence[int], s: int) -> Castles:
        """The tables after one block was added on s (``h`` already counts it).

        The block must not join two castles (no rule allows that); it lands on a castle,
        extends one or starts a new one.  Only that castle's entries change, so this is
        much cheaper than recomputing everything.
        """
        new = Castles.__new__(Castles)
        comp = self.comp
        area = self.area[:]
        height = self.height[:]
        members = self.members[:]
        doors = self.doors[:]
        adj = self.adj
        c = comp[s]
        if c < 0:
            comp = comp[:]
            adj = adj[:]
            touching = self.adj[s]
            if touching:
                c = touching[0]
                area[c] += 1
                members[c] = [*members[c], s]
            else:
                c = len(area)
                area.append(1)
                height.append(0)
                members.append([s])
                doors.append([])
            comp[s] = c
            for t in ORTH[s]:
                if c not in adj[t]:
                    adj[t] = tuple(sorted((*adj[t], c)))
        if h[s] > height[c]:
            height[c] = h[s]
        near: set[int] = set()
        for m in members[c]:
            near.add(m)
            near.update(ORTH[m])
        entries = []
        for v in sorted(near):
            top = 0
            for u in ORTH[v]:
                if comp[u] == c and h[u] > top:
                    top = h[u]
            if h[v] < top:
                entries.append((v, top))
        doors[c] = entries
        new.comp = comp
        new.area = area
        new.height = height
        new.members = members
        new.doors = doors
        new.adj = adj
        new.build = None
        new.moveblock = None
        return new


def castles(heights: Mapping[str, int]) -> list[frozenset[str]]:
    """The castles of a board given as square -> height: orthogonally connected squares of height >= 1."""
    from .errors import NotationError

    h = [0] * 64
    for name, value in heights.items():
        sq = SQUARE_INDEX.get(name.lower()) if isinstance(name, str) else None
        if sq is None:
            raise NotationError(f"{name!r} is not a square; squares run from a1 to h8.")
        if isinstance(value, bool) or not isinstance(value, int):
            raise NotationError(f"The height of {name} must be a whole number, not {value!r}.")
        h[sq] = value
    cs = Castles(h)
    return [frozenset(SQUARE_NAMES[s] for s in m) for m in cs.members]
