"""The phase summary shows each castle that scored and the king's bonus, and they add up
to the points the engine gave, in random games of every variant and player count."""

from __future__ import annotations

import random

import pytest

from bot.core.service import _random_decision
from bot.db.rows import SeatRow
from bot.texts.posts import castle_points, phase_summary
from engine import Game


def _seats(names: list[str]) -> list[SeatRow]:
    return [SeatRow(1, i, 100 + i, f"P{i}", n, False, False, 0.0) for i, n in enumerate(names)]


@pytest.mark.parametrize(("players", "variant"), [(2, "common"), (3, "personal"), (4, "master")])
def test_castles_listed_add_up_to_the_points_scored(players: int, variant: str):
    names = ["red", "blue", "green", "yellow"][:players]
    rng = random.Random(players)
    game = Game.new(players, names=names, variant=variant, seed=players * 11)
    scored = 0
    while game.stage != "over":
        for action in _random_decision(game, rng):
            events = game.play(action) or []
            for event in events:
                if event.get("type") != "phase_scored":
                    continue
                scored += 1
                detail = castle_points(game.position())
                for name in names:
                    listed = sum(area * level for _, area, level in detail[name])
                    assert listed == event["points"][name]["castles"]
                text = phase_summary(event, _seats(names), game.position())
                for name in names:
                    for where, area, level in detail[name]:
                        squares = "square" if area == 1 else "squares"
                        assert f"castle {where}: {area} {squares} × level {level} = " in text
                    king = event["points"][name]["king"]
                    assert (f"king's bonus {king}" in text) == bool(king)
    assert scored == 3


def test_a_castle_is_named_by_its_first_square_and_counts_the_best_knight_once():
    position = {
        "heights": {"c3": 2, "c4": 1, "d3": 1, "f6": 3},
        "knights": {"red": ["c3", "c4", "f6"], "blue": ["d3"]},
    }
    assert castle_points(position) == {
        "red": [("c3", 3, 2), ("f6", 1, 3)],  # highest points first
        "blue": [("c3", 3, 1)],
    }


@pytest.mark.parametrize("seed", [4, 9])  # random games where some markers leap-frog
def test_leap_frog_is_explained_exactly_where_it_happened(seed: int):
    """A marker that would stop on a taken space moves on (docs/rules.md §4): the summary
    says so in one line for that player, and for nobody whose marker landed where earned."""
    names = ["red", "blue"]
    rng = random.Random(seed)
    game = Game.new(2, names=names, seed=seed)
    seen = {True: 0, False: 0}
    while game.stage != "over":
        for action in _random_decision(game, rng):
            prior = dict(game.scores)
            for event in game.play(action) or []:
                if event.get("type") != "phase_scored":
                    continue
                text = phase_summary(event, _seats(names), game.position(), prior=prior)
                lines = text.splitlines()
                for i, name in enumerate(names):
                    earned = sum(event["points"][name].values())
                    jumped = bool(earned) and event["scores"][name] != prior[name] + earned
                    seen[jumped] += 1
                    start = next(k for k, x in enumerate(lines) if f"(P{i}): +" in x)
                    mine = lines[start : start + 3]
                    said = [x for x in mine if x.startswith("↳ Leap-frog")]
                    assert bool(said) == jumped, (name, prior, event, text)
                    if jumped:
                        space = prior[name] + earned
                        assert said[0] == (
                            f"↳ Leap-frog: space {space} was taken, so the marker moved on "
                            f"to {event['scores'][name]}."
                        )
    assert seen[False] and seen[True], seen  # both cases happen


def test_leap_frog_line_in_each_language():
    event = {
        "phase": 1,
        "points": {"red": {"castles": 4}, "blue": {"castles": 4}},
        "scores": {"red": 4, "blue": 5},
    }
    for lang, word in (("en", "Leap-frog"), ("de", "Bockspringen"), ("nl", "Haasje-over")):
        text = phase_summary(event, _seats(["red", "blue"]), None, lang, {"red": 0, "blue": 0})
        assert text.count(word) == 1, text
