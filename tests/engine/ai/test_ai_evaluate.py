"""The evaluation and the sampling of hidden cards, on positions in the notation."""

from __future__ import annotations

import random
from collections import Counter

from engine import CARDS, Game
from engine.ai._evaluate import castle_points, evaluate, pending_phase, player_values
from engine.ai._hidden import sample_position


def pos(**fields) -> dict:
    base = {
        "format": "torres-position/1",
        "players": ["red", "blue"],
        "stage": "play",
        "phase": 1,
        "round": 1,
        "to_move": "red",
        "heights": {},
        "knights": {"red": [], "blue": []},
        "king": None,
        "scores": {"red": 0, "blue": 0},
        "stacks": {"red": [2, 2, 2], "blue": [2, 2, 2, 2]},
        "hands": {"red": [], "blue": []},
        "turn": {"ap": 0, "stack": None, "drawn": [], "played": False, "revealed": []},
    }
    base.update(fields)
    return base


def test_castle_points_follow_rules_section_7() -> None:
    """Area × level of the player's highest knight, once per castle; level 0 scores nothing."""
    p = pos(
        heights={"c3": 2, "c4": 1, "d3": 1, "f6": 3, "f7": 2, "f5": 1, "a1": 1},
        knights={"red": ["c3", "c4", "f7", "b1"], "blue": ["d3", "f6"]},
    )
    # red: castle {c3,c4,d3} area 3 at level 2 -> 6; castle {f5,f6,f7} area 3 at level 2 -> 6
    # blue: 3 x 1 + 3 x 3 = 12
    assert castle_points(p) == {"red": 12, "blue": 12}


def test_king_bonus_needs_exactly_the_phase_level() -> None:
    """A knight exactly on level 1 of the king's castle is worth 5 more in phase 1."""
    base = dict(heights={"c3": 1, "c4": 2}, king="c4")
    on1 = player_values(pos(knights={"red": ["c3"], "blue": []}, **base))
    on2 = player_values(pos(knights={"red": [], "blue": []}, **base))
    assert on1["red"] - on2["red"] > 5  # castle points (2 x 1) + bonus 5 + knight term


def test_pending_phase_after_scoring_is_the_next_one() -> None:
    """In the king stage after scoring the next scoring is the next phase's."""
    assert pending_phase(pos(stage="king", phase=1, king="c3")) == 2
    assert pending_phase(pos(stage="king", phase=1, king=None)) == 1
    assert pending_phase(pos(stage="over", phase=3)) is None
    assert pending_phase(pos(stage="play", phase=2)) == 2


def test_evaluate_prefers_more_points_and_is_relative() -> None:
    """More points for me is better; more points for my opponent is worse."""
    a = pos(scores={"red": 10, "blue": 5})
    b = pos(scores={"red": 12, "blue": 5})
    c = pos(scores={"red": 10, "blue": 9})
    assert evaluate(b, "red") > evaluate(a, "red") > evaluate(c, "red")
    assert evaluate(c, "blue") > evaluate(a, "blue")


def test_finished_game_rewards_the_win() -> None:
    """Once over, winning outweighs any margin."""
    won = pos(stage="over", phase=3, scores={"red": 40, "blue": 39}, to_move=None)
    lost = pos(stage="over", phase=3, scores={"red": 39, "blue": 40}, to_move=None)
    assert evaluate(won, "red") - evaluate(lost, "red") > 50


def _viewer_game(variant: str, seed: int) -> tuple[Game, str]:
    game = Game.new(players=3, variant=variant, seed=seed)
    me = game.to_move
    return game, me


def test_sampled_position_keeps_what_the_viewer_sees_and_hides_nothing_else() -> None:
    """The sample equals the view except where the view says "hidden", and is a valid game."""
    for variant in ("common", "personal", "master"):
        game, me = _viewer_game(variant, seed=3)
        view = game.position(viewer=me)
        sample = sample_position(view, me, random.Random(1))
        assert "hidden" not in repr(sample)
        Game.from_position(sample)  # valid
        assert sample["hands"][me] == view["hands"][me]
        for p, hand in view["hands"].items():
            assert len(sample["hands"][p]) == len(hand)
        for name, deck in view["decks"].items():
            assert len(sample["decks"][name]) == len(deck)
        for field in ("heights", "knights", "king", "scores", "stacks", "stage", "to_move"):
            assert sample[field] == view[field]


def test_common_sample_never_has_more_than_four_of_a_card() -> None:
    """The common deck has 4 of each card: samples respect it, counting my own hand."""
    game, me = _viewer_game("common", seed=8)
    view = game.position(viewer=me)
    for s in range(20):
        sample = sample_position(view, me, random.Random(s))
        cards = Counter(c for h in sample["hands"].values() for c in h)
        cards += Counter(c for d in sample["decks"].values() for c in d)
        assert set(cards) <= set(CARDS)
        assert max(cards.values()) <= 4


def test_personal_sample_deals_each_player_distinct_cards() -> None:
    """In personal decks a player's hand and deck hold one card of each kind at most."""
    game, me = _viewer_game("personal", seed=5)
    view = game.position(viewer=me)
    sample = sample_position(view, me, random.Random(0))
    for p in sample["players"]:
        cards = list(sample["hands"][p]) + list(sample["decks"].get(p, []))
        assert len(cards) == len(set(cards))


