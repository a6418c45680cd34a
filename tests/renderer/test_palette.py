"""The player colours stay apart for the common kinds of colour blindness, and
the fixed PNG palette keeps every picture's colours."""

from __future__ import annotations

import io
import itertools

import pytest
from PIL import Image, ImageChops, ImageStat
from renderer_samples import POSITIONS, load, load_highlight

import renderer
from renderer import _patches, _text
from renderer._model import PLAYER_COLOURS, PLAYER_SHAPES
from renderer._palette import flat_colours, palette_colours

#: Viénot, Brettel & Mollon (1999) dichromat simulations, applied to sRGB values
#: (an approximation, good enough to tell apart colours that collapse).
SIMULATIONS = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.56667, 0.43333, 0), (0.55833, 0.44167, 0), (0, 0.24167, 0.75833)),
    "deuteranopia": ((0.625, 0.375, 0), (0.7, 0.3, 0), (0, 0.3, 0.7)),
    "tritanopia": ((0.95, 0.05, 0), (0, 0.43333, 0.56667), (0, 0.475, 0.525)),
}


@pytest.mark.parametrize("kind", sorted(SIMULATIONS))
def test_player_colours_stay_distinct(kind):
    """Every two player colours stay far apart (RGB distance >= 100) as seen
    with each kind of dichromacy."""
    m = SIMULATIONS[kind]
    seen = [tuple(sum(m[i][j] * c[j] for j in range(3)) for i in range(3)) for c in PLAYER_COLOURS]
    for a, b in itertools.combinations(seen, 2):
        distance = sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5
        assert distance >= 100, (kind, a, b, distance)


def test_every_seat_has_its_own_shape():
    """Colour is never the only cue: four seats, four shapes."""
    assert len(set(PLAYER_SHAPES)) == len(PLAYER_SHAPES) == len(PLAYER_COLOURS) == 4


# -- the fixed PNG palette -------------------------------------------------------


def _decoded(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def test_every_flat_colour_survives_the_palette():
    """Fills, lines and text colours come out of the PNG exactly as drawn
    (Pillow maps colours to a palette on a coarse grid, so a near neighbour
    could otherwise capture one)."""
    colours = flat_colours()
    strip = Image.new("RGB", (len(colours), 1))
    strip.putdata(colours)
    decoded = _decoded(renderer.encode_png(strip))
    assert [decoded.getpixel((x, 0)) for x in range(len(colours))] == colours


def test_the_palette_fits_a_png():
    assert len(palette_colours()) <= 256
    assert len(set(palette_colours())) == len(palette_colours())


@pytest.mark.parametrize("name", sorted(p.stem for p in POSITIONS.glob("*.json")))
def test_stored_pictures_survive_the_palette(name):
    """Each stored position, for every viewer, loses almost nothing to the
    palette: flat areas stay exact, anti-aliased text edges stay close.

    Worst picture with the fixed palette: mean error 0.07 levels, 0.12 % of
    pixels off by more than 8 levels, 0.005 % by more than 16. (The adaptive
    FASTOCTREE palette it replaced: 0.59, 1.6 %, 0.002 %.) Without the ramps
    for body text the share off by more than 8 triples, and this test fails.
    """
    pos = load(name)
    palette = set(palette_colours())
    for viewer in [None, *pos["players"]]:
        drawn = renderer.render(pos, viewer, load_highlight(name)).image
        diff = ImageChops.difference(drawn, _decoded(renderer.encode_png(drawn)))
        mean = sum(ImageStat.Stat(diff).mean) / 3
        worst = ImageChops.lighter(ImageChops.lighter(*diff.split()[:2]), diff.split()[2])
        counts = worst.histogram()
        pixels = drawn.width * drawn.height
        assert mean < 0.1, (name, viewer, mean)
        assert sum(counts[9:]) / pixels < 0.002, (name, viewer, "off by > 8")
        assert sum(counts[17:]) / pixels < 0.0001, (name, viewer, "off by > 16")
        assert sum(counts[25:]) / pixels < 0.00002, (name, viewer, "off by > 24")
        big_areas = {c for n, c in drawn.getcolors(1 << 16) if n >= 1500}
        assert big_areas <= palette, (name, viewer, big_areas - palette)


def test_same_picture_with_cold_and_warm_caches():
    """The caches shared by renders change no byte: first render == later renders."""
    pos, highlight = load("late"), load_highlight("late")
    for cache in (_text._font, _text._glyph, _text._length, _text._shown):
        cache.cache_clear()
    for patches in (_patches._PATCHES, _patches._CELLS):
        patches.clear()
    cold = renderer.render_board(pos, pos["to_move"], highlight)
    assert renderer.render_board(pos, pos["to_move"], highlight) == cold
    assert renderer.render_board(load("final")) != cold
    assert renderer.render_board(pos, pos["to_move"], highlight) == cold
