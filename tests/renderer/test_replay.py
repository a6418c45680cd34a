"""Replays: whole computer games pictured turn by turn, and the animated replay."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from engine import Game
from renderer import replay


@pytest.mark.parametrize("fmt", ["gif", "webp"])
def test_animate_makes_one_small_frame_per_position(fmt: str) -> None:
    """One frame per position, scaled to the asked width, in the asked format."""
    game = Game.new(players=2, seed=4)
    positions = [game.position()]
    for action in game.legal()[:2]:
        g = game.copy()
        g.play(action)
        positions.append(g.position())
    data = replay.animate(positions, [[], ["c3"], ["f6"]], width=300, format=fmt)
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == fmt.upper()
        assert im.n_frames == 3
        assert im.width == 300


def test_animate_rejects_bad_arguments() -> None:
    """Clear errors for nothing to animate, a wrong format or mismatched highlights."""
    pos = Game.new(players=2).position()
    with pytest.raises(ValueError, match="at least one"):
        replay.animate([])
    with pytest.raises(ValueError, match="format"):
        replay.animate([pos], format="avi")
    with pytest.raises(ValueError, match="highlight"):
        replay.animate([pos, pos], [[]])


def test_command_writes_a_picture_per_decision_and_the_replay(tmp_path, capsys) -> None:
    """`python -m renderer.replay` plays a whole game and writes PNGs plus replay.gif."""
    out = tmp_path / "demo"
    code = replay.main(["--ai", "2", "--out", str(out), "--level", "random", "--seed", "3"])
    assert code == 0
    pictures = sorted(out.glob("decision-*.png"))
    log = capsys.readouterr().out
    assert "final scores" in log and "winner" in log
    decisions = [line for line in log.splitlines() if ":" in line and line[:3].strip().isdigit()]
    assert len(pictures) == len(decisions) + 1  # the start, then one per decision
    with Image.open(out / "replay.gif") as im:
        assert im.n_frames == len(pictures)
        assert im.width == 600
    assert (out / "replay.gif").stat().st_size < 8 * 1024 * 1024


def test_command_rejects_bad_player_counts(tmp_path, capsys) -> None:
    """A player count Torres does not have is refused with a one-line error."""
    assert replay.main(["--ai", "5", "--out", str(tmp_path)]) == 1
    assert "2, 3 or 4" in capsys.readouterr().err
