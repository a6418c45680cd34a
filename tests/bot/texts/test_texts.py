"""The wording of public messages that players read after a phase is scored."""

from __future__ import annotations

from bot.db.rows import SeatRow
from bot.texts.posts import phase_summary


def _seat(seat: int, name: str, display: str) -> SeatRow:
    return SeatRow(1, seat, 100 + seat, display, name, False, False, 0.0)


def test_phase_summary_names_each_source_of_points_and_the_new_score() -> None:
    """RULES §7: castle points, the king's bonus and the master card, added up per player."""
    event = {
        "type": "phase_scored",
        "phase": 2,
        "points": {
            "red": {"castles": 12, "king": 10, "master": 0},
            "blue": {"castles": 0, "king": 0, "master": 5},
        },
        "scores": {"red": 31, "blue": 9},
    }
    text = phase_summary(event, [_seat(1, "red", "Ann"), _seat(2, "blue", "Bob")])
    lines = text.splitlines()
    assert lines[0] == "**Phase 2 scoring**"
    assert lines[1] == "🔴 red (Ann): +22 (castles 12 + king 10), now 31 points"
    assert lines[2] == "🔵 blue (Bob): +5 (castles 0 + master card 5), now 9 points"
