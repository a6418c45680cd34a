"""The picture shows the right things in the right places (pixels and text records)."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from renderer_samples import (
    PLAYERS4,
    colour_run,
    load,
    map_sample_point,
    position,
    rgb,
)

import renderer
import renderer.geometry as g
from renderer._model import PLAYER_COLOURS
from renderer._palette import (
    FLOOR_DARK,
    FLOOR_LIGHT,
    HIGHLIGHT,
    KING_FILL,
    _stone_shade,
)
from renderer._text import MAP_NUMBER

SQUARES = st.sampled_from(g.SQUARES)


def texts(rendering, layer: str) -> list:
    return [t for t in rendering.texts if t.layer == layer]


def text_at(rendering, layer: str, x: float, y: float) -> list[str]:
    """Texts of a layer whose box contains the point."""
    return [
        t.text
        for t in rendering.texts
        if t.layer == layer and t.box[0] <= x <= t.box[2] and t.box[1] <= y <= t.box[3]
    ]


def test_render_board_returns_a_png_of_the_canvas_size():
    """render_board gives PNG bytes that decode to the documented canvas size."""
    png = renderer.render_board(load("midgame"))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(png))
    assert image.size == g.CANVAS_SIZE


def test_same_input_same_bytes_also_across_threads():
    """Same input gives the same bytes, also when rendered in parallel threads."""
    pos = load("midgame")
    first = renderer.render_board(pos, viewer="blue", highlight=["f3"])
    with ThreadPoolExecutor(max_workers=4) as pool:
        others = list(
            pool.map(
                lambda _: renderer.render_board(pos, viewer="blue", highlight=["f3"]), range(8)
            )
        )
    assert all(o == first for o in others)


def test_render_does_not_change_the_position():
    """The caller's dict comes back untouched (the bot keeps using it)."""
    pos = load("midgame")
    before = repr(pos)
    renderer.render_board(pos, viewer="red", highlight=["c3"])
    assert repr(pos) == before


@settings(max_examples=25, deadline=None)
@given(square=SQUARES, height=st.integers(0, 7), seat=st.integers(0, 3))
def test_knight_is_drawn_on_its_square_at_its_level(square, height, seat):
    """A lone knight's marker fills the middle of its own map cell, in its
    player's colour, with its level written in it."""
    heights = {square: height} if height else {}
    pos = position(heights=heights, knights={PLAYERS4[seat]: [square]})
    r = renderer.render(pos)
    colour = PLAYER_COLOURS[seat]
    (mark,) = r.pieces
    assert (mark.kind, mark.square, mark.level) == ("knight", square, height)
    assert mark.center == g.map_cell_center(square)
    x, y = map_sample_point(square)
    assert rgb(r.image, x, y) == colour
    # The marker spans the cell's middle row and stays inside the cell.
    left, top, right, bottom = g.map_cell_box(square)
    cx, cy = g.map_cell_center(square)
    run_top, run_bottom = colour_run(r.image, x, top - 20, bottom + 20, colour)
    assert top + 8 < run_top < cy < run_bottom < bottom - 8, (run_top, run_bottom, cy)
    assert text_at(r, "map", cx, cy + 6) == [str(height)]
    # Nowhere else in the map shows that colour.
    for other in g.SQUARES:
        if other != square:
            assert rgb(r.image, *map_sample_point(other)) != colour


def test_every_knight_of_a_busy_position_is_recorded_at_its_square():
    """Each knight of the mid-game position appears once, at its square and level."""
    pos = load("midgame")
    r = renderer.render(pos)
    drawn = {(p.owner, p.square, p.level) for p in r.pieces if p.kind == "knight"}
    expected = {
        (player, sq, pos["heights"].get(sq, 0))
        for player, squares in pos["knights"].items()
        for sq in squares
    }
    assert drawn == expected
    # And each map cell shows the knight's colour.
    for player, squares in pos["knights"].items():
        colour = PLAYER_COLOURS[pos["players"].index(player)]
        for sq in squares:
            assert rgb(r.image, *map_sample_point(sq)) == colour, (player, sq)


