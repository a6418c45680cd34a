"""The tutorial's lesson script (bot.core.learn): which lesson is due, what tries it,
what its picture marks. Scenario positions in the notation (docs/notation.md)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core import learn
from bot.core.learn import COMPUTER, LEARNER, PLAYERS, SCRIPT
from engine import Game

SETUP = ["place", "king"]
TURN_1 = [*SETUP, "move", "stack", "build"]
TURN_2 = [*TURN_1, "knight", "door"]
BEFORE_SCORING = [*TURN_2, "cards", "play", "score"]


def _game(**fields: Any) -> Game:
    position = {"format": "torres-position/1", "players": list(PLAYERS), **fields}
    return Game.from_position(position)


def _playing(round_: int = 1, **fields: Any) -> Game:
    """The learner to move in phase 1, round *round_*, the king on a5."""
    heights = fields.pop("heights", {"d4": 1, "a5": 1, "f6": 1})
    knights = fields.pop("knights", {COMPUTER: ["f6"], LEARNER: ["c4"]})
    return _game(
        stage="play",
        phase=1,
        round=round_,
        to_move=LEARNER,
        heights=heights,
        knights=knights,
        king="a5",
        **fields,
    )


def test_the_learner_places_a_knight_then_the_king_in_the_setup():
    game = Game.new(names=list(PLAYERS), seed=3)
    assert learn.due(game, [], []) is None, "the computer places first: nothing for the learner"
    game.play("place c3")
    lesson = learn.due(game, [], [])
    assert lesson is not None and lesson.id == "place"
    assert learn.highlight(lesson, game) == ["a5", "c6", "d1", "e8", "f3", "f6", "h4"]
    assert learn.offered(game, ["place"], []) == [a for a in game.legal()]
    assert learn.tried_by("place f6", game, ["place"], []) == "place"
    game.play("place f6")
    lesson = learn.due(game, ["place"], ["place"])
    assert lesson is not None and lesson.id == "king", "the last to place a knight sets the king"
    assert "f6" not in learn.highlight(lesson, game), "the king goes on an empty castle"


def test_the_first_turn_teaches_moving_then_the_stack_then_building_one_at_a_time():
    game = _playing(1)
    shown, tried = list(SETUP), list(SETUP)
    lesson = learn.due(game, shown, tried)
    assert lesson is not None and lesson.id == "move"
    shown.append("move")
    assert learn.due(game, shown, tried) is None, "the next waits until this one is tried"
    offered = learn.offered(game, shown, tried)
    assert offered and all(a.startswith("move ") for a in offered)
    assert "end" not in offered and not any(a.startswith("build") for a in offered)
    assert learn.tried_by("move c4 c3", game, shown, tried) == "move"
    game.play("move c4 c3")
    tried.append("move")
    assert learn.due(game, shown, tried).id == "stack"
    game.play("stack 3")
    assert learn.due(game, [*shown, "stack"], [*tried, "stack"]).id == "build"
    shown, tried = TURN_1, TURN_1
    assert learn.due(game, shown, tried) is None, "adding a knight waits for the second turn"
    assert learn.offered(game, shown, tried) is None, "no lesson open: every action"


def test_a_door_is_taught_when_a_door_passage_can_be_made():
    # blue's knight at level 0 on c4 beside the castle d4 (height 1): in by d4's door,
    # out onto d3, d5 or e4 (1 AP).
    game = _playing(2)
    lesson = learn.due(game, TURN_1 + ["knight"], TURN_1 + ["knight"])
    assert lesson is not None and lesson.id == "door"
    offered = learn.offered(game, [*TURN_1, "knight", "door"], [*TURN_1, "knight"])
    assert offered == ["move c4 d3", "move c4 d5", "move c4 e4"]
    assert learn.tried_by("move c4 c5", game, [*TURN_2], [*TURN_1, "knight"]) is None
    assert learn.highlight(lesson, game) == ["c4", "d3", "d5", "e4"]


def test_no_door_lesson_while_no_door_can_be_used():
    # On top of the castle's only block there is no higher wall to enter by.
    game = _playing(2, knights={COMPUTER: ["f6"], LEARNER: ["d4"]})
    assert learn.due(game, TURN_1 + ["knight"], TURN_1 + ["knight"]) is None
    assert not learn.is_door("move d4 d3") and learn.is_door("move c4 e4")


def test_cards_then_a_card_play_then_the_scoring_track():
    game = _playing(3)
    assert learn.due(game, TURN_2, TURN_2).id == "cards"
    game = _playing(4, hands={COMPUTER: [], LEARNER: ["ap6"]})
    shown = [*TURN_2, "cards"]
    assert learn.due(game, shown, shown).id == "play"
    assert learn.offered(game, [*shown, "play"], shown) == ["play ap6"]
    game = _playing(4)  # no card to play: the scoring track comes first
    assert learn.due(game, shown, shown).id == "score"


def _scored(to_move: str) -> Game:
    """After phase 1's scoring: the king stage; *to_move* has the fewest points."""
    low, high = (LEARNER, COMPUTER) if to_move == LEARNER else (COMPUTER, LEARNER)
    return _game(
        stage="king",
        phase=1,
        round=4,
        to_move=to_move,
        heights={"d4": 2, "d5": 1, "a5": 1, "f6": 1},
        knights={COMPUTER: ["f6"], LEARNER: ["d4"]},
        king="a5",
        scores={low: 3, high: 9},
        stacks={COMPUTER: [], LEARNER: []},
    )


