"""Every stage of real games draws cleanly (engine play, all variants)."""

from __future__ import annotations

import itertools
import random

import pytest

import renderer
import renderer.geometry as g
from engine import Game


def positions_of_a_game(variant: str, players: int, seed: int, every: int = 12):
    """Positions along a random game: each new stage, and every ``every`` actions."""
    rng = random.Random(seed)
    game = Game.new(players=players, variant=variant, seed=seed)
    last_stage = None
    for n in itertools.count():
        if game.stage != last_stage or n % every == 0:
            last_stage = game.stage
            yield game.position()
        if game.stage == "over":
            return
        game.play(rng.choice(game.legal()))


@pytest.mark.parametrize(
    ("variant", "players", "seed"),
    [("common", 4, 1), ("personal", 3, 2), ("master", 2, 3), ("master", 4, 4)],
)
def test_every_stage_of_a_game_renders_cleanly(variant, players, seed):
    """From setup to game over: knights where the position says, text on the
    canvas and apart, the player to move marked, hidden hands never named."""
    seen_stages = set()
    for pos in positions_of_a_game(variant, players, seed):
        seen_stages.add(pos["stage"])
        viewer = pos["to_move"] or pos["players"][0]
        r = renderer.render(pos, viewer=viewer)
        drawn = sorted((p.owner, p.square) for p in r.pieces if p.kind == "knight")
        expected = sorted((p, sq) for p, squares in pos["knights"].items() for sq in squares)
        assert drawn == expected
        assert [p.square for p in r.pieces if p.kind == "king"] == (
            [pos["king"]] if pos["king"] else []
        )
        flat = r.texts
        for t in r.texts:
            assert t.box[0] >= 0 and t.box[1] >= 0, t
            assert t.box[2] <= g.WIDTH and t.box[3] <= g.HEIGHT, t
        for a, b in itertools.combinations(flat, 2):
            assert not (
                a.box[0] < b.box[2]
                and b.box[0] < a.box[2]
                and a.box[1] < b.box[3]
                and b.box[1] < a.box[3]
            ), (pos["stage"], a, b)
        if pos["to_move"]:
            assert any(t.text.startswith("▶ ") for t in r.texts)
        others = [c for p, hand in pos["hands"].items() if p != viewer for c in hand]
        own = set(pos["hands"][viewer])
        footer = " ".join(t.text for t in r.texts if t.layer == "footer")
        for card in set(others) - own:
            assert card not in footer.replace("Master card", "")
    assert {"place", "play", "over"} <= seen_stages
