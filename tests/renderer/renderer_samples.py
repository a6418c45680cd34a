"""Positions and pixel helpers shared by the renderer tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from PIL import Image

import renderer.geometry as g

HERE = Path(__file__).resolve().parent
POSITIONS = HERE / "positions"
REFERENCE = HERE / "reference"
PLAYERS4 = ["red", "blue", "green", "yellow"]


def load(name: str) -> dict[str, Any]:
    """A stored position (tests/renderer/positions/NAME.json, made by make_positions.py)."""
    return json.loads((POSITIONS / f"{name}.json").read_text())["position"]


def load_highlight(name: str) -> list[str]:
    """The squares the stored position's last turn touched."""
    return json.loads((POSITIONS / f"{name}.json").read_text())["highlight"]


def hidden_swapped(pos: dict[str, Any], viewer: str | None) -> dict[str, Any]:
    """A copy of ``pos`` with everything ``viewer`` may not see changed: the
    contents (not the counts) of other hands, the deck order and the seed."""
    other = copy.deepcopy(pos)
    for player, hand in other["hands"].items():
        if player != viewer:
            other["hands"][player] = ["relocate"] * len(hand)
    other["decks"]["common"] = list(reversed(other["decks"]["common"]))
    other["seed"] = 12345
    return other


def position(
    heights: dict[str, int] | None = None,
    knights: dict[str, list[str]] | None = None,
    king: str | None = None,
    players: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A small hand-made position in the notation (play stage, phase 1)."""
    d: dict[str, Any] = {
        "format": "torres-position/1",
        "players": players or PLAYERS4,
        "heights": heights or {},
        "knights": knights or {},
        "king": king,
    }
    d.update(extra)
    return d


def rgb(image: Image.Image, x: float, y: float) -> tuple[int, int, int]:
    return image.getpixel((round(x), round(y)))[:3]


def map_sample_point(square: str) -> tuple[float, float]:
    """A pixel inside a map cell's marker (any of the four shapes) that neither
    the level number nor the outline covers."""
    cx, cy = g.map_cell_center(square)
    return cx - 22, cy + 16


def colour_run(image: Image.Image, x: float, y0: float, y1: float, colour) -> tuple[int, int]:
    """First and last row in [y0, y1] where column x has exactly ``colour``."""
    rows = [y for y in range(round(y0), round(y1)) if rgb(image, x, y) == tuple(colour)]
    if not rows:
        return (-1, -1)
    return rows[0], rows[-1]
