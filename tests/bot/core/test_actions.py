"""Splitting commands into actions, and ranking autocomplete suggestions (properties)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from bot.core.actions import normalize, split_actions
from bot.core.service import _apply, public_action, rank_actions
from engine import Game

SQUARES = [f"{f}{r}" for f in "abcdefgh" for r in "12345678"]
WORDS = st.sampled_from(["move", "build", "score", "knight", "end", "draw", "MOVE", "Build", "2"])
CLAUSE = st.lists(st.one_of(WORDS, st.sampled_from(SQUARES)), min_size=1, max_size=5).map(" ".join)
TEXT = st.lists(st.tuples(CLAUSE, st.sampled_from([";", "\n", " ; ", ";;"])), max_size=6).map(
    lambda parts: "".join(c + sep for c, sep in parts)
)


def test_shorthands_expand_as_the_notation_says():
    """`move A B C`, `build A B` and `score N` become single actions; others pass unchanged."""
    assert split_actions("Move c3 d3 d4;  build e4 e5\nscore 2") == [
        "move c3 d3",
        "move d3 d4",
        "build e4",
        "build e5",
        "score",
        "score",
    ]
    assert split_actions("play jump c3 c4; keep ap6 top; stack 3") == [
        "play jump c3 c4",
        "keep ap6 top",
        "stack 3",
    ]
    assert split_actions(" ; ;\n") == []
    assert split_actions("move c3") == ["move c3"]  # malformed: left for the engine to explain


@given(TEXT)
def test_normalize_is_idempotent_and_keeps_the_actions(text: str):
    """Normalising changes only spacing, case and separators."""
    once = normalize(text)
    assert normalize(once) == once
    assert split_actions(once) == split_actions(text)
    assert all(a == a.lower() and "  " not in a and a.strip() == a for a in split_actions(text))


@given(
    st.lists(
        st.sampled_from(
            [f"build {s}" for s in SQUARES[:30]]
            + [f"move c3 {s}" for s in SQUARES[:8]]
            + [f"knight {s}" for s in SQUARES[:6]]
            + ["draw", "score", "end", "stack 2", "play ap6"]
        ),
        unique=True,
    ),
    st.integers(1, 25),
)
def test_ranking_is_a_bounded_subset_with_every_kind(legal: list[str], limit: int):
    """At most *limit*, all legal, `end` kept, every kind shown when there is room."""
    ranked = rank_actions(sorted(legal), limit)
    assert len(ranked) == min(limit, len(legal)) and set(ranked) <= set(legal)
    assert len(set(ranked)) == len(ranked)
    if "end" in legal:
        assert "end" in ranked
    kinds = {a.split()[0] for a in legal}
    if len(kinds) <= limit:
        assert {a.split()[0] for a in ranked} == kinds


def test_public_action_hides_only_the_kept_card():
    assert public_action("keep ap6 bottom") == "keep ? bottom"
    assert public_action("play ap6") == "play ap6"
    assert public_action("draw") == "draw"


def _at_the_king_decision() -> Game:
    """A game stopped where the lowest scorer decides about the king after a scoring."""
    rng = random.Random(3)
    for seed in range(50):
        game = Game.new(2, seed=seed)
        while game.stage != "over":
            if game.stage == "king" and "king pass" in game.legal():
                return game
            game.play(rng.choice(game.legal()))
    raise AssertionError("no king decision reached")


def test_pass_after_a_scoring_leaves_the_king_where_it_is():
    game = _at_the_king_decision()
    king = game.position()["king"]
    after, _, done = _apply(game, "Pass")
    assert done and after.position()["king"] == king
    assert after.stage != "king"
    assert _apply(game, "king pass")[0].position() == after.position()
    # elsewhere "pass" still ends a turn
    assert split_actions("pass") == ["end"]
