"""The player colours stay apart for the common kinds of colour blindness."""

from __future__ import annotations

import itertools

import pytest

from renderer._model import PLAYER_COLOURS, PLAYER_SHAPES

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
