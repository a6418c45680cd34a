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

import engine
import renderer
from renderer import _map, _patches, _text
from renderer._draw import _Painter
from renderer._model import build_view
from renderer._text import _font
from renderer.i18n import CATALOGS, LANGUAGES


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
    # German and Dutch: umlauts, ß, the diaeresis, a no-break space.
    ((20, 10), "Phase 3/3 · Runde 2/4", 34, (255, 255, 255), "la", True, 0, None),
    ((12.5, 80.25), "Königsburg: 2 Felder, 2 hoch", 26, (28, 28, 32), "la", True, 0, None),
    ((12, 120), "Spielplan: große Zahl = Höhe", 22, (92, 92, 100), "la", False, 0, None),
    ((30, 150), "yellow am Zug · noch\u00a05\u00a0AP", 30, (255, 255, 255), "lm", True, 0, None),
    ((12, 170), "Beurt beëindigen · 2 in voorraad", 24, (28, 28, 32), "lm", False, 0, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_cached_text_equals_pillow_text(case):
    """Same pixels and same box as ImageDraw.text, twice (cache miss, then hit)."""
    xy, text, size, fill, anchor, bold, stroke, stroke_fill = case
    _text._glyph.cache_clear()
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
    base = _map._base().image
    before = base.tobytes()
    for name in ("late", "final", "setup"):
        pos = load(name)
        rendering = renderer.render(pos, pos["players"][0], ["a1", "h8"])
        assert rendering.image is not base
    assert base.tobytes() == before


def _jobs(languages=("en",)) -> list[tuple]:
    """Every stored position for every viewer (and nobody), in each language."""
    jobs = []
    for path in sorted(POSITIONS.glob("*.json")):
        pos = load(path.stem)
        for viewer in [None, *pos["players"]]:
            jobs += [(pos, viewer, load_highlight(path.stem), lang) for lang in languages]
    return jobs


def _render(job: tuple) -> bytes:
    pos, viewer, highlight, lang = job
    return renderer.render_board(pos, viewer, highlight, language=lang)


def test_threads_side_by_side_give_the_same_bytes():
    """Renders in worker threads, starting from empty caches, give exactly the
    bytes of the same renders one after another, in all three languages mixed."""
    jobs = _jobs(LANGUAGES)
    serial = [_render(job) for job in jobs]
    for cache in (_text._font, _text._glyph, _text._length, _text._shown, _map._base):
        cache.cache_clear()
    for patches in (_patches._PATCHES, _patches._CELLS):
        patches.clear()
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(_render, jobs * 2))
    assert parallel == serial * 2


def test_the_text_cache_holds_three_languages():
    """A bot speaking English, German and Dutch by turns keeps the masks of all
    three: after one round of every stored picture in each language, a second
    round renders no text afresh, and the cache is far from full."""
    jobs = _jobs(LANGUAGES)
    _text._glyph.cache_clear()
    for job in jobs:
        _render(job)
    first = _text._glyph.cache_info()
    for job in jobs:
        _render(job)
    second = _text._glyph.cache_info()
    assert second.misses == first.misses
    assert second.currsize <= second.maxsize * 3 // 4


def test_a_language_does_not_change_the_text_of_another():
    """The caches are keyed by text, never by language: a German picture drawn
    between two English ones leaves the English bytes as they were."""
    pos, highlight = load("late"), load_highlight("late")
    english = renderer.render_board(pos, "red", highlight)
    german = renderer.render_board(pos, "red", highlight, language="de")
    assert german != english
    assert renderer.render_board(pos, "red", highlight) == english


def test_warm_up_fills_the_shared_caches():
    """After warm_up the base picture, fonts, common text masks and every
    language's catalog are ready, and pictures are unchanged by it."""
    pos, highlight = load("late"), load_highlight("late")
    before = renderer.render_board(pos, pos["to_move"], highlight)
    for cache in (_text._font, _text._glyph, _text._length, _text._shown, _map._base):
        cache.cache_clear()
    renderer.warm_up()
    assert _map._base.cache_info().currsize == 1
    assert _text._font.cache_info().currsize >= 5
    assert _text._glyph.cache_info().currsize >= 30
    assert renderer.render_board(pos, pos["to_move"], highlight) == before
    assert set(CATALOGS._loaded) >= {"de", "nl"}
    # The texts of a new game's picture are ready in each language.
    game = engine.Game.new(4)
    misses = _text._glyph.cache_info().misses
    for lang in LANGUAGES:
        renderer.render_board(game.position(), game.players[0], [], language=lang)
    assert _text._glyph.cache_info().misses == misses
