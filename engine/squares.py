"""Squares as ints 0..63 (a1 = 0, h8 = 63), their names, neighbour tables and bit masks
(and the level masks of boards with absurdly tall towers)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


class _Ignored(list[int]):
    """A list that forgets what is put in it (reads 0 everywhere)."""

    __slots__ = ()

    def __getitem__(self, k: int) -> int:  # type: ignore[override]
        return 0

    def __setitem__(self, k: int, v: int) -> None:  # type: ignore[override]
        pass
