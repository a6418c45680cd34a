"""legal() against an independent plain reference (reference_rules.py) on many positions.

Two sources of positions: random legal games (every variant, 2-4 players) and
random constructed mid-turn positions with tall castles, full hands and odd
stacks, which random games rarely reach.  On a mismatch the assertion prints
the position and the difference.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_rules import SQUARES, components, orth, reference_legal
from rules_helpers import ACTION_CARDS, blocks_total
from test_rules_legal_sets import SETS, parse

from engine import Game, IllegalAction, NotationError


def compare(game: Game, context: str = "") -> list[str]:
    pos = game.position()
    got = game.legal()
    want = reference_legal(pos)
    if got != want:
        missing = sorted(set(want) - set(got))
        extra = sorted(set(got) - set(want))
        raise AssertionError(
            f"legal() differs from the reference {context}\n"
            f"missing (reference has): {missing}\nextra (engine has): {extra}\n"
            f"position: {json.dumps(pos, sort_keys=True)}"
        )
    return got


@pytest.mark.parametrize("path", SETS, ids=lambda p: Path(p).stem)
def test_reference_agrees_with_the_hand_worked_sets(path):
    """The reference itself reproduces every hand-worked set (so it is worth trusting)."""
    position, actions, expected = parse(path)
    game = Game.from_position(position)
    if actions:
        game.play(actions)
    assert reference_legal(game.position()) == expected


CONFIGS = [(n, v) for n in (2, 3, 4) for v in ("common", "personal", "master")]


@pytest.mark.parametrize(("n", "variant"), CONFIGS, ids=[f"{n}p-{v}" for n, v in CONFIGS])
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), seed=st.integers(0, 2**20))
def test_legal_matches_reference_through_random_games(n, variant, data, seed):
    """RULES §2-§8: at every decision of a random game, legal() equals the reference."""
    game = Game.new(players=n, variant=variant, seed=seed)
    used, budget, steps = 0, data.draw(st.integers(1, 8)), 0
    while game.stage != "over":
        steps += 1
        assert steps < 3000
        legal = compare(game, f"(step {steps})")
        if game.stage == "play" and used >= budget and "end" in legal:
            action = "end"
        else:
            action = data.draw(st.sampled_from(legal))
        game.play(action)
        if action == "end":
            used, budget = 0, data.draw(st.integers(1, 8))
        else:
            used += 1


# random constructed positions ------------------------------------------------


def random_board(rng: random.Random) -> dict[str, int]:
    """Random castles, every one with height <= area (heights capped at the area)."""
    h = {sq: rng.randint(1, 4) for sq in rng.sample(SQUARES, rng.randint(6, 26))}
    comp = components(h)
    area: dict[int, int] = {}
    for c in comp.values():
        area[c] = area.get(c, 0) + 1
    return {sq: min(n, area[comp[sq]]) for sq, n in h.items()}


def random_position(seed: int) -> dict:
    rng = random.Random(seed)
    n = rng.choice([2, 3, 4])
    players = ["p", "q", "r", "s"][:n]
    variant = rng.choice(["common", "personal", "master"])
    heights = random_board(rng)
    free = SQUARES[:]
    rng.shuffle(free)
    knights = {}
    for p in players:
        k = rng.randint(0, 6)
        knights[p], free = free[:k], free[k:]
    king = rng.choice([None] + [sq for sq in free if sq in heights][:3])
    me = rng.choice(players)
    hand = rng.sample(ACTION_CARDS * 2, rng.randint(0, 8))
    drawn = [c for c in hand if rng.random() < 0.2] if variant != "master" else []
    stacks = {p: [rng.randint(0, 3) for _ in range(rng.randint(1, 4))] for p in players}
    turn_stack = rng.choice([None, None, 0, 1, 2, 3])
    if variant == "common":
        decks = {"common": rng.sample(ACTION_CARDS * 4, rng.randint(0, 4))}
    elif variant == "personal":
        decks = {p: rng.sample(ACTION_CARDS, rng.randint(0, 4)) for p in players}
    else:
        decks = {}
    pos = {
        "format": "torres-position/1",
        "variant": variant,
        "players": players,
        "stage": "play",
        "phase": 1,
        "round": 1,
        "to_move": me,
        "phase_starter": me,
        "round_starter": me,
        "heights": heights,
        "knights": knights,
        "king": king,
        "scores": {p: 0 for p in players},
        "stacks": stacks,
        "hands": {p: (hand if p == me else []) for p in players},
        "decks": decks,
        "supply": rng.choice([0, 1, 5, 20]),
        "master_card": None,
        "seed": seed,
        "turn": {
            "ap": rng.randint(0, 7),
            "stack": turn_stack,
            "drawn": drawn,
            "played": rng.random() < 0.15,
            "revealed": [],
        },
    }
    return pos


def check_after(pos: dict, before: dict, action: str) -> None:
    """Light invariants after a legal action on a constructed position."""
    comp = components(pos["heights"])
    area: dict[int, int] = {}
    tall: dict[int, int] = {}
    for sq, c in comp.items():
        area[c] = area.get(c, 0) + 1
        tall[c] = max(tall.get(c, 0), pos["heights"][sq])
    assert all(tall[c] <= area[c] for c in area), f"{action}: a castle taller than its area"
    assert blocks_total(pos) == blocks_total(before), f"{action}: blocks not conserved"
    old = components(before["heights"])
    groups: dict[int, set[int]] = {}
    for sq, c in comp.items():
        if sq in old:
            groups.setdefault(c, set()).add(old[sq])
    assert all(len(g) <= 1 for g in groups.values()), f"{action}: two castles merged"
    everyone = [sq for squares in pos["knights"].values() for sq in squares]
    if pos["king"]:
        everyone.append(pos["king"])
    assert len(everyone) == len(set(everyone)), f"{action}: two pieces on one square"


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_matches_reference_on_constructed_positions(seed):
    """RULES §4, §6: on random mid-turn positions legal() equals the reference, and every listed action plays."""
    pos = random_position(seed)
    game = Game.from_position(pos)
    legal = compare(game, f"(constructed, seed {seed})")
    full = game.position()
    rng = random.Random(seed)
    for action in rng.sample(legal, min(len(legal), 12)):
        other = game.copy()
        other.play(action)
        check_after(other.position(), full, action)
    # a few actions the reference rejects must be refused, atomically
    me = pos["to_move"]
    own = pos["knights"][me]
    probes = [f"build {sq}" for sq in rng.sample(SQUARES, 4)]
    probes += [f"move {a} {b}" for a in own for b in rng.sample(SQUARES, 3)]
    probes += [
        f"play {c} {a} {b}"
        for c in ("jump", "diagonal", "vault", "doorclimb", "relocate")
        for a in own[:1]
        for b in orth(a) + rng.sample(SQUARES, 2)
    ]
    probes += [
        f"play moveblock {a} {b}" for a in rng.sample(SQUARES, 2) for b in rng.sample(SQUARES, 2)
    ]
    for probe in probes:
        if probe in legal:
            continue
        with pytest.raises((IllegalAction, NotationError)) as info:
            game.play(probe)
        assert game.position() == full, f"refused {probe!r} changed the position"
        assert_player_message(str(info.value), probe)


def assert_player_message(msg: str, action: str) -> None:
    """Brief: every error is one sentence a player can act on -- no Python leaking through."""
    assert msg.strip(), f"{action!r}: empty message"
    assert "\n" not in msg.strip(), f"{action!r}: multi-line message {msg!r}"
    assert len(msg) <= 300, f"{action!r}: message too long {msg!r}"
    assert msg.rstrip().endswith((".", ")")), f"{action!r}: not a sentence {msg!r}"
    for junk in ("Traceback", "Error", "{", "[", "<", "self.", "\\x"):
        assert junk not in msg, f"{action!r}: message shows {junk!r}: {msg!r}"
    assert not re.search(r"\bNone\b(?! of)", msg), f"{action!r}: message shows None: {msg!r}"


def random_decision_position(seed: int) -> dict:
    """Random positions in the other decision stages: king move, setup king, draw-keep, castles."""
    rng = random.Random(seed)
    pos = random_position(seed)
    kind = rng.choice(["king", "setup-king", "draw-keep", "castles"])
    players = pos["players"]
    if kind in ("king", "setup-king"):
        pos["stage"] = "king"
        pos["turn"] = None
        pos["stacks"] = {p: [] for p in players}
        pos["phase"], pos["round"] = (rng.choice([1, 2]), 3) if kind == "king" else (1, 1)
        if kind == "king" and pos["king"] is None:
            free = [
                sq for sq in pos["heights"] if all(sq not in k for k in pos["knights"].values())
            ]
            pos["king"] = free[0] if free else None
        if kind == "setup-king":
            pos["king"] = None
            pos["knights"] = {p: pos["knights"][p][:1] for p in players}
    elif kind == "draw-keep":
        pos["variant"] = "personal"
        pos["stage"] = "draw-keep"
        pos["decks"] = {p: [] for p in players}
        pos["turn"]["revealed"] = rng.sample(ACTION_CARDS, rng.randint(1, 3))
        pos["turn"]["drawn"] = []
    else:
        pos["variant"] = "master"
        pos["stage"] = "castles"
        pos["decks"] = {}
        pos["king"] = None
        pos["knights"] = {p: [] for p in players}
        pos["turn"] = None
        pos["stacks"] = {p: [] for p in players}
        pos["heights"] = {sq: 1 for sq in rng.sample(SQUARES, rng.randint(0, 7))}
        pos["supply"] = 92 - len(pos["heights"])
    return pos


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_matches_reference_in_decision_stages(seed):
    """RULES §2, §4 draw, §7.5: king moves, setup king, keep, castle placement equal the reference."""
    pos = random_decision_position(seed)
    game = Game.from_position(pos)
    legal = compare(game, f"(decision stage {pos['stage']}, seed {seed})")
    full = game.position()
    for action in random.Random(seed).sample(legal, min(len(legal), 5)):
        other = game.copy()
        other.play(action)
        assert blocks_total(other.position()) == blocks_total(full)


@pytest.mark.parametrize("variant", ["common", "personal", "master"])
def test_legal_matches_reference_when_the_shared_text_caches_are_emptied(variant):
    """The texts of moves, blocks and new knights are kept by mask for every game of
    the process, and emptied when full: legal() is the same before and after, and the
    texts worked out again (a file of a mask at a time) equal the reference's."""
    from engine.rules import actions

    rng = random.Random(7)
    game = Game.new(4, variant=variant, seed=7)
    steps = 0
    while game.stage != "over":
        steps += 1
        if steps % 3 == 0:  # full: the next miss empties every row but the steps
            actions._KEPT[0] = actions._TEXTS_MAX  # a cache: nothing to restore
        compare(game, f"(step {steps}, caches emptied every third step)")
        game.play(rng.choice(game.legal()))
    assert steps > 100
