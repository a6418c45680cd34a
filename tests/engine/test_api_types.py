"""The typed values of the Python interface still read as the contract's strings and dicts."""

from __future__ import annotations

import json
import random

import pytest
from rules_helpers import Pos

from engine import (
    Game,
    GameOver,
    NotationError,
    PhaseScored,
    Stage,
    TurnEnd,
    decision_over,
    split_actions,
)
from engine.ai import random_decision


def test_stage_is_its_name():
    """NOTATION `stage`: Game.stage is a Stage that equals, hashes and prints as its string."""
    game = Game.new(players=2)
    assert game.stage == "place" and isinstance(game.stage, str)
    assert game.stage is Stage.PLACE
    assert f"{game.stage}" == "place"
    assert {"place": 1}[game.stage] == 1
    assert json.dumps(game.position())  # the position holds plain strings
    assert type(game.position()["stage"]) is str


def test_events_read_as_the_documented_dicts():
    """Ruling 24: turn_end, phase_scored, game_over; typed, and equal to their dicts."""
    game = (
        Pos()
        .h(c3=2, c4=1)
        .knights("a", "c3")
        .phase(3, 4)
        .starters("a")
        .to_move("b")
        .stacks("a", [])
        .stacks("b", [3])
        .game()
    )
    events = game.play("end")
    assert [type(e) for e in events] == [TurnEnd, PhaseScored, GameOver]
    turn_end, scored, over = events
    assert turn_end == {"type": "turn_end", "player": "b"}
    assert turn_end.player == "b" and turn_end["player"] == "b"
    assert scored["type"] == "phase_scored" and scored.phase == 3
    assert scored.points["a"] == {"castles": 4, "king": 0, "master": 0}
    assert dict(over) == {"type": "game_over", "scores": {"a": 4, "b": 0}, "winners": ["a"]}
    assert over.get("winners") == ["a"] and over.get("nothing") is None
    assert json.loads(json.dumps([dict(e) for e in events]))[2]["winners"] == ["a"]


def test_decision_over():
    """A setup or king choice is one decision; a turn ends with `end` (or the game with it)."""
    assert decision_over("place", [])
    assert decision_over(Stage.KING, [])
    assert not decision_over("play", [])
    assert not decision_over("draw-keep", [])
    assert decision_over("play", [TurnEnd("red")])
    assert decision_over("play", [{"type": "game_over"}])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Move c3 d3 d4;  build e4 e5\nscore 2",
            ["move c3 d3", "move d3 d4", "build e4", "build e5", "score", "score"],
        ),
        ("play jump C3 c4; keep ap6 top; stack 3", ["play jump c3 c4", "keep ap6 top", "stack 3"]),
        ("play lift c3; king pass; end", ["play lift c3", "king pass", "end"]),
        ("move c3; score 0; dance", ["move c3", "score 0", "dance"]),  # left for play() to refuse
        ("score 500", ["score 500"]),  # more steps than any turn has: not expanded
        (" ; ;\n", []),
    ],
)
def test_split_actions(text, expected):
    """NOTATION shorthands: expanded to canonical single actions; unreadable clauses kept."""
    assert split_actions(text) == expected


def test_split_actions_play_like_the_whole_text():
    """Playing the split actions one by one is playing the text."""
    text = "move c3 d3 d4; build e4; score 2"
    pos = Pos().h(c3=1, d3=1, d4=1, e4=1).knights("a", "c3").build()
    whole, steps = Game.from_position(pos), Game.from_position(pos)
    whole.play(text)
    for action in split_actions(text):
        steps.play(action)
    assert whole.position() == steps.position()


@pytest.mark.parametrize("variant", ["common", "personal", "master"])
def test_random_decision_is_one_whole_decision(variant):
    """engine.ai.random_decision: legal, a whole decision, and the game is left unchanged."""
    rng = random.Random(3)
    game = Game.new(players=3, variant=variant, seed=3)
    for _ in range(40):
        if game.over:
            break
        before = game.position()
        me, stage = game.to_move, game.stage
        actions = random_decision(game, rng, cap=6, end_chance=0.2, through_draw=True)
        assert game.position() == before
        events = []
        for i, action in enumerate(actions):
            assert game.to_move == me
            stage = game.stage
            events = game.play(action)
            assert decision_over(stage, events) == (i == len(actions) - 1)


def test_height_reads_one_square():
    """``Game.height`` is the square's level as the position's heights give it."""
    game = Game.from_position(
        {
            "format": "torres-position/1",
            "players": ["red", "blue"],
            "to_move": "red",
            "heights": {"c3": 2, "c4": 1},
            "knights": {"red": ["c3"], "blue": []},
        }
    )
    assert (game.height("c3"), game.height("c4"), game.height("h8")) == (2, 1, 0)
    with pytest.raises(NotationError, match="'z9' is not a square"):
        game.height("z9")
