"""Hypothesis property tests over random legal games (2-4 players, every variant).

Actions are drawn from ``legal()`` with ``st.data()``; a per-turn budget makes
the player ``end`` after a few actions so every game finishes.  After every
action the invariants of RULES.md and NOTATION.md are checked against the
position dict (never the engine's internals).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import ACTION_CARDS, SQUARES, blocks_total, castles_of

from engine import Game, IllegalAction, NotationError

CONFIGS = [(n, v) for n in (2, 3, 4) for v in ("common", "personal", "master")]
ROUNDS = {2: (4, 4, 4), 3: (4, 3, 3), 4: (4, 3, 3)}
MAX_STEPS = 3000

SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# invariants ----------------------------------------------------------------


def check_board(pos: dict, prev: dict | None) -> None:
    heights = pos["heights"]
    assert all(isinstance(h, int) and h >= 1 for h in heights.values()), heights
    assert blocks_total(pos) == 92, "92 blocks: board + stacks + turn's stack + supply"
    assert pos["supply"] >= 0
    groups = castles_of(heights)
    for c in groups:
        assert max(heights[sq] for sq in c) <= len(c), f"castle {sorted(c)} taller than its area"
    if prev is not None:
        old = castles_of(prev["heights"])
        for c in groups:
            touched = [o for o in old if o & c]
            assert len(touched) <= 1, (
                f"castles {[sorted(o) for o in touched]} merged into {sorted(c)}"
            )


def check_pieces(pos: dict) -> None:
    seen: set[str] = set()
    for p, squares in pos["knights"].items():
        assert p in pos["players"]
        assert len(squares) <= 6, f"{p} has {len(squares)} knights"
        for sq in squares:
            assert sq in SQUARES
            assert sq not in seen, f"two pieces on {sq}"
            seen.add(sq)
    if pos["king"] is not None:
        assert pos["king"] not in seen, "king shares a square"


def check_scores(pos: dict) -> None:
    positive = [s for s in pos["scores"].values() if s > 0]
    assert len(positive) == len(set(positive)), f"tied scores above 0: {pos['scores']}"
    assert all(s >= 0 for s in pos["scores"].values())


def check_stacks(pos: dict) -> None:
    for p, st_ in pos["stacks"].items():
        assert all(0 <= s <= 3 for s in st_), f"{p} stacks {st_}"
    if pos["stage"] not in ("play", "draw-keep"):
        return
    n = len(pos["players"])
    rounds = ROUNDS[n][pos["phase"] - 1]
    order = pos["players"]
    i0 = order.index(pos["round_starter"])
    order = order[i0:] + order[:i0]
    idx = order.index(pos["to_move"])
    for i, p in enumerate(order):
        left = rounds - pos["round"] + (1 if i >= idx else 0)
        if p == pos["to_move"] and pos["turn"]["stack"] is not None:
            left -= 1
        assert len(pos["stacks"][p]) == left, (
            f"{p} holds {len(pos['stacks'][p])} stacks with {left} turns left (stacks == turns left)"
        )


def check_viewers(game: Game, pos: dict) -> None:
    """Viewer positions: no other hand, no deck card, no seed -- and nothing else changed."""
    for viewer in pos["players"]:
        view = game.position(viewer=viewer)
        assert view["seed"] is None
        expected = json.loads(json.dumps(pos))
        expected["seed"] = None
        for p, hand in pos["hands"].items():
            if p != viewer:
                expected["hands"][p] = ["hidden"] * len(hand)
                assert view["hands"][p] == ["hidden"] * len(hand)
        for owner, deck in pos["decks"].items():
            expected["decks"][owner] = ["hidden"] * len(deck)
            assert view["decks"][owner] == ["hidden"] * len(deck)
        if pos["to_move"] != viewer and pos.get("turn"):
            for key in ("drawn", "revealed"):
                expected["turn"][key] = ["hidden"] * len(pos["turn"][key])
        assert view == expected, f"viewer {viewer}'s position differs beyond the hidden cards"


def check_roundtrip(game: Game, pos: dict, legal: list[str]) -> None:
    clone = Game.from_position(json.loads(json.dumps(pos)))
    assert clone.position() == pos
    assert clone.legal() == legal


# candidate actions for soundness/atomicity checks ---------------------------


def candidates(pos: dict, rng: random.Random) -> list[str]:
    """Canonical single actions, legal or not, so play() can be checked against legal()."""
    me = pos["to_move"]
    own = pos["knights"].get(me, []) if me else []
    sq = lambda: rng.choice(SQUARES)  # noqa: E731
    out = [
        f"build {sq()}",
        f"knight {sq()}",
        f"king {sq()}",
        f"place {sq()}",
        f"castle {sq()}",
        "draw",
        "end",
        "score",
        "king pass",
        f"stack {rng.randint(0, 3)}",
        f"keep {rng.choice(ACTION_CARDS)} {rng.choice(['top', 'bottom'])}",
        f"play {rng.choice(['ap6', 'ap7'])}",
        f"play {rng.choice(['jump', 'diagonal', 'doorclimb', 'vault', 'relocate', 'moveblock'])}"
        f" {rng.choice(own) if own else sq()} {sq()}",
        f"play extra {sq()}",
        f"play lift {rng.choice(own) if own else sq()} {rng.choice(['1', '2', '3', 'turn'])}",
    ]
    if own:
        a = rng.choice(own)
        out.append(f"move {a} {sq()}")
        f, r = a[0], int(a[1])
        for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nf, nr = chr(ord(f) + df), r + dr
            if "a" <= nf <= "h" and 1 <= nr <= 8:
                out.append(f"move {a} {nf}{nr}")
    return out


MALFORMED = ["score 0", "flurb", "move a1", "build z9", "play teleport a1 a2", "end now", "knight"]


def check_play_agrees_with_legal(
    game: Game, pos: dict, legal: list[str], rng: random.Random
) -> None:
    legal_set = set(legal)
    for cand in rng.sample(candidates(pos, rng), 4):
        if cand in legal_set:
            other = game.copy()
            other.play(cand)  # every listed action is accepted
            assert game.position() == pos, "copy() shares state with the original"
        else:
            with pytest.raises((IllegalAction, NotationError)):
                game.play(cand)
            assert game.position() == pos, f"failed {cand!r} changed the position"
    # all or nothing: a legal first clause followed by a bad one changes nothing
    if legal:
        bad = rng.choice(MALFORMED + ["move h9 h8"])
        with pytest.raises(NotationError):
            game.play(f"{rng.choice(legal)}; {bad}")
        assert game.position() == pos
        first = rng.choice(legal)
        occupied = {sq for squares in pos["knights"].values() for sq in squares}
        free = [sq for sq in SQUARES if sq not in occupied and sq not in first.split()]
        # "move X Y" from a square that holds no knight (and that the first clause does not name)
        # can never be legal, whatever the first clause did.
        x = rng.choice(free)
        y = rng.choice([sq for sq in SQUARES if sq != x])
        with pytest.raises(IllegalAction):
            game.play(f"{first}\nmove {x} {y}")
        assert game.position() == pos, "play() is not atomic"
    assert game.legal() == legal


# the random game --------------------------------------------------------------


def play_random_game(data, n: int, variant: str, seed: int) -> None:
    rng = random.Random(seed)
    game = Game.new(players=n, variant=variant, seed=seed)
    history: list[str] = []
    pos = game.position()
    check_board(pos, None)
    check_pieces(pos)
    clone = None
    clone_at = rng.randint(0, 150)
    budget = data.draw(st.integers(0, 6), label="turn budget")
    used = 0
    steps = 0
    while game.stage != "over":
        steps += 1
        assert steps <= MAX_STEPS, "game did not reach 'over'"
        legal = game.legal()
        assert legal, f"no legal action in stage {game.stage}"
        assert legal == sorted(set(legal)), "legal() not sorted/unique"
        assert all(a == " ".join(a.lower().split()) for a in legal), "legal() not canonical"
        if game.stage == "play" and used >= budget and "end" in legal:
            action = "end"
        else:
            action = data.draw(st.sampled_from(legal), label="action")
        if rng.random() < 0.15:
            check_play_agrees_with_legal(game, pos, legal, rng)
        if rng.random() < 0.2:
            check_roundtrip(game, pos, legal)
        if steps == clone_at:
            clone = Game.from_position(json.loads(json.dumps(pos)))

        before = pos
        events = game.play(action)
        history.append(action)
        pos = game.position()
        if clone is not None:
            clone_events = clone.play(action)
            assert clone_events == events
            assert clone.position() == pos, "a JSON round-tripped game diverged"

        # undo takes back exactly this action (never across a draw or a turn end)
        undoable = (
            game.stage == "play" and before["stage"] == "play" and action not in ("end", "draw")
        )
        if undoable and rng.random() < 0.3 and not action.startswith("keep "):
            assert game.can_undo
            assert game.undo() is True
            assert game.position() == before, f"undo of {action!r} did not restore the position"
            game.play(action)
            assert game.position() == pos
        if action == "draw" and variant == "common":
            assert game.can_undo is False

        check_board(pos, before)
        check_pieces(pos)
        check_scores(pos)
        check_stacks(pos)
        if rng.random() < 0.25:
            check_viewers(game, pos)

        kinds = [e["type"] for e in events]
        if action == "end":
            assert kinds and kinds[0] == "turn_end"
            budget = data.draw(st.integers(0, 6), label="turn budget")
            used = 0
        else:
            used += 1
        for e in events:
            if e["type"] == "phase_scored":
                assert e["scores"] == game.scores
            if e["type"] == "game_over":
                top = max(e["scores"].values())
                assert set(e["winners"]) == {p for p, s in e["scores"].items() if s == top}

    assert game.to_move is None
    assert game.legal() == []
    assert game.winners
    top = max(game.scores.values())
    assert set(game.winners) == {p for p, s in game.scores.items() if s == top}
    # deterministic: the same seed and the same actions give the same game
    replay = Game.new(players=n, variant=variant, seed=seed)
    replay.play("\n".join(history))
    assert replay.position() == game.position()


@pytest.mark.parametrize(("n", "variant"), CONFIGS, ids=[f"{n}p-{v}" for n, v in CONFIGS])
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2**20))
def test_random_games_keep_every_invariant(n, variant, data, seed):
    """RULES §1, §4, §7 + NOTATION: invariants hold after every action of random legal games."""
    play_random_game(data, n, variant, seed)


@settings(max_examples=40, deadline=None)
@given(
    n=st.sampled_from([2, 3, 4]),
    variant=st.sampled_from(["common", "personal", "master"]),
    seed=st.integers(0, 2**20),
    junk=st.text(max_size=40),
)
def test_arbitrary_text_never_crashes_and_never_half_applies(n, variant, seed, junk):
    """NOTATION: any text either applies fully or raises IllegalAction/NotationError and changes nothing."""
    game = Game.new(players=n, variant=variant, seed=seed)
    before = game.position()
    try:
        game.play(junk)
    except (IllegalAction, NotationError) as e:
        assert str(e).strip()
        assert game.position() == before
