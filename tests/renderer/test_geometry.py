"""The projection itself, checked against what a player expects to see."""

from __future__ import annotations

import pytest
from renderer_samples import position

import renderer
import renderer.geometry as g


def test_3d_view_looks_from_the_a1_corner():
    """a1 is the front (lowest) corner, h8 the back, a8 left, h1 right."""
    centres = {sq: g.iso_top_center(sq, 0, 24) for sq in ("a1", "h1", "a8", "h8")}
    assert centres["a1"][1] == max(y for _, y in centres.values())
    assert centres["h8"][1] == min(y for _, y in centres.values())
    assert centres["a8"][0] == min(x for x, _ in centres.values())
    assert centres["h1"][0] == max(x for x, _ in centres.values())


def test_edge_labels_name_the_squares_they_stand_beside():
    """File letters run along the rank-1 edge, rank digits along the a-file edge,
    each beside its own square's outer edge and outside the board."""
    r = renderer.render(position())
    labels = {t.text: t for t in r.texts if t.layer == "iso" and len(t.text) == 1}
    file_edges = [g.iso_point(i + 0.5, 0) for i in range(8)]
    rank_edges = [g.iso_point(0, i + 0.5) for i in range(8)]
    for names, edges in ((g.FILES, file_edges), (g.RANKS, rank_edges)):
        for i, name in enumerate(names):
            box = labels[name].box
            lx, ly = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            distances = [(x - lx) ** 2 + (y - ly) ** 2 for x, y in edges]
            assert distances.index(min(distances)) == i, name
            # Outside the board: below the front edges.
            assert ly > edges[i][1], name


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


def test_tall_towers_shrink_blocks_to_stay_in_the_view():
    """A very tall tower at the back makes blocks thinner so its top stays
    below the header, and short boards keep full-size blocks."""
    assert g.level_height({"c3": 3}) == g.LEVEL_HEIGHT_MAX
    lh = g.level_height({"h8": 12})
    assert lh < g.LEVEL_HEIGHT_MAX
    assert g.iso_point(8, 8, 12 * lh)[1] >= g.ISO_TOP_LIMIT - 0.5


@pytest.mark.parametrize("bad", ["i1", "a9", "a", "", "A1 ", "11"])
def test_square_names_are_checked(bad):
    """Only a1-h8 are squares."""
    with pytest.raises(ValueError, match="is not a square"):
        g.square_coords(bad)
