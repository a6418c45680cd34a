"""The score chart of a game: every player's points after every decision.

``score_chart(track, ...)`` draws an ``engine.summary.ScoreTrack`` (the engine's own
scores, replayed from the game's record) as a PNG in the board picture's style and
colours: one line per player in their seat's colour, ending in their marker shape
and final score (colour is never the only cue), the three phase scorings marked,
and beneath, on the same decision axis, the size of the king's castle. Laid out
for a phone: 1000 pixels wide with large type, readable shrunk to 400.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from PIL import Image, ImageDraw

from engine.summary import ScoreTrack

from ._canvas import Canvas
from ._model import PLAYER_COLOURS, PLAYER_SHAPES
from ._palette import (
    BACKGROUND,
    GRID_LINE,
    HEADER_BG,
    HEADER_INK,
    INK,
    MUTED,
    _stone_shade,
    palette_image,
)
from ._png import palette_png
from ._text import _fit, _font
from .i18n import t, tn

__all__ = ["WIDTH", "score_chart"]

WIDTH = 1000
HEIGHT = 900
_LEFT, _RIGHT = 96, 150  # plot margins: the points axis, the final scores
_TOP = 236
_PLOT_BOTTOM = 630
_KING_TOP, _KING_BOTTOM = 720, 810
_TITLE, _LABEL, _AXIS = 38, 32, 28
_GOLD = _stone_shade(5, True)
_LINE = 6


def score_chart(
    track: ScoreTrack,
    *,
    title: str | None = None,
    labels: Mapping[str, str] | None = None,
    language: str = "en",
) -> bytes:
    """PNG bytes of *track*'s chart; *labels* name the players (default: their seat
    names), *title* heads it (default: "Points after every decision"), its words are in
    *language*. Same input, same bytes.

    :raises ValueError: a track without decisions' scores.
    """
    if not track.scores:
        raise ValueError("A score chart needs the scores of at least the start.")
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    canvas = Canvas(image)  # its player markers, as on the board
    draw = canvas.draw
    names = labels or {}
    heading = title or t(language, "Points after every decision")
    draw.rectangle((0, 0, WIDTH, 70), fill=HEADER_BG)
    text, size = _fit(heading, _TITLE, WIDTH - 40, True, 24)
    draw.text((20, 35), text, font=_font(size, True), fill=HEADER_INK, anchor="lm")
    _legend(canvas, track, names)
    n = len(track.scores) - 1
    top = max(max(s.values(), default=0) for s in track.scores)
    step = _step(top)
    ymax = max(step, math.ceil(top / step) * step)

    def x_of(i: int) -> float:
        return _LEFT + (WIDTH - _LEFT - _RIGHT) * (i / max(1, n))

    def y_of(v: float) -> float:
        return _PLOT_BOTTOM - (_PLOT_BOTTOM - _TOP) * (v / ymax)

    axis = _font(_AXIS, False)
    for v in range(0, ymax + 1, step):
        y = y_of(v)
        draw.line((_LEFT, y, WIDTH - _RIGHT, y), fill=GRID_LINE, width=1)
        draw.text((_LEFT - 10, y), str(v), font=axis, fill=MUTED, anchor="rm")
    # The phase scorings: a dashed line after the decision that ended the phase.
    bold = _font(_AXIS, True)
    for phase, decision in track.scorings:
        x = x_of(decision)
        _dashed(draw, x, _TOP - 8, _KING_BOTTOM)
        draw.text(
            (x - 6, _TOP - 12),
            t(language, "Phase {phase}", phase=phase),
            font=bold,
            fill=INK,
            anchor="rb",
        )
    # One line per player, drawn over a dark edge so the yellow one shows on the paper.
    ends: list[tuple[float, int, str]] = []
    for seat, player in enumerate(track.players):
        pts = [(x_of(i), y_of(s[player])) for i, s in enumerate(track.scores)]
        colour = PLAYER_COLOURS[seat % 4]
        if len(pts) > 1:
            draw.line(pts, fill=INK, width=_LINE + 4, joint="curve")
            draw.line(pts, fill=colour, width=_LINE, joint="curve")
        ends.append((pts[-1][1], seat, player))
    # Final scores at the right, nudged apart when two end close together.
    placed: list[float] = []
    for y, seat, player in sorted(ends):
        while any(abs(y - p) < 34 for p in placed):
            y += 34
        placed.append(y)
        x = WIDTH - _RIGHT + 22
        _marker(canvas, seat, x, y, 14)
        draw.text(
            (x + 22, y),
            str(track.scores[-1][player]),
            font=_font(_LABEL, True),
            fill=INK,
            anchor="lm",
        )
    # Decisions along the bottom axis.
    xstep = _step(n, marks=6)
    for i in range(0, n + 1, xstep):
        draw.text((x_of(i), _PLOT_BOTTOM + 12), str(i), font=axis, fill=MUTED, anchor="mt")
    draw.line((_LEFT, _PLOT_BOTTOM, WIDTH - _RIGHT, _PLOT_BOTTOM), fill=INK, width=2)
    # The king's castle beneath, on the same decisions.
    biggest = max(track.king_castle, default=0)
    draw.text(
        (_LEFT, _KING_TOP - 10),
        t(language, "King's castle: {n} squares at most", n=biggest)
        if biggest
        else t(language, "King's castle"),
        font=_font(_AXIS, True),
        fill=INK,
        anchor="lb",
    )
    draw.line((_LEFT, _KING_BOTTOM, WIDTH - _RIGHT, _KING_BOTTOM), fill=INK, width=2)
    if biggest:
        width = max(1.0, (WIDTH - _LEFT - _RIGHT) / max(1, n))
        for i, size in enumerate(track.king_castle):
            if size:
                h = (_KING_BOTTOM - _KING_TOP) * size / biggest
                x = x_of(i)
                draw.rectangle(
                    (x - width / 2, _KING_BOTTOM - h, x + width / 2, _KING_BOTTOM), fill=_GOLD
                )
        draw.text((_LEFT - 10, _KING_TOP), str(biggest), font=axis, fill=MUTED, anchor="rm")
    draw.text((_LEFT - 10, _KING_BOTTOM), "0", font=axis, fill=MUTED, anchor="rm")
    draw.text(
        ((_LEFT + WIDTH - _RIGHT) / 2, HEIGHT - 20),
        tn(language, "{n} decision", "{n} decisions", n, n=n),
        font=axis,
        fill=MUTED,
        anchor="mb",
    )
    paletted = image.quantize(palette=palette_image(), dither=Image.Dither.NONE)
    return palette_png(paletted)


def _legend(canvas: Canvas, track: ScoreTrack, names: Mapping[str, str]) -> None:
    """The players, two to a row: marker, name (their colour and shape as on the board)."""
    font_size = _LABEL
    col = (WIDTH - 40) / 2
    for seat, player in enumerate(track.players):
        x = 20 + (seat % 2) * col
        y = 100 + (seat // 2) * 44
        _marker(canvas, seat, x + 16, y, 15)
        text, size = _fit(names.get(player, player), font_size, col - 60, True, 22)
        canvas.draw.text((x + 42, y), text, font=_font(size, True), fill=INK, anchor="lm")


def _marker(canvas: Canvas, seat: int, cx: float, cy: float, r: float) -> None:
    canvas.marker(PLAYER_SHAPES[seat % 4], cx, cy, r, PLAYER_COLOURS[seat % 4])


def _dashed(draw: ImageDraw.ImageDraw, x: float, y0: float, y1: float) -> None:
    y = y0
    while y < y1:
        draw.line((x, y, x, min(y + 12, y1)), fill=MUTED, width=3)
        y += 22


def _step(top: float, marks: int = 5) -> int:
    """A round step (1, 2, 5, 10, 20, 50, ...) giving about *marks* marks up to *top*."""
    raw = max(1.0, top / marks)
    base = 10 ** math.floor(math.log10(raw))
    for k in (1, 2, 5, 10):
        if k * base >= raw:
            return int(k * base)
    return int(10 * base)
