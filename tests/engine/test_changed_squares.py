"""`changed_squares`: what a turn changed, for the highlighted squares in pictures."""

from engine import changed_squares


def test_heights_knights_of_any_colour_and_the_king_count() -> None:
    """A raised block, a knight leaving and arriving, and the king moving are all changes."""
    before = {
        "heights": {"a1": 1, "b2": 2},
        "knights": {"red": ["a1"], "blue": ["c3"]},
        "king": "b2",
    }
    after = {
        "heights": {"a1": 1, "b2": 3},
        "knights": {"red": ["a2"], "blue": ["c3"]},
        "king": "d4",
    }
    assert changed_squares(before, after) == ["a1", "a2", "b2", "d4"]
    assert changed_squares(after, after) == []


def test_a_new_castle_square_and_a_knight_changing_colour() -> None:
    """A block on bare ground and a square whose knight is now another player's are changes."""
    before = {"heights": {"c3": 1, "d4": 2}, "knights": {"red": ["c3"], "blue": []}, "king": "d4"}
    after = {
        "heights": {"c3": 1, "d4": 2, "e4": 1},
        "knights": {"red": ["c4"], "blue": ["c3"]},
        "king": "d4",
    }
    assert changed_squares(before, after) == ["c3", "c4", "e4"]
