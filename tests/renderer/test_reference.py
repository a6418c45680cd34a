"""Reference pictures: the picture must not change by accident.

Each stored position is rendered in English, German and Dutch and compared
with its PNG under ``tests/renderer/reference/`` (``NAME.png`` in English,
``NAME-de.png``, ``NAME-nl.png``), tolerating tiny anti-aliasing differences (a
different FreeType or zlib build), not a moved piece or a missing block.
After a deliberate change of the picture, look at the new renders, then:

    RENDERER_UPDATE_REFERENCES=1 .venv/bin/python -m pytest tests/renderer/test_reference.py
"""

from __future__ import annotations

import io
import os

import pytest
from PIL import Image, ImageChops, ImageStat
from renderer_samples import REFERENCE, load, load_highlight

import renderer
from renderer.i18n import LANGUAGES

#: (stored position, viewer seat or None)
CASES = {
    "setup": None,
    "late": 0,  # a busy 4-player board late in the game, seen by the player to move
    "final": 1,
    "master": 2,
    "personal": 0,  # personal decks, 2 players, seen by the player to move
}
#: Mean absolute difference per channel (0-255) that anti-aliasing may cause.
MEAN_TOLERANCE = 0.6
#: Share of pixels allowed to differ strongly (a knight or a height number is ~0.07 %).
STRONG_TOLERANCE = 0.0003


def render_case(name: str, language: str = "en") -> bytes:
    pos = load(name)
    seat = CASES[name]
    viewer = None if seat is None else pos["players"][seat]
    return renderer.render_board(
        pos, viewer=viewer, highlight=load_highlight(name), language=language
    )


def reference_path(name: str, language: str):
    return REFERENCE / (f"{name}.png" if language == "en" else f"{name}-{language}.png")


def difference(a: Image.Image, b: Image.Image) -> tuple[float, float]:
    """(mean absolute difference, share of strongly differing pixels)."""
    diff = ImageChops.difference(a, b)
    mean = sum(ImageStat.Stat(diff).mean) / 3
    strong = diff.convert("L").point(lambda v: 255 if v > 21 else 0)  # L ~ channels / 3
    share = ImageStat.Stat(strong).mean[0] / 255
    return mean, share


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_render_matches_reference(name, language):
    """The render of each stored position looks like its reference picture, in
    each language."""
    png = render_case(name, language)
    path = reference_path(name, language)
    if os.environ.get("RENDERER_UPDATE_REFERENCES"):
        path.write_bytes(png)
        pytest.skip(f"wrote {path}")
    image = Image.open(io.BytesIO(png)).convert("RGB")
    reference = Image.open(path).convert("RGB")
    assert image.size == reference.size
    mean, share = difference(image, reference)
    assert mean < MEAN_TOLERANCE and share < STRONG_TOLERANCE, (
        f"{path.name}: mean difference {mean:.3f}, {share:.4%} of pixels differ strongly; "
        "look at the new picture and update the references if the change is wanted"
    )


def test_comparison_catches_a_moved_knight():
    """The tolerance is not so loose that one knight moved one square passes."""
    pos = load("late")
    player = pos["players"][0]
    squares = pos["knights"][player]
    occupied = {s for v in pos["knights"].values() for s in v} | {pos["king"]}
    for sq in squares:
        f, r = sq[0], int(sq[1])
        target = f"{f}{r + 1}" if r < 8 else f"{f}{r - 1}"
        if target not in occupied:
            break
    pos["knights"][player] = [target if s == sq else s for s in squares]
    moved = Image.open(io.BytesIO(renderer.render_board(pos))).convert("RGB")
    original = Image.open(io.BytesIO(renderer.render_board(load("late")))).convert("RGB")
    mean, share = difference(moved, original)
    assert not (mean < MEAN_TOLERANCE and share < STRONG_TOLERANCE), (mean, share)


def test_comparison_catches_a_missing_block():
    """Nor does one block taken off a tower."""
    pos = load("late")
    square = max(sorted(pos["heights"]), key=lambda s: pos["heights"][s])
    pos["heights"][square] -= 1
    changed = Image.open(io.BytesIO(renderer.render_board(pos))).convert("RGB")
    original = Image.open(io.BytesIO(renderer.render_board(load("late")))).convert("RGB")
    mean, share = difference(changed, original)
    assert not (mean < MEAN_TOLERANCE and share < STRONG_TOLERANCE), (mean, share)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_languages_differ_only_in_words(name):
    """The German and Dutch pictures are not the English one (their words are
    translated), yet the map, where no word is written, is the same pixels."""
    import renderer.geometry as g

    pictures = {
        lang: Image.open(io.BytesIO(render_case(name, lang))).convert("RGB") for lang in LANGUAGES
    }
    map_box = (0, 0, g.PANEL_BOX[0] - 8, g.HEIGHT)
    for lang in ("de", "nl"):
        assert pictures[lang].tobytes() != pictures["en"].tobytes(), lang
        assert pictures[lang].crop(map_box).tobytes() == pictures["en"].crop(map_box).tobytes()
