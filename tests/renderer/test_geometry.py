"""The layout itself, checked against what a player expects to see."""

from __future__ import annotations

import pytest
from renderer_samples import position

import renderer
import renderer.geometry as g


def test_canvas_is_landscape_for_discords_preview():
    """Discord fits inline pictures in a box wider than tall: at least 1.25:1."""
    assert g.WIDTH >= 1.25 * g.HEIGHT


def test_map_and_panel_share_the_canvas_without_overlap():
    """The map (with its labels) on the left, the panel on the right, both inside."""
    x0, y0 = g.MAP_ORIGIN
    assert x0 > 30 and y0 > 0  # room for the rank digits
    assert y0 + g.MAP_SIZE + 45 < g.HEIGHT  # and the file letters
    left, top, right, bottom = g.PANEL_BOX
    assert x0 + g.MAP_SIZE < left < right <= g.WIDTH and 0 <= top < bottom <= g.HEIGHT
    # The map is the main view: most of the canvas height.
    assert g.MAP_SIZE >= 0.85 * g.HEIGHT


def test_map_is_a_chess_diagram():
    """a8 top-left, h1 bottom-right, squares one cell apart."""
    assert g.map_cell_box("a8")[:2] == g.MAP_ORIGIN
    left, top, right, bottom = g.map_cell_box("h1")
    assert (right, bottom) == (g.MAP_ORIGIN[0] + g.MAP_SIZE, g.MAP_ORIGIN[1] + g.MAP_SIZE)
    assert g.map_cell_box("b1")[0] - g.map_cell_box("a1")[0] == g.MAP_CELL
    assert g.map_cell_box("a1")[1] - g.map_cell_box("a2")[1] == g.MAP_CELL


def test_map_labels_match_rows_and_columns():
    """The map's rank digit sits level with its row, the file letter under its column."""
    r = renderer.render(position())
    for t in r.texts:
        if t.layer != "edge":
            continue
        cx, cy = (t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2
        if t.text in g.RANKS:
            _, top, _, bottom = g.map_cell_box("a" + t.text)
            assert top < cy < bottom, t
        else:
            left, _, right, _ = g.map_cell_box(t.text + "1")
            assert left < cx < right, t


def test_pieces_stand_in_the_middle_of_their_cells():
    """A marker's centre is its cell's centre, and the largest shape (the
    diamond, 1.18 x the radius) stays inside the cell: no piece covers another."""
    for sq in ("a1", "h8", "d5"):
        left, top, right, bottom = g.map_cell_box(sq)
        cx, cy = g.map_cell_center(sq)
        assert (cx, cy) == ((left + right) / 2, (top + bottom) / 2)
    assert g.MARKER_RADIUS * 1.18 < g.MAP_CELL / 2 - 4


@pytest.mark.parametrize("bad", ["i1", "a9", "a", "", "A1 ", "11"])
def test_square_names_are_checked(bad):
    """Only a1-h8 are squares."""
    with pytest.raises(ValueError, match="is not a square"):
        g.square_coords(bad)