@settings(max_examples=20, deadline=None)
@given(square=SQUARES, height=st.integers(1, 9))
def test_tower_shows_its_height_in_its_cell(square, height):
    """A lone tower's cell is stone, shaded darker the taller it is, with its
    height written large; the squares around it stay bare floor."""
    r = renderer.render(position(heights={square: height}))
    left, top, right, bottom = g.map_cell_box(square)
    cx, cy = g.map_cell_center(square)
    assert text_at(r, "map", cx, cy) == [str(height)]
    (number,) = [t for t in r.texts if t.layer == "map" and t.size == MAP_NUMBER]
    assert number.text == str(height)
    assert rgb(r.image, left + 14, bottom - 14) == _stone_shade(height, False)
    f, rank = g.square_coords(square)
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= f + df < 8 and 0 <= rank + dr < 8:
            nb = g.FILES[f + df] + g.RANKS[rank + dr]
            nl, nt, _, nbot = g.map_cell_box(nb)
            assert rgb(r.image, nl + 14, nbot - 14) in (FLOOR_LIGHT, FLOOR_DARK), nb


def test_taller_is_darker():
    """The stone shade darkens with every level, so heights read at a glance."""
    shades = [sum(_stone_shade(h, False)) for h in range(1, 9)]
    assert shades == sorted(shades, reverse=True) and len(set(shades)) == 8


def test_map_heights_match_the_position_for_every_square():
    """The map's numbers are exactly the heights (a missing block would show)."""
    pos = load("midgame")
    r = renderer.render(pos)
    for sq in g.SQUARES:
        left, top, right, bottom = g.map_cell_box(sq)
        found = text_at(r, "map", (left + right) / 2, (top + bottom) / 2)
        h = pos["heights"].get(sq, 0)
        occupied = any(sq in v for v in pos["knights"].values()) or pos.get("king") == sq
        if h or occupied:
            assert found == [str(h)], sq
        else:
            assert found == [], sq


def test_king_is_a_white_crown_on_its_square_and_its_castle_is_gold():
    """The king stands on its square; its castle is tinted in the map."""
    pos = position(heights={"c3": 2, "c4": 1, "f6": 1}, king="c3")
    r = renderer.render(pos)
    cx, cy = g.map_cell_center("c3")
    assert rgb(r.image, cx - 28, cy + 14) == KING_FILL
    assert text_at(r, "map", cx, cy + 10) == ["2"]
    (king,) = [p for p in r.pieces if p.kind == "king"]
    assert (king.square, king.level) == ("c3", 2)
    left, top, _, _ = g.map_cell_box("c4")
    tinted = rgb(r.image, left + 50, top + 50)
    left, top, _, _ = g.map_cell_box("f6")
    plain = rgb(r.image, left + 50, top + 50)
    assert tinted[0] > tinted[2] + 60  # gold: much more red than blue
    assert abs(plain[0] - plain[2]) < 40  # grey stone
    assert any("King's castle: area 2, height 2" in t.text for t in r.texts)


def test_castle_areas_are_tagged_once_per_castle():
    """Each castle gets one area tag on the top-left corner of its top-left cell."""
    pos = position(heights={"a1": 1, "b1": 2, "b2": 1, "e5": 3, "g8": 1})
    r = renderer.render(pos)
    for sq, area in (("b2", "3"), ("e5", "1"), ("g8", "1")):
        left, top, _, _ = g.map_cell_box(sq)
        assert text_at(r, "map", left, top) == [area], sq


def test_highlighted_squares_are_framed():
    """Highlighted squares get a thick frame on all four sides; others do not."""
    pos = position(heights={"c3": 1, "d3": 2}, knights={"red": ["e4"]})
    r = renderer.render(pos, highlight=["D3", "e4"])
    for sq in ("d3", "e4"):
        left, top, right, bottom = g.map_cell_box(sq)
        cx, cy = g.map_cell_center(sq)
        for x, y in (
            (left + 9, cy + 30),
            (right - 9, cy + 30),
            (cx + 30, top + 9),
            (cx + 30, bottom - 9),
        ):
            assert rgb(r.image, x, y) == HIGHLIGHT, (sq, x, y)
    left, top, _, _ = g.map_cell_box("c3")
    assert rgb(r.image, left + 9, top + 50) != HIGHLIGHT


