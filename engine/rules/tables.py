"""Fixed tables of the rules (docs/rules.md §2, §3)."""

from __future__ import annotations

from ..board import SQUARE_INDEX

ROUNDS: dict[int, tuple[int, int, int]] = {2: (4, 4, 4), 3: (4, 3, 3), 4: (4, 3, 3)}
ALLOTMENT: dict[int, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {
    2: ((3, 3, 3, 3), (3, 3, 3, 3), (3, 3, 3, 3)),
    3: ((3, 3, 2, 2), (3, 3, 2), (3, 3, 2)),
    4: ((2, 2, 2, 2), (2, 2, 2), (2, 2, 2)),
}
START_SQUARES: tuple[int, ...] = tuple(
    SQUARE_INDEX[s] for s in ("d1", "c3", "f3", "h4", "a5", "c6", "f6", "e8")
)
DEFAULT_NAMES: tuple[str, ...] = ("red", "blue", "green", "yellow")
VARIANTS: tuple[str, ...] = ("common", "personal", "master")
TOTAL_BLOCKS = 92
MAX_KNIGHTS = 6
BASE_AP = 5
MAX_DRAWS = 2
MAX_STACK = 3
KING_BONUS = (5, 10, 15)
