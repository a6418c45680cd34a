"""bot.texts.review: a review page's words agree with the numbers it shows, and say
what the asker may know (issue 36's review, a reviewer's findings)."""

from __future__ import annotations

from dataclasses import replace

from bot.db.rows import SeatRow
from bot.texts.review import review_page
from engine.ai.review import DecisionReview

SEAT = SeatRow(1, 0, 100, "Ann", "red", False, False, 0.0)
_BASE = DecisionReview(
    number=9,
    stage="play",
    phase=1,
    round=2,
    played=("move a1 a2", "end"),
    before=10.0,
    after=12.0,
    suggested=("move a1 b1", "end"),
    suggested_after=12.0,
    position={},
    suggested_position=None,
    world={},
)


def _page(r: DecisionReview, lang: str = "en", words: str = "W") -> str:
    return review_page(4, r, 1, 5, "P", words, lang)


def test_a_suggestion_cut_at_a_personal_draw_says_to_keep_the_best() -> None:
    r = replace(_BASE, suggested=("move a1 b1", "draw"), suggested_after=30.0)
    assert "`move a1 b1; draw` (W, then keep the best)" in _page(r)
    assert "(W, dann die beste Karte behalten)" in _page(r, "de")
    assert "(W, dan de beste kaart houden)" in _page(r, "nl")


def test_the_kings_placement_in_setup_is_setup_and_its_move_after_scoring_is_not() -> None:
    setup = replace(_BASE, stage="king", phase=1, round=1, world={"king": None})
    assert "decision 9** (setup)" in _page(setup)
    moved = replace(_BASE, stage="king", phase=1, round=4, world={"king": "d4"})
    assert "decision 9** (king's move after phase 1)" in _page(moved)