def test_panel_lists_players_in_turn_order_with_scores():
    """Rows follow the round's turn order starting at the round starter."""
    pos = load("midgame")
    pos["round_starter"] = "green"
    pos["to_move"] = "yellow"
    r = renderer.render(pos)
    panel = texts(r, "panel")
    ys = {t.text: t.box[1] for t in panel}
    names = ["green", "▶ yellow", "red", "blue"]
    assert [ys[n] for n in names] == sorted(ys[n] for n in names)
    for name, score in pos["scores"].items():
        assert str(score) in ys, name


def test_player_to_move_shows_stack_sizes_others_counts():
    """The player to move sees stack sizes (and the turn's stack); others' stacks
    are counted, with knights in reserve and cards in hand."""
    pos = load("midgame")
    pos["turn"]["stack"] = 1
    r = renderer.render(pos)
    small_print = ("stack", "reserve", "card")
    rows = " · ".join(t.text for t in texts(r, "panel") if any(w in t.text for w in small_print))
    lines = [t.text for t in texts(r, "panel")]
    assert "▶ blue" in lines
    assert "stacks: 3, 2 · this turn's stack: 1 block · 3 in reserve · 2 cards" in rows  # blue
    assert "2 stacks · 0 in reserve · 1 card" in rows  # red
    assert "2 stacks · 4 in reserve · 2 cards" in rows  # yellow


def test_final_position_ranks_players_and_names_the_winner():
    """At the end the rows are ranked by score and the winner is starred."""
    r = renderer.render(load("final"))
    panel = texts(r, "panel")
    names = [t.text for t in sorted(panel, key=lambda t: t.box[1])]
    order = [n for n in names if n.lstrip("★ ") in PLAYERS4]
    assert order == ["★ blue", "green", "red", "yellow"]
    header = " ".join(t.text for t in texts(r, "header"))
    assert "Game over blue wins with 25 points" in header


def test_invalid_highlight_square_is_a_clear_error():
    """A highlight that is not a square is refused with a message naming it."""
    with pytest.raises(ValueError, match="'z9' is not a square"):
        renderer.render_board(load("setup"), highlight=["z9"])


def test_unknown_viewer_is_a_clear_error():
    """A viewer who is not a player is refused (no silent spectator view)."""
    with pytest.raises(ValueError, match="Unknown viewer 'mallory'"):
        renderer.render_board(load("setup"), viewer="mallory")


def test_not_a_dict_is_a_clear_error():
    """A JSON array or string is not a position."""
    with pytest.raises(ValueError, match="JSON object"):
        renderer.render_board(["red", "blue"])  # type: ignore[arg-type]


def test_a_tall_tower_hides_no_knight():
    """Seen from above, nothing stands in front of anything: knights around
    and beside a tall tower all show their colour in their own cells."""
    pos = position(heights={"c3": 9, "d4": 1}, knights={"red": ["d4", "b2"], "blue": ["c4", "d3"]})
    r = renderer.render(pos)
    for player, squares in pos["knights"].items():
        colour = PLAYER_COLOURS[PLAYERS4.index(player)]
        for sq in squares:
            assert rgb(r.image, *map_sample_point(sq)) == colour, (player, sq)
    cx, cy = g.map_cell_center("c3")
    assert text_at(r, "map", cx, cy) == ["9"]


def test_absurd_heights_render_quickly_and_stay_in_their_cells():
    """The notation does not bound heights: a billion-block tower is drawn only as
    far as the canvas reaches, and its number is shrunk into its map cell."""
    r = renderer.render(position(heights={"d4": 10**9, "e4": 123}, knights={"red": ["e4"]}))
    for sq in ("d4", "e4"):
        left, top, right, bottom = g.map_cell_box(sq)
        (t,) = [
            t
            for t in r.texts
            if t.layer == "map"
            and t.text.rstrip("…").isdigit()
            and left <= t.box[0]
            and t.box[2] <= right
            and top <= t.box[1] <= bottom
        ]
        assert str(10**9 if sq == "d4" else 123).startswith(t.text.rstrip("…"))