def test_samples_vary_with_the_rng() -> None:
    """Different draws give different hidden cards (the search sees many worlds)."""
    game, me = _viewer_game("common", seed=2)
    view = game.position(viewer=me)
    decks = {
        tuple(sample_position(view, me, random.Random(s))["decks"]["common"]) for s in range(5)
    }
    assert len(decks) > 1


def test_a_step_up_within_reach_is_worth_something() -> None:
    """A knight next to a free square one level higher is better placed than one whose
    step is blocked by a knight or two levels up (same castle points in all three)."""
    heights = {"c3": 1, "c4": 2, "c5": 2}
    free = pos(heights=heights, knights={"red": ["c3"], "blue": []})
    blocked = pos(heights=heights, knights={"red": ["c3"], "blue": ["c4"]})
    assert castle_points(free)["red"] == castle_points(blocked)["red"] == 3
    assert player_values(free)["red"] > player_values(blocked)["red"]
    too_high = pos(heights={"c3": 1, "c4": 3, "c5": 3, "c6": 3}, knights={"red": ["c3"]})
    flat = pos(heights={"c3": 1, "c4": 1, "c5": 1, "c6": 1}, knights={"red": ["c3"]})
    assert player_values(too_high)["red"] == player_values(flat)["red"]


def test_expert_values_add_the_first_three_knights_with_the_common_deck_only() -> None:
    """The expert's own evaluation: the shared value plus an extra for each of a
    player's first three knights (phases 1 and 2), with the common deck only."""
    from engine.ai._expert_eval import _FIRST_KNIGHTS, expert_values

    knights = {"red": ["a1", "a2", "a3", "a4"], "blue": ["h8"]}
    for phase, extra in ((1, _FIRST_KNIGHTS[1]), (2, _FIRST_KNIGHTS[2])):
        p = pos(phase=phase, knights=knights, variant="common")
        shared, own = player_values(p), expert_values(p)
        assert own["red"] - shared["red"] == 3 * extra > 0
        assert own["blue"] - shared["blue"] == extra
    for variant in ("personal", "master"):
        p = pos(knights=knights, variant=variant)
        assert expert_values(p) == player_values(p)


def test_expert_weighs_the_cards_in_hand_more_with_the_common_deck_only() -> None:
    """A hand is worth ``_CARDS[variant]`` times its shared worth to the expert (more
    with the common deck), to the player to move and to the others alike."""
    from engine.ai._expert_eval import _CARDS, expert_values

    assert _CARDS["common"] > 1
    hands = {"red": ["jump", "ap7"], "blue": ["lift"]}
    for variant in ("common", "personal", "master"):
        weight = _CARDS.get(variant, 1.0)
        held = pos(hands=hands, variant=variant)
        empty = pos(variant=variant)
        for p in ("red", "blue"):
            shared = player_values(held)[p] - player_values(empty)[p]
            own = expert_values(held)[p] - expert_values(empty)[p]
            assert shared > 0
            assert abs(own - weight * shared) < 1e-9


def test_expert_weighs_the_others_more_until_the_game_is_over() -> None:
    """The expert's value: a point of the others' costs ``_OTHERS`` times what it costs
    in the shared value; a point of its own is worth the same; once the game is over
    the two agree (margin and win)."""
    from engine.ai import _expert_eval

    weight = _expert_eval._OTHERS
    assert weight > 1
    base = pos(scores={"red": 10, "blue": 5}, variant="personal")
    mine = pos(scores={"red": 12, "blue": 5}, variant="personal")
    theirs = pos(scores={"red": 10, "blue": 7}, variant="personal")
    for e in (evaluate, _expert_eval.evaluate):
        assert e(mine, "red") - e(base, "red") == 2
    assert evaluate(base, "red") - evaluate(theirs, "red") == 2
    assert _expert_eval.evaluate(base, "red") - _expert_eval.evaluate(theirs, "red") == 2 * weight
    for scores in ({"red": 40, "blue": 39}, {"red": 39, "blue": 40}):
        over = pos(stage="over", phase=3, scores=scores, to_move=None, variant="personal")
        assert _expert_eval.evaluate(over, "red") == evaluate(over, "red")


def test_a_formation_master_card_counts_only_in_phase_3() -> None:
    """A formation held now (here ``row``: all knights on one file) is worth a share of
    its 50 points in phase 3 only, to every level: one held in phase 1 or 2 is rarely
    still held when it scores, and counting it made the players chase it."""
    from engine.ai._evaluate import _FORMATION_SHARE
    from engine.ai._expert_eval import expert_values

    def gain(values, phase: int, card: str = "row") -> float:
        def at(red: list[str]) -> dict:
            knights = {"red": red, "blue": ["c3", "e6"]}
            return pos(phase=phase, variant="master", master_card=card, knights=knights)

        return values(at(["a1", "a5"]))["red"] - values(at(["a1", "b5"]))["red"]

    for values in (player_values, expert_values):
        assert gain(values, 1) == gain(values, 2) == 0
        assert gain(values, 3) == 50 * _FORMATION_SHARE > 0
    # a master card scored after every phase counts from phase 1 on
    assert gain(player_values, 1, "border") > 0
