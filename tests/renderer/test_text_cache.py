"""The caches shared by renders: text drawn from the mask cache is pixel for
pixel what Pillow draws, and the cached base picture is never drawn on.

The cache copies what ImageDraw.text does inside; if a Pillow upgrade changes
that, these tests say so before a picture quietly shifts.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw
from renderer_samples import POSITIONS, load, load_highlight

import renderer
from renderer import _draw
from renderer._draw import _font, _Painter
from renderer._model import build_view


def _painter() -> _Painter:
    painter = _Painter(build_view(load("late"), None, None))
    painter.image.paste((200, 190, 170), (0, 0, 400, 200))
    return painter


def _by_pillow(image: Image.Image, xy, text, size, fill, anchor, bold, stroke, stroke_fill):
    draw = ImageDraw.Draw(image)
    kwargs = {"font": _font(size, bold), "anchor": anchor, "stroke_width": stroke}
    draw.text(xy, text, fill=fill, stroke_fill=stroke_fill, **kwargs)
    return draw.textbbox(xy, text, **kwargs)


CASES = [
    ((20, 10), "Phase 3 of 3 · Round 2 of 4", 36, (255, 255, 255), "la", True, 0, None),
    ((101.5, 57.25), "7", 22, (28, 28, 32), "mm", True, 3, (255, 255, 255)),
    ((230.75, 120.5), "12", 30, (0, 0, 0), "mm", True, 2, (28, 28, 32)),
    ((300, 150), "B", 20, (86, 180, 233), "mm", True, 2, (28, 28, 32)),
    ((12, 180), "3 in reserve · 5 cards", 24, (28, 28, 32), "lm", False, 0, None),
    ((390, 40), "common deck", 24, (200, 204, 214), "ra", False, 0, None),
    ((50, 60), "same", 26, (28, 28, 32), "mm", True, 2, (28, 28, 32)),
]


@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_cached_text_equals_pillow_text(case):
    """Same pixels and same box as ImageDraw.text, twice (cache miss, then hit)."""
    xy, text, size, fill, anchor, bold, stroke, stroke_fill = case
    _draw._glyph.cache_clear()
    for _ in range(2):
        painter = _painter()
        expected = painter.image.copy()
        want = _by_pillow(expected, xy, text, size, fill, anchor, bold, stroke, stroke_fill)
        got = painter.text(
            xy,
            text,
            size,
            fill,
            anchor=anchor,
            layer="panel",
            bold=bold,
            stroke=stroke,
            stroke_fill=stroke_fill,
        )
        assert ImageChops.difference(painter.image, expected).getbbox() is None
        assert tuple(got) == tuple(want)
        assert painter.out.texts[-1].box == tuple(got)


@settings(max_examples=40, deadline=None)
@given(
    x=st.floats(-5, 380, allow_nan=False),
    y=st.floats(-5, 180, allow_nan=False),
    text=st.text(
        st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_categories=("Cc",)),
        min_size=1,
        max_size=8,
    ),
    stroke=st.sampled_from([0, 2, 3]),
)
def test_cached_text_equals_pillow_text_anywhere(x, y, text, stroke):
    """Any text at any (fractional, even negative) point.

    (Control characters are left out: Pillow refuses them, and the renderer
    never draws one; names are cleaned first.)"""
    painter = _painter()
    expected = painter.image.copy()
    want = _by_pillow(expected, (x, y), text, 22, (28, 28, 32), "mm", True, stroke, (255, 255, 255))
    got = painter.text(
        (x, y),
        text,
        22,
        (28, 28, 32),
        anchor="mm",
        layer="iso",
        stroke=stroke,
        stroke_fill=(255, 255, 255),
    )
    assert ImageChops.difference(painter.image, expected).getbbox() is None
    assert tuple(got) == tuple(want)


def test_renders_never_draw_on_the_shared_base():
    """Every picture starts from a copy of the cached base; the base itself stays
    as it was built, whatever is rendered."""
    base = _draw._base().image
    before = base.tobytes()
    for name in ("late", "final", "setup"):
        pos = load(name)
        rendering = renderer.render(pos, pos["players"][0], ["a1", "h8"])
        assert rendering.image is not base
    assert base.tobytes() == before


def test_threads_side_by_side_give_the_same_bytes():
    """Renders in worker threads, starting from empty caches, give exactly the
    bytes of the same renders one after another."""
    jobs = []
    for path in sorted(POSITIONS.glob("*.json")):
        pos = load(path.stem)
        jobs += [(pos, viewer, load_highlight(path.stem)) for viewer in [None, *pos["players"]]]
    serial = [renderer.render_board(*job) for job in jobs]
    for cache in (_draw._font, _draw._glyph, _draw._length, _draw._shown, _draw._base):
        cache.cache_clear()
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda job: renderer.render_board(*job), jobs * 2))
    assert parallel == serial * 2


def test_warm_up_fills_the_shared_caches():
    """After warm_up the base picture, fonts and common text masks are ready,
    and pictures are unchanged by it."""
    pos, highlight = load("late"), load_highlight("late")
    before = renderer.render_board(pos, pos["to_move"], highlight)
    for cache in (_draw._font, _draw._glyph, _draw._length, _draw._shown, _draw._base):
        cache.cache_clear()
    renderer.warm_up()
    assert _draw._base.cache_info().currsize == 1
    assert _draw._font.cache_info().currsize >= 5
    assert _draw._glyph.cache_info().currsize >= 30
    assert renderer.render_board(pos, pos["to_move"], highlight) == before
