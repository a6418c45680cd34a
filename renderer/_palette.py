"""The picture's colours, and the one fixed 256-colour palette every PNG is written in.

Every colour the drawing code fills, strokes or writes with is named here, and
the palette is built from them (``palette_colours``): a new colour in the
drawing code must be added here.
"""

from __future__ import annotations

import functools

from PIL import Image

from ._model import PLAYER_COLOURS, PLAYER_INKS

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]

BACKGROUND: RGB = (250, 248, 243)
INK: RGB = (28, 28, 32)
MUTED: RGB = (92, 92, 100)
HEADER_BG: RGB = (38, 42, 52)
HEADER_INK: RGB = (255, 255, 255)
FLOOR_LIGHT: RGB = (238, 233, 221)
FLOOR_DARK: RGB = (226, 219, 204)
EDGE: RGB = (62, 56, 48)
#: Highlighted squares: Okabe–Ito reddish purple, drawn thick.
HIGHLIGHT: RGB = (204, 121, 167)
KING_FILL: RGB = (255, 255, 255)
TAG_BG: RGB = (45, 45, 52)
TO_MOVE_BG: RGB = (255, 240, 196)
WINNER_BG: RGB = (214, 236, 222)
WHITE: RGB = (255, 255, 255)
GRID_LINE: RGB = (190, 182, 166)
ROW_EDGE: RGB = (200, 196, 186)


@functools.lru_cache(maxsize=64)
def _stone_shade(h: int, king: bool) -> RGB:
    """Map colour of a castle square: darker the taller, gold for the king's castle."""
    t = min(h - 1, 7) / 7
    a: RGB
    b: RGB
    if king:
        a, b = (250, 224, 140), (196, 150, 40)
    else:
        a, b = (204, 195, 177), (108, 98, 84)

    # Channels rounded to multiples of 4: Pillow maps colours to a palette by
    # the nearest entry to the 4x4x4 grid point below, and an off-grid shade can
    # lose its own entry to a close stone face (h=3 did, by 5 levels of blue).
    def channel(i: int) -> int:
        return 4 * round((a[i] + (b[i] - a[i]) * t) / 4)

    return (channel(0), channel(1), channel(2))


def _halo(ink: RGB) -> RGB:
    """Outline around a knight's level on the map, contrasting with its ink."""
    return INK if sum(ink) > 384 else WHITE


def _map_number_ink(h: int) -> RGB:
    """A bare square's height on the map: white on the dark (tall) shades."""
    return WHITE if h >= 5 else INK


def flat_colours() -> list[RGB]:
    """Every colour the drawing code fills, strokes or writes with."""
    solids: list[RGB] = [
        BACKGROUND, INK, MUTED, HEADER_BG, HEADER_INK, FLOOR_LIGHT, FLOOR_DARK, EDGE,
        HIGHLIGHT, KING_FILL, TAG_BG, TO_MOVE_BG, WINNER_BG, WHITE, GRID_LINE, ROW_EDGE,
    ]  # fmt: skip
    solids += [*PLAYER_COLOURS, *PLAYER_INKS]
    solids += [_stone_shade(h, king) for king in (False, True) for h in range(1, 9)]
    return list(dict.fromkeys(solids))


def palette_colours() -> list[RGB]:
    """Every colour a picture may hold, for one fixed 256-colour PNG palette.

    The flat colours come first, exactly; then, for each text colour over each
    colour it is drawn on, the anti-aliasing steps between the two (more steps
    for the small body text, which shows them most). Polygons, lines and
    ellipses are not anti-aliased, so text is the only source of blends. Tests
    check that every flat colour maps to itself and that the stored pictures
    quantise with far less error than an adaptive palette: a new colour in the
    drawing code must be added here.
    """
    # (text colour, colour under it, anti-aliasing steps between them)
    blends: list[tuple[RGB, RGB, int]] = []
    for fg, bg in ((INK, BACKGROUND), (MUTED, BACKGROUND), (HEADER_INK, HEADER_BG),
                   (INK, TO_MOVE_BG), (INK, WHITE)):  # fmt: skip
        blends.append((fg, bg, 12))  # body text, and heights in their white halo
    for fg, bg in ((INK, WINNER_BG), (WHITE, TAG_BG), ((0, 0, 0), WHITE)):
        blends.append((fg, bg, 4))
    for colour, ink in zip(PLAYER_COLOURS, PLAYER_INKS, strict=True):
        # Letters and levels on markers, and their halos.
        blends += [(ink, colour, 7), (_halo(ink), colour, 7)]
    for king in (False, True):
        for h in range(1, 9):
            blends.append((_map_number_ink(h), _stone_shade(h, king), 3))
    colours: dict[RGB, None] = dict.fromkeys(flat_colours())
    for fg, bg, steps in blends:
        for k in range(1, steps + 1):
            t = k / (steps + 1)
            colours.setdefault(_blend(fg, bg, t))
    return list(colours)


def _blend(fg: RGB, bg: RGB, t: float) -> RGB:
    """The colour ``t`` of the way from ``bg`` to ``fg``, in whole channels."""
    return (
        round(bg[0] + (fg[0] - bg[0]) * t),
        round(bg[1] + (fg[1] - bg[1]) * t),
        round(bg[2] + (fg[2] - bg[2]) * t),
    )


@functools.cache
def palette_image() -> Image.Image:
    """The fixed palette as a Pillow "P" image for ``Image.quantize(palette=...)``.

    Never modified once built (shared by all renders)."""
    colours = palette_colours()
    if len(colours) > 256:
        raise RuntimeError(f"{len(colours)} palette colours; a PNG palette holds 256")
    colours += [colours[-1]] * (256 - len(colours))
    image = Image.new("P", (1, 1))
    image.putpalette([v for c in colours for v in c])
    return image


@functools.cache
def _flat_indices() -> dict[RGB, int]:
    """Each flat colour's palette index, as ``encode_png``'s quantisation picks it."""
    colours = flat_colours()
    strip = Image.new("RGB", (len(colours), 1))
    strip.putdata(colours)
    indices = strip.quantize(palette=palette_image(), dither=Image.Dither.NONE).tobytes()
    return dict(zip(colours, indices, strict=True))


@functools.cache
def _flat_colours() -> dict[int, RGB]:
    """The flat colour of each palette index that one quantises to."""
    return {index: colour for colour, index in _flat_indices().items()}
