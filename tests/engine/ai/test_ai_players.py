"""Computer players: legal, within budget, reproducible, blind to hidden information."""

from __future__ import annotations

import copy
import random
import time

import pytest
from ai_helpers import VARIANTS, advance, games_in_stage, mid_turn, sample_positions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game
from engine.ai import LEVELS, choose_actions

FAST = {"random": 0.05, "heuristic": 0.05, "search": 0.08, "expert": 0.08}


@pytest.fixture
def no_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the node budget alone end a decision, so a busy test machine cannot cut it
    short at a different point in two runs (the wall-clock cut is a safety net only)."""
    import engine.ai

    monkeypatch.setattr(engine.ai, "_SAFETY", 100.0)


def assert_legal_decision(game: Game, actions: list[str]) -> None:
    """The decision applies as one command and is exactly one decision."""
    me, stage = game.to_move, game.stage
    trial = game.copy()
    trial.play("; ".join(actions))  # raises IllegalAction if anything is illegal
    if stage in ("castles", "place", "king"):
        assert len(actions) == 1, actions
    else:
        last = actions[-1]
        assert last == "end" or (last == "draw" and trial.stage == "draw-keep"), actions
        assert "end" not in actions[:-1], actions
        if last == "draw":
            assert trial.to_move == me


@pytest.mark.parametrize("level", LEVELS)
def test_decisions_are_legal_in_every_variant_and_stage(level: str) -> None:
    """Over many positions (setup, turn start, mid-turn, draw-keep, late game) each level
    returns a legal, complete decision and leaves the game untouched."""
    stages = set()
    for label, game in sample_positions(36, seed=5):
        before = game.position()
        actions = choose_actions(game, FAST[level], level=level, seed=3)
        assert game.position() == before, f"{label}: the game was changed"
        assert_legal_decision(game, actions)
        stages.add(game.stage)
    assert {"place", "play"} <= stages


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("level", ["heuristic", "search"])
def test_whole_games_between_computer_players_end(variant: str, level: str) -> None:
    """A whole 3-player game with two players of *level* and one random player ends,
    every decision legal, in every variant (setup, turns, king moves included)."""
    game = Game.new(players=3, variant=variant, seed=11)
    levels = {p: level for p in game.players}
    levels[game.players[1]] = "random"
    seen_stages = set()
    for n in range(400):
        if game.stage == "over":
            break
        seen_stages.add(game.stage)
        actions = choose_actions(game, 0.03, level=levels[game.to_move], seed=n)
        assert_legal_decision(game, actions)
        game.play("; ".join(actions))
    assert game.stage == "over"
    assert game.winners
    assert "king" in seen_stages


@pytest.mark.parametrize("level", LEVELS)
def test_draw_keep_stage_returns_the_rest_of_the_turn(level: str) -> None:
    """In the personal draw-keep stage the decision starts with a keep and goes on to end."""
    game = games_in_stage("draw-keep", "personal", seed=2)
    actions = choose_actions(game, FAST[level], level=level, seed=1)
    assert actions[0].startswith("keep ")
    assert_legal_decision(game, actions)


@pytest.mark.parametrize(
    "stage,variant", [("castles", "master"), ("place", "common"), ("king", "common")]
)
@pytest.mark.parametrize("level", LEVELS)
def test_setup_and_king_decisions_are_single_actions(stage: str, variant: str, level: str) -> None:
    """Setup and king decisions (incl. the king move after scoring) are one legal action."""
    game = games_in_stage(stage, variant, seed=4)
    actions = choose_actions(game, FAST[level], level=level, seed=2)
    assert len(actions) == 1
    assert actions[0] in game.legal()


def test_king_move_after_scoring_is_legal() -> None:
    """The lowest scorer's king move after a phase's scoring is a legal king action."""
    game = Game.new(players=4, seed=3)
    for n in range(300):
        if game.stage == "king" and game.position()["king"] is not None:
            break
        game.play("; ".join(choose_actions(game, level="random", seed=n)))
    else:
        pytest.fail("no phase was scored")
    for level in LEVELS:
        actions = choose_actions(game, FAST[level], level=level, seed=0)
        assert len(actions) == 1 and actions[0].startswith("king "), actions
        assert actions[0] in game.legal()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(VARIANTS),
    players=st.integers(2, 4),
    seed=st.integers(0, 10_000),
    depth=st.integers(0, 40),
    level=st.sampled_from(["random", "heuristic"]),
)
def test_property_any_reachable_position_gets_a_legal_decision(
    variant: str, players: int, seed: int, depth: int, level: str
) -> None:
    """Property: from any position random play reaches, the decision is legal."""
    game = advance(Game.new(players=players, variant=variant, seed=seed), depth, seed)
    if game.stage == "over":
        return
    mid_turn(game, seed)
    assert_legal_decision(game, choose_actions(game, 0.03, level=level, seed=seed))


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_decision(level: str, no_deadline: None) -> None:
    """A seed fixes the decision (default seed: fixed by the position)."""
    for _, game in sample_positions(6, seed=9):
        a = choose_actions(game, 0.1, level=level, seed=42)
        b = choose_actions(game.copy(), 0.1, level=level, seed=42)
        assert a == b
        assert choose_actions(game, 0.1, level=level) == choose_actions(game, 0.1, level=level)


def test_different_seeds_can_differ() -> None:
    """The seed is used: random decisions from one position vary with it."""
    game = advance(Game.new(players=4, seed=1), 6, seed=1)
    choices = {tuple(choose_actions(game, level="random", seed=s)) for s in range(8)}
    assert len(choices) > 1


def _hide_differently(pos: dict, me: str, seed: int) -> dict:
    """The same position with the cards *me* cannot see dealt differently."""
    rng = random.Random(seed)
    out = copy.deepcopy(pos)
    hands, decks = out["hands"], out["decks"]
    others = [p for p in out["players"] if p != me]
    if out["variant"] == "common":
        pool = [c for p in others for c in hands[p]] + list(decks.get("common", []))
        rng.shuffle(pool)
        for p in others:
            n = len(hands[p])
            hands[p], pool = pool[:n], pool[n:]
        decks["common"] = pool
    elif out["variant"] == "personal":
        for p in out["players"]:
            mine = p == me
            pool = list(decks.get(p, [])) + ([] if mine else list(hands[p]))
            rng.shuffle(pool)
            if not mine:
                n = len(hands[p])
                hands[p], pool = pool[:n], pool[n:]
            decks[p] = pool
    return out


@pytest.mark.parametrize("variant", ["common", "personal"])
@pytest.mark.parametrize("level", LEVELS)
def test_hidden_information_is_not_used(variant: str, level: str, no_deadline: None) -> None:
    """Two games that differ only in other hands and deck order get the same decision."""
    tested = 0
    for seed in range(12):
        game = advance(Game.new(players=3, variant=variant, seed=seed), 9 + seed % 5, seed)
        if game.stage not in ("play", "draw-keep"):
            continue
        me = game.to_move
        pos = game.position()
        other = Game.from_position(_hide_differently(pos, me, seed))
        assert other.position(viewer=me) == game.position(viewer=me)
        if other.position() == pos:
            continue  # nothing hidden to vary yet
        for s in (None, 5):
            assert choose_actions(game, 0.08, level=level, seed=s) == choose_actions(
                other, 0.08, level=level, seed=s
            )
        tested += 1
    assert tested >= 3


@pytest.mark.parametrize("level", LEVELS)
def test_time_budget_is_respected(level: str) -> None:
    """A decision takes at most a generous multiple of its budget (strict figures: bench)."""
    for _, game in sample_positions(6, seed=13):
        for seconds in (0.05, 0.3):
            t0 = time.perf_counter()
            choose_actions(game, seconds, level=level, seed=1)
            assert time.perf_counter() - t0 < 3 * seconds + 1.0


def test_bad_arguments_get_clear_errors() -> None:
    """An unknown level, a negative budget or a finished game raise ValueError."""
    game = Game.new(players=2, seed=0)
    with pytest.raises(ValueError, match="Unknown level"):
        choose_actions(game, level="grandmaster")
    with pytest.raises(ValueError, match="negative"):
        choose_actions(game, -1)
    for n in range(400):
        if game.stage == "over":
            break
        game.play("; ".join(choose_actions(game, level="random", seed=n)))
    with pytest.raises(ValueError, match="over"):
        choose_actions(game)


def test_expert_turn_is_never_worse_than_the_greedy_turn(no_deadline: None) -> None:
    """The expert's population starts from its greedy turn and the beam's, keeps its
    best and plays it, so its turn ends at least as well as the heuristic level's by
    its own static evaluation (master variant: no draw, so the end of a turn is the
    same in every sampled world)."""
    from engine.ai._expert_eval import evaluate

    compared = 0
    for seed in range(10):
        game = advance(Game.new(players=3, variant="master", seed=seed), 6 + seed, seed)
        if game.stage != "play":
            continue
        me = game.to_move
        values = {}
        for level in ("heuristic", "expert"):
            trial = game.copy()
            trial.play("; ".join(choose_actions(game, 0.3, level=level, seed=seed)))
            values[level] = evaluate(trial.position(), me)
        assert values["expert"] >= values["heuristic"] - 1e-9, (seed, values)
        compared += 1
    assert compared >= 3


def test_expert_keeps_to_its_node_budget() -> None:
    """Work is counted in evaluated positions: with the deadline far away, the expert
    stops within one step of its allowance (the same allowance ``search`` gets)."""
    from engine.ai._expert import expert_decision
    from engine.ai._plan import Budget

    for _, game in sample_positions(12, seed=21):
        me = game.to_move
        for nodes in (40, 400):
            budget = Budget(nodes, time.perf_counter() + 600)
            actions = expert_decision(game, me, game.position(viewer=me), random.Random(1), budget)
            assert_legal_decision(game, actions)
            assert budget.used <= nodes + 64, (nodes, budget.used)