@pytest.mark.parametrize("mover", [LEARNER, COMPUTER])
def test_the_scoring_is_confirmed_then_the_king_is_moved(mover):
    game = _scored(mover)
    lesson = learn.due(game, BEFORE_SCORING, BEFORE_SCORING)
    assert lesson is not None and lesson.id == "scoring"
    assert learn.highlight(lesson, game) == ["a5", "d4", "d5"], "the learner's castle, the king's"
    shown = [*BEFORE_SCORING, "scoring"]
    assert learn.offered(game, shown, BEFORE_SCORING) == [], "tried by confirming it"
    lesson = learn.due(game, shown, shown)
    assert lesson is not None and lesson.id == "king_move"
    offered = learn.offered(game, [*shown, "king_move"], shown)
    if mover == LEARNER:
        assert offered == game.legal() and "king pass" in offered
        assert learn.tried_by("king pass", game, [*shown, "king_move"], shown) == "king_move"
    else:
        assert offered == [], "the computer moves him: the learner confirms"
        assert learn.confirmed_by_button(lesson, game)
        assert learn.highlight(lesson, game) == ["a5"]


def test_the_tutorial_is_finished_when_every_lesson_is_tried():
    game = _playing(4)
    everything = [lesson.id for lesson in SCRIPT]
    assert not learn.finished(game, everything[:-1])
    assert learn.finished(game, everything)
    assert learn.finished(_game(stage="over", to_move=None), []), "or when the game is over"
    assert len(set(everything)) == len(everything) == 12


def test_each_lesson_comes_once_in_a_whole_tutorial_played_by_the_computer():
    """Lessons shown once each, in the script's order, each tried before the next."""
    from engine.ai import choose_actions

    game = Game.new(names=list(PLAYERS), seed=21)
    shown: list[str] = []
    tried: list[str] = []
    for _ in range(400):
        if learn.finished(game, tried):
            break
        lesson = learn.due(game, shown, tried)
        if lesson is not None:
            assert lesson.id not in shown
            shown.append(lesson.id)
            continue
        offered = learn.offered(game, shown, tried)
        if offered == []:
            tried.append(shown[-1])
        elif game.to_move == LEARNER:
            action = offered[0] if offered else choose_actions(game, 0.02, level="heuristic")[0]
            if (done := learn.tried_by(action, game, shown, tried)) is not None:
                tried.append(done)
            game.play(action)
            continue
        if game.to_move == COMPUTER and game.stage != "over":
            game.play("; ".join(choose_actions(game, 0.02, level="heuristic")))
    assert shown == tried == [lesson.id for lesson in SCRIPT]
