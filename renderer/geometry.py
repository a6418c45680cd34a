"""Where things go on the canvas.

Public so that tests (and ``renderer.replay``) can compute, independently of the
drawing code, the pixel where a square, a block or a piece must appear.

The 3D view looks at the board from the a1 corner: a1 is the front (bottom)
corner, h1 the right corner, a8 the left corner and h8 the back (top) corner.
The top-down map beside it is oriented like a chess diagram (a1 bottom-left).
"""

from __future__ import annotations

from collections.abc import Mapping

FILES = "abcdefgh"
RANKS = "12345678"
SQUARES: tuple[str, ...] = tuple(f + r for r in RANKS for f in FILES)

#: Canvas size in pixels (width, height): near-square so a phone shows it large.
CANVAS_SIZE = (1000, 1400)
WIDTH, HEIGHT = CANVAS_SIZE

#: Header band at the top (phase, round, whose turn).
HEADER_HEIGHT = 88

# --- 3D view -----------------------------------------------------------------
#: Half the width and half the height of one square's diamond in the 3D view.
ISO_HALF_W = 56
ISO_HALF_H = 28
#: Screen position of the front (bottom) corner of a1.
ISO_ORIGIN = (WIDTH // 2, 664)
#: Height in pixels of one block when the board is not too tall to fit.
LEVEL_HEIGHT_MAX = 24.0
LEVEL_HEIGHT_MIN = 6.0
#: Highest screen y a tower top may reach.
ISO_TOP_LIMIT = HEADER_HEIGHT + 14
#: How far above the top face a knight's marker centre floats.
TOKEN_LIFT = 30
TOKEN_RADIUS = 22

# --- top-down map -------------------------------------------------------------
MAP_CELL = 60
MAP_ORIGIN = (46, 710)  # top-left corner of a8
MAP_SIZE = 8 * MAP_CELL

# --- side panel ---------------------------------------------------------------
PANEL_BOX = (MAP_ORIGIN[0] + MAP_SIZE + 30, 702, WIDTH - 14, MAP_ORIGIN[1] + MAP_SIZE + 30)
#: Full-width footer under the map and panel (master card, own hand, legend).
FOOTER_BOX = (14, MAP_ORIGIN[1] + MAP_SIZE + 36, WIDTH - 14, HEIGHT - 6)


def square_coords(square: str) -> tuple[int, int]:
    """Return (file index, rank index), both 0-7, of a square name like ``"c3"``."""
    if len(square) != 2 or square[0] not in FILES or square[1] not in RANKS:
        raise ValueError(f"{square!r} is not a square (a1 to h8).")
    return FILES.index(square[0]), RANKS.index(square[1])


def iso_point(u: float, v: float, z: float = 0.0) -> tuple[float, float]:
    """Screen position of board point (u files, v ranks from a1's corner), z pixels up."""
    x0, y0 = ISO_ORIGIN
    return (x0 + (u - v) * ISO_HALF_W, y0 - (u + v) * ISO_HALF_H - z)


def level_height(heights: Mapping[str, int]) -> float:
    """Pixel height of one block, shrunk when a tower would leave the 3D view."""
    lh = LEVEL_HEIGHT_MAX
    for square, h in heights.items():
        if h <= 0:
            continue
        f, r = square_coords(square)
        # The top corner of the square's top face must stay below the limit.
        _, top_y = iso_point(f + 1, r + 1)
        room = top_y - ISO_TOP_LIMIT
        lh = min(lh, room / h)
    return max(lh, LEVEL_HEIGHT_MIN)


def iso_top_center(square: str, height: int, lh: float) -> tuple[float, float]:
    """Centre of the top face of a square's column (the point a piece stands on)."""
    f, r = square_coords(square)
    return iso_point(f + 0.5, r + 0.5, height * lh)


def iso_token_center(square: str, height: int, lh: float) -> tuple[float, float]:
    """Centre of the marker of a knight (or the king) standing on ``square``."""
    x, y = iso_top_center(square, height, lh)
    return (x, y - TOKEN_LIFT)


def map_cell_box(square: str) -> tuple[int, int, int, int]:
    """Pixel box (left, top, right, bottom) of a square in the top-down map."""
    f, r = square_coords(square)
    x0, y0 = MAP_ORIGIN
    left = x0 + f * MAP_CELL
    top = y0 + (7 - r) * MAP_CELL
    return (left, top, left + MAP_CELL, top + MAP_CELL)
