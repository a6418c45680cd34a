"""bot.texts.review: a review page's words agree with the numbers it shows, and say
what the asker may know (issue 36's review, a reviewer's findings)."""

from __future__ import annotations

from dataclasses import replace

from bot.db.rows import SeatRow
from bot.texts.review import best_castles, review_front, review_page
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


def test_the_expert_choice_is_worded_by_the_shown_worths_and_swings_round_half_up() -> None:
    # 12.5 is shown as 13 (half up), 16.4 as 16: 3 more, no swing.
    r = replace(_BASE, after=12.5, suggested_after=16.4)
    assert "is worth 16: 3 more." in _page(r) and not r.swing
    assert "is worth 10: 2 less." in _page(replace(_BASE, suggested_after=10.4))
    assert "is worth 12: as much." in _page(replace(_BASE, suggested_after=12.4))
    # 12.5 → 13 and 17.5 → 18 differ by 5 as shown: a swing (banker's rounding: 12, 18).
    r = replace(_BASE, after=12.5, suggested_after=17.5)
    assert r.loss == 5 and r.swing and "worth 18, 5 more" in _page(r)
    # 12.4 and 17.3 differ by 4.9 unrounded but by 5 as shown (12, 17): a swing too.
    assert replace(_BASE, after=12.4, suggested_after=17.3).swing
    # 12.5 and 17.4 differ by 4.9 and by 4 as shown (13, 17): none.
    assert not replace(_BASE, after=12.5, suggested_after=17.4).swing


def test_the_castles_are_named_as_in_the_rest_of_the_catalogs() -> None:
    """Board levels are "Ebene" in German, castles "burcht" in Dutch (the rules' words)."""
    from engine.summary import CastleScore

    best = {"red": [CastleScore(2, "c3", 4, 2)]}
    assert "(4 × Ebene 2, Phase 2)" in best_castles(best, [SEAT], "de")
    assert best_castles(best, [SEAT], "nl").startswith("**Burchten die het meest opbrachten**")
    assert "geen burcht bracht punten op" in best_castles({}, [SEAT], "nl")


def test_the_front_page_says_whose_decisions_and_counts_them_right() -> None:
    one, two = [_BASE], [_BASE, replace(_BASE, number=11)]
    assert "▶ shows your 1 decision." in review_front(4, SEAT, one, [], "en")
    assert "▶ goes through your 2 decisions, one at a time." in review_front(4, SEAT, two, [])
    other = review_front(4, SEAT, two, [], "en", own=False)
    assert "▶ goes through the 2 decisions of " in other and "your" not in other
    assert "▶ zeigt die 1 Entscheidung von " in review_front(4, SEAT, one, [], "de", own=False)
    assert "▶ loopt je 2 beslissingen één voor één door." in review_front(4, SEAT, two, [], "nl")


def test_a_kept_card_is_named_to_its_player_only() -> None:
    r = replace(_BASE, played=("draw", "keep lift top", "end"))
    assert "Played: `draw; keep lift top; end`" in _page(r)
    shown = review_page(4, r, 1, 5, "P", "W", "en", played=["draw", "keep ? top", "end"])
    assert "Played: `draw; keep ? top; end`" in shown and "lift" not in shown
