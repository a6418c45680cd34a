"""Torres board pictures: a position (NOTATION.md) in, PNG bytes out.

The picture is landscape (1500 x 1000) so that Discord's inline preview shows
it at full width: a large top-down map of the board (every square's height,
each knight as its player's coloured shape with its level, castle walls and
areas, the king's castle in gold) and a side panel with the phase and round,
whose turn it is, the players by name beside their colour and shape, scores,
stacks, knights in reserve, cards, deck, master card, the viewer's own hand and
a legend saying what the highlight means. ``describe()`` gives the same position
in words, for the picture's alt text. Hidden information never appears: only
the viewer's own hand is named.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from PIL import Image

from ._canvas import PieceMark, Rendering, TextBox
from ._describe import MAX_LENGTH as DESCRIPTION_LIMIT
from ._describe import describe_view
from ._draw import paint
from ._model import BoardView, build_view
from ._palette import palette_image
from ._png import palette_png

__all__ = [
    "DESCRIPTION_LIMIT",
    "BoardView",
    "PieceMark",
    "Rendering",
    "TextBox",
    "describe",
    "describe_view",
    "encode_png",
    "read_view",
    "render",
    "render_board",
    "view_png",
    "warm_up",
]


def render(
    position: Mapping[str, Any],
    viewer: str | None = None,
    highlight: Iterable[str] | None = None,
    *,
    highlight_note: str | None = None,
    labels: Mapping[str, str] | None = None,
    language: str = "en",
) -> Rendering:
    """Render to a Pillow image plus layout records (text boxes, piece positions).

    For callers that compose pictures (``renderer.replay``) and for tests.
    Arguments as for :func:`render_board`.

    :raises ValueError: the position is impossible (the engine's message), the
        viewer is not a player, or a highlight square is not a square.
    """
    return paint(
        build_view(
            position,
            viewer,
            highlight,
            highlight_note=highlight_note,
            labels=labels,
            language=language,
        )
    )


def render_board(
    position: Mapping[str, Any],
    viewer: str | None = None,
    highlight: Iterable[str] | None = None,
    *,
    highlight_note: str | None = None,
    labels: Mapping[str, str] | None = None,
    language: str = "en",
) -> bytes:
    """Return the PNG picture of ``position`` as ``viewer`` may see it.

    *viewer* names the player whose hand is shown by card name (None: nobody's).
    *highlight* lists squares to frame in pink, and *highlight_note* says in
    the legend what they are, e.g. "changed this turn" or "changed by Ann's
    last turn" (None: "changed last turn"). *labels* maps a player's name in the
    position to what the picture calls them, e.g. ``{"red": "Ann"}`` (their
    colour, shape and letter stay with the seat). *language* ("en", "de" or
    "nl") is the language of every word drawn; the caller's note and labels are
    drawn as given, so translate the note first. Same input, same bytes.

    :raises ValueError: the position is impossible (the engine's message), the
        viewer is not a player, a highlight square is not a square, or the
        language is not one of ``renderer.i18n.LANGUAGES``.
    """
    view = build_view(
        position,
        viewer,
        highlight,
        highlight_note=highlight_note,
        labels=labels,
        language=language,
    )
    return view_png(view)


def read_view(
    position: Mapping[str, Any],
    viewer: str | None = None,
    highlight: Iterable[str] | None = None,
    *,
    highlight_note: str | None = None,
    labels: Mapping[str, str] | None = None,
    language: str = "en",
) -> BoardView:
    """Read ``position`` through the engine once, for :func:`view_png` and
    :func:`describe_view`: a picture and its alt text from one reading (what
    ``render_board`` and ``describe`` each do on their own). Arguments as for
    :func:`render_board`.

    :raises ValueError: as :func:`render_board`.
    """
    return build_view(
        position,
        viewer,
        highlight,
        highlight_note=highlight_note,
        labels=labels,
        language=language,
    )


def view_png(view: BoardView) -> bytes:
    """The PNG of a :func:`read_view`: the bytes of ``render_board`` with the
    same arguments. Drawn straight in the PNG's fixed palette."""
    return encode_png(paint(view, paletted=True).image)


def describe(
    position: Mapping[str, Any],
    *,
    viewer: str | None = None,
    highlight: Iterable[str] | None = None,
    highlight_note: str | None = None,
    labels: Mapping[str, str] | None = None,
    language: str = "en",
) -> str:
    """The position in words, for a picture's alt text (a Discord attachment's
    description): phase and round, who is to move and what to do, AP left,
    each player's colour, shape, score, knights and cards, the king and his
    castle, and (when given) the highlighted squares and what they mean, in
    *language* ("en", "de" or "nl").

    At most ``DESCRIPTION_LIMIT`` (1,000) characters; Discord allows 1,024.
    Says no more than the picture: only *viewer*'s own hand is named, so give
    a viewer only for a picture that only that player sees.

    :raises ValueError: as :func:`render_board`.
    """
    view = build_view(
        position,
        viewer,
        highlight,
        highlight_note=highlight_note,
        labels=labels,
        language=language,
    )
    return describe_view(view)


def warm_up() -> None:
    """Fill the caches every render shares (fonts, the unchanging base picture,
    the palette, the common text masks, the catalogs of every language), so
    that a process's first picture costs about what later ones do rather than
    ~3 times as much.

    Optional; call once at start-up, e.g. in the render thread pool.
    """
    import engine  # the renderer depends on the engine anyway

    from .i18n import LANGUAGES

    for language in LANGUAGES:
        for players in (2, 4):
            game = engine.Game.new(players)
            render_board(game.position(), game.players[0], [], language=language)


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of a rendered picture, as a palette image with one fixed palette.

    The picture is flat colours plus anti-aliased text, and the renderer knows
    every one of them (``_palette.palette_colours``), so a fixed palette keeps the
    flat colours exact and the text edges smooth without an adaptive
    quantisation per render (which cost ~14 ms; mapping to a fixed palette costs
    ~2, and ``render_board`` draws straight in the palette, skipping even that).
    Deflated in one call (``_png``), not by Pillow's row-by-row encoder.
    Deterministic: same picture, same bytes.
    """
    if image.mode == "P":  # drawn in the fixed palette (``render_board``)
        paletted = image
    else:
        paletted = image.quantize(palette=palette_image(), dither=Image.Dither.NONE)
    return palette_png(paletted)
