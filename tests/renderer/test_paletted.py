"""Pictures drawn straight in the PNG's fixed palette (what ``render_board``
does) are, pixel for pixel and record for record, the RGB picture of
``render`` after ``encode_png``'s quantisation: the text and map cell patches
change nothing, whatever is in their caches, and stay within their bounds.
"""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image, ImageChops
from renderer_samples import POSITIONS, load, load_highlight

import renderer
import renderer.geometry as g
from renderer import _patches
from renderer._draw import _Painter, paint
from renderer._map import _base_paletted
from renderer._model import build_view
from renderer._palette import palette_image
from renderer.i18n import LANGUAGES


def _quantised(image: Image.Image) -> Image.Image:
    return image.quantize(palette=palette_image(), dither=Image.Dither.NONE)


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.mode == b.mode == "P" and ImageChops.difference(a, b).getbbox() is None


def _records(rendering) -> tuple[list, list]:
    return (
        [(t.text, t.box, t.layer, t.size) for t in rendering.texts],
        [(p.kind, p.owner, p.square, p.level, p.center, p.map_box) for p in rendering.pieces],
    )


def _clear_patches() -> None:
    _patches._PATCHES.clear()
    _patches._CELLS.clear()


@pytest.mark.parametrize("language", LANGUAGES)
def test_paletted_pictures_are_the_quantised_rgb_ones(language):
    """Every stored position for every viewer (and nobody), with its highlight and
    with another, first with empty patch caches, then with full ones."""
    _clear_patches()
    for round_ in range(2):
        for path in sorted(POSITIONS.glob("*.json")):
            pos = load(path.stem)
            for viewer in [None, *pos["players"]]:
                for highlight in (load_highlight(path.stem), ["a1", "d4", "e5", "h8"]):
                    view = build_view(pos, viewer, highlight, language=language)
                    rgb, fast = paint(view), paint(view, paletted=True)
                    where = (path.stem, viewer, highlight, round_)
                    assert _same(fast.image, _quantised(rgb.image)), where
                    assert _records(fast) == _records(rgb), where


def test_a_cell_is_the_same_on_every_square():
    """A map cell's patch, drawn once on one square, pasted on every other gives
    what drawing it there gives: for each marker shape, the king, a bare height,
    each highlighted or not, on the floor's two shades and on stone."""
    base = build_view(load("late"), None, None)
    red, blue, green, yellow = base.players
    kinds = []
    for h in (0, 3):
        for marked in (False, True):
            for seat in range(4):
                kinds.append((h, marked, seat, False))
            kinds.append((h + 1, marked, None, True))  # the king stands on a castle
            kinds.append((h, marked, None, False))
    for h, marked, seat, king in kinds:
        _clear_patches()
        for square in ("a1", *g.SQUARES):  # a1 first: its patch serves the others
            players = tuple(
                replace(p, knights=(square,) if p.seat == seat else ()) for p in base.players
            )
            view = replace(
                base,
                players=players,
                heights={square: h} if h else {},
                king=square if king else None,
                castles=(),
                king_castle=None,
                highlight=frozenset({square}) if marked else frozenset(),
            )
            cached = _Painter(view, _base_paletted().copy())
            cached.top_map()
            _patches._CELLS.clear()  # drawn afresh
            fresh = _Painter(view, _base_paletted().copy())
            fresh.top_map()
            assert _same(cached.image, fresh.image), (h, marked, seat, king, square)
            assert _records(cached.out) == _records(fresh.out), (h, marked, seat, king, square)


def test_read_view_gives_the_bytes_and_words_of_render_board_and_describe():
    for name in ("setup", "late", "master"):
        pos, highlight = load(name), load_highlight(name)
        for language in LANGUAGES:
            args = (pos, pos["players"][0], highlight)
            kwargs = {"highlight_note": "moved", "labels": {"red": "Ann"}, "language": language}
            view = renderer.read_view(*args, **kwargs)
            assert renderer.view_png(view) == renderer.render_board(*args, **kwargs)
            assert renderer.describe_view(view) == renderer.describe(
                pos, viewer=args[1], highlight=highlight, **kwargs
            )


def test_the_patch_caches_stay_within_their_bounds():
    """Least recently used patches go first; no cache grows past its bytes."""
    cache = _patches._PatchCache(100_000)
    patch = Image.new("P", (100, 100))
    for i in range(50):
        cache.put((i,), patch)
        assert cache.bytes <= cache.max_bytes
    assert len(cache) == 100_000 // (10_000 + _patches.ENTRY_OVERHEAD)
    assert cache.get((0,)) is None and cache.get((49,)) is patch
    for cache in (_patches._PATCHES, _patches._CELLS):
        assert cache.bytes <= cache.max_bytes


def test_the_png_decodes_to_the_same_pixels_with_or_without_isal(monkeypatch):
    """ISA-L's PNG and Pillow's (the fallback) hold the same picture."""
    from renderer import _png

    pos, highlight = load("late"), load_highlight("late")
    view = renderer.read_view(pos, pos["to_move"], highlight)
    fast = renderer.view_png(view)
    monkeypatch.setattr(_png, "isal_zlib", None)
    slow = renderer.view_png(view)
    a, b = Image.open(io.BytesIO(fast)), Image.open(io.BytesIO(slow))
    assert a.mode == b.mode == "P" and a.getpalette() == b.getpalette()
    assert _same(a, b)
    with pytest.raises(ValueError):
        _png.palette_png(Image.new("RGB", (2, 2)))
