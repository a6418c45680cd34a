"""The score chart (renderer.chart): a PNG of the engine's scores, in every language."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from engine.summary import ScoreTrack
from renderer import chart
from renderer.chart import HEIGHT, WIDTH, score_chart
from renderer.i18n import LANGUAGES

TRACK = ScoreTrack(
    players=("red", "blue", "green"),
    scores=[{"red": 0, "blue": 0, "green": 0}]
    + [{"red": 2 * i, "blue": 3 * i, "green": i} for i in range(1, 31)],
    king_castle=[0] * 5 + [4] * 10 + [9] * 16,
    scorings=[(1, 10), (2, 20), (3, 30)],
)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_chart_is_a_png_of_the_fixed_size(language):
    png = score_chart(TRACK, labels={"red": "Ann"}, language=language)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
    assert score_chart(TRACK, labels={"red": "Ann"}, language=language) == png


def test_each_player_line_is_drawn_in_their_colour_and_their_final_score_shown():
    from renderer._model import PLAYER_COLOURS

    image = Image.open(io.BytesIO(score_chart(TRACK))).convert("RGB")
    # The plot area alone: the legend above it and the final scores' markers right of it
    # show every colour even with no line drawn.
    plot = image.crop((chart._LEFT, chart._TOP, WIDTH - chart._RIGHT, chart._PLOT_BOTTOM))
    colours = {c for _, c in plot.getcolors(1 << 16)}
    for seat in range(3):
        assert PLAYER_COLOURS[seat] in colours, seat
    assert PLAYER_COLOURS[3] not in colours  # no fourth player
    whole = {c for _, c in image.getcolors(1 << 16)}
    assert PLAYER_COLOURS[3] not in whole


def test_a_track_without_scores_is_refused():
    with pytest.raises(ValueError, match="at least the start"):
        score_chart(ScoreTrack(players=("red", "blue")))
