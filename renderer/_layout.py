"""The side panel's layout, pure and cached: paragraphs wrapped into lines, and
blocks with fuller and smaller ways to draw them, cut back until they fit."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ._text import _length

#: A way to draw a slice of the side panel: its height, and a function drawing
#: it with its top at a given y.
_Option = tuple[float, Callable[[float], None]]


@dataclass
class _Block:
    """A slice of the side panel, with ways to draw it, fullest first."""

    options: list[_Option]
    #: When the panel runs short, blocks with a lower number give up room first
    #: (their next option); 0 never does.
    yields: int = 0

    @property
    def height(self) -> float:
        return self.options[0][0]


ROW_GAP = 8
#: Where a line of panel text may break: ASCII white space only.
_ASCII_SPACE = " \t\n\r\f\v"
_BREAKS = re.compile(f"[{_ASCII_SPACE}]+")
#: A row's line that would have to shrink below this share of its size to fit
#: (a long translation) is split in two instead, room permitting.
ROW_SHRINK = 0.8


def _halved(line: str, size: int, width: float) -> list[str]:
    """A row's line of small print, or, when it would have to shrink below
    ROW_SHRINK of its size to fit ``width``, its two halves at the " · " that
    balances them best."""
    parts = line.split(" · ")
    length = _length(line, size, False)
    if len(parts) < 2 or length * ROW_SHRINK <= width:
        return [line]
    halves = [(" · ".join(parts[:i]), " · ".join(parts[i:])) for i in range(1, len(parts))]
    best = min(halves, key=lambda h: max(_length(h[0], size, False), _length(h[1], size, False)))
    return list(best)


#: The least gap between panel blocks.
PANEL_GAP = 12


#: The most the panel's body text grows when there is room (the rows: 1.5).
BODY_GROWTH = 1.3
#: How much smaller a short fact may be drawn to stay on one line.
ONE_LINE_SHRINK = 0.85
#: Room left of a line for its legend sample.
SWATCH_INDENT = 40


@dataclass(frozen=True)
class _Para:
    """A paragraph of panel text, before wrapping."""

    text: str
    size: int
    bold: bool = True
    muted: bool = False
    swatch: str | None = None  # a legend sample drawn left of the first line


@dataclass(frozen=True)
class _Line(_Para):
    """One line of panel text, placed ``indent`` px right of the panel's edge."""

    indent: int = 0

    @property
    def height(self) -> float:
        return self.size + 10


# Layout is pure: the same paragraph at the same size and width wraps the same
# way in every picture (the legend, the master card's help, most rows), and the
# panel is laid out at up to six scales a picture. Caching the wrapped lines
# saves ~1 ms of pure Python (interpreter lock held) a picture. Entries are small
# (a few lines of text): 8,192 of each are ~5 MB at most.
@functools.lru_cache(maxsize=8192)
def _wrapped(text: str, size: int, width: float, bold: bool = True) -> tuple[str, ...]:
    """Lines of at most ``width`` px, broken at spaces; a no-break space
    (U+00A0, which translations use to keep "noch 5 AP" together) is not
    a place to break."""
    out: list[str] = []
    line = ""
    for word in _BREAKS.split(text.strip(_ASCII_SPACE)):
        trial = f"{line} {word}".strip()
        if _length(trial, size, bold) <= width or not line:
            line = trial
        else:
            out.append(line)
            line = word
    if line:
        out.append(line)
    return tuple(out)


@functools.lru_cache(maxsize=8192)
def _grown(p: _Para, k: float, width: float) -> int:
    """The largest size up to ``p.size * k`` at which the paragraph wraps to
    no more lines than at its own size: growing must not break a line."""
    width -= SWATCH_INDENT * k if p.swatch else 0
    lines = len(_wrapped(p.text, p.size, width, p.bold))
    size = round(p.size * k)
    while size > p.size and len(_wrapped(p.text, size, width, p.bold)) > lines:
        size -= 1
    return size


@functools.lru_cache(maxsize=8192)
def _para_lines(p: _Para, k: float, width: float) -> tuple[_Line, ...]:
    """A paragraph at ``k`` times its size, wrapped to ``width``; its swatch
    goes left of the first line, and all its lines are indented past it."""
    size = round(p.size * k)
    indent = round(SWATCH_INDENT * k) if p.swatch else 0
    wrapped = _wrapped(p.text, size, width - indent, p.bold)
    # Grown text must not leave one word alone on the last line.
    for smaller in range(size - 1, p.size - 1, -1):
        if len(wrapped) < 2 or " " in wrapped[-1]:
            break
        wrapped, size = _wrapped(p.text, smaller, width - indent, p.bold), smaller
    return tuple(
        _Line(t, size, p.bold, p.muted, p.swatch if i == 0 else None, indent)
        for i, t in enumerate(wrapped)
    )


def _stacked(blocks: list[_Block]) -> float:
    """Height of blocks drawn one under the other with the least gap."""
    return sum(b.height for b in blocks) + PANEL_GAP * (len(blocks) - 1)


def _fitted(blocks: list[_Block], room: float) -> tuple[list[_Block], list[int]]:
    """The blocks, the ones that yield first cut back to smaller options until
    they fit ``room`` (or nothing more can yield), and how often each was cut."""
    fitted = [_Block(list(b.options), b.yields) for b in blocks]
    while _stacked(fitted) > room:
        shrinkable = [b for b in fitted if b.yields and len(b.options) > 1]
        if not shrinkable:
            break
        min(shrinkable, key=lambda b: b.yields).options.pop(0)
    cuts = [len(a.options) - len(b.options) for a, b in zip(blocks, fitted, strict=True)]
    return fitted, cuts
