"""Rulebook cases of issue 15: each test quotes the rulebook words it follows.

Sources (/work/shared/seeds/): the English rulebook, the German and the Dutch
rules.  Items 1 and 2 follow the words exactly; items 3 to 7 are the Rulings
docs/rules.md marks where the sources leave a choice.
"""

from __future__ import annotations

import pytest
import test_rules_master
from rules_helpers import Pos, assert_illegal

from engine import CARD_HELP, MASTER_CARD_HELP, Game, IllegalAction


def with_card(card: str) -> Pos:
    return Pos().hand("a", card).supply(40)


# 1. jump: exactly two levels up ------------------------------------------------


def test_jump_goes_exactly_two_levels_up():
    """English: "Jump one of your knights two levels up to an empty orthogonally adjacent
    space (e.g. from level 1 to level 3)"; Dutch: "Je mag eenmalig 2 niveau's omhoog naar
    een vrij veld klimmen."  Level 1 to level 3 is the one legal jump here."""
    # castle c3:1 d3:3 c4:2 b3:1 c2:1 (area 5): from c3 (level 1) only d3 is two up.
    game = with_card("jump").h(c3=1, d3=3, c4=2, b3=1, c2=1).knights("a", "c3").game()
    jumps = [a for a in game.legal() if a.startswith("play jump")]
    assert jumps == ["play jump c3 d3"]
    game.play("play jump c3 d3")
    assert game.position()["knights"]["a"] == ["d3"]


@pytest.mark.parametrize(
    ("heights", "target", "what"),
    [
        ({"c3": 1, "c4": 1}, "c4", "sideways"),  # the example of issue 15
        ({"c3": 1, "c4": 2}, "c4", "one level up"),
        ({"c3": 2, "c4": 1, "b3": 1}, "c4", "down"),
        ({"c3": 1}, "c4", "down to the board"),
    ],
)
def test_jump_does_not_go_sideways_one_up_or_down(heights, target, what):
    """English: "Jump up two levels"; Dutch: "2 niveau's omhoog" -- no free step at 0 AP
    sideways, one level up or down, which no rulebook offers."""
    game = with_card("jump").h(**heights).knights("a", "c3").game()
    assert not any(a.startswith("play jump") for a in game.legal()), what
    reason = assert_illegal(game, f"play jump c3 {target}", target)
    assert "exactly two levels up" in reason


def test_the_example_position_of_issue_15_refuses_the_jump():
    """The position issue 15 shows, with `play jump c3 c4` (level 1 to level 1)."""
    game = Game.from_position(
        {
            "format": "torres-position/1",
            "players": ["red", "blue"],
            "to_move": "red",
            "heights": {"c3": 1, "c4": 1},
            "knights": {"red": ["c3"], "blue": []},
            "hands": {"red": ["jump"]},
        }
    )
    before = game.position()
    with pytest.raises(IllegalAction) as err:
        game.play("play jump c3 c4")
    assert err.value.reason == (
        "c4 is level 1 and your knight on c3 is level 1; "
        "a jump goes exactly two levels up (to level 3)."
    )
    assert game.position() == before
    assert "exactly two levels higher" in CARD_HELP["jump"]


# 2. master card square: any square, tilted ones included ---------------------


def master_end(card: str) -> Pos:
    """2-player master game, b takes the last turn of phase 3; the king on h8."""
    return test_rules_master.master_end(3, card).h(h8=1).king("h8")


def master_points(pos: Pos) -> dict[str, int]:
    events = pos.game().play("end")
    (scored,) = [e for e in events if e["type"] == "phase_scored"]
    return {p: v["master"] for p, v in scored["points"].items()}


@pytest.mark.parametrize(
    "corners",
    [
        ("b1", "d2", "c4", "a3"),  # the example of issue 15: sides of (2, 1)
        ("d1", "e2", "d3", "c2"),  # a diamond: sides of (1, 1)
        ("a2", "d1", "e4", "b5"),  # sides of (3, 1)
        ("b2", "b5", "e2", "e5"),  # aligned with the board, side 3
    ],
)
def test_master_square_counts_tilted_squares(corners):
    """English: "If 4 of your knights form the corners of a square during scoring after
    phase 3, earn 50 bonus points" -- any square; the cards' figures are examples only."""
    assert master_points(master_end("square").knights("a", *corners).knights("b", "g7")) == {
        "a": 50,
        "b": 0,
    }
    assert "tilted" in MASTER_CARD_HELP["square"]


def test_master_square_needs_a_real_square_and_pays_once():
    """English: "(you cannot score 100 for two squares)"; a rhombus or a rectangle that is
    not a square pays nothing."""
    pos = (
        master_end("square")
        .knights("a", "b1", "d2", "c4", "a3", "f3", "e5")  # two tilted squares sharing a side
        .knights("b", "a1", "c2", "d4", "b3")  # a rhombus with sides (2, 1), (1, 2): no square
    )
    assert master_points(pos) == {"a": 50, "b": 0}
    rect = master_end("square").knights("a", "b2", "b4", "e2", "e4").knights("b", "g7")
    assert master_points(rect) == {"a": 0, "b": 0}


# 3.-7. Rulings ----------------------------------------------------------------


def test_vault_over_a_knight_of_either_colour():
    """Ruling: English "Move one of your knights past one other knight by jumping over it in
    a straight orthogonal line"; Dutch "over een vreemde ridder" (another player's).  We
    follow the English: one's own knight may be vaulted as well as an opponent's."""
    game = with_card("vault").knights("a", "c3", "c4").knights("b", "d3").game()
    legal = game.legal()
    assert "play vault c3 c5" in legal  # over a's own knight on c4
    assert "play vault c3 e3" in legal  # over b's knight on d3
    game.play("play vault c3 c5")
    assert game.position()["knights"]["a"] == ["c4", "c5"]


@pytest.mark.parametrize("card", ["extra", "lift"])
def test_three_block_cap_does_not_limit_extra_or_lift(card):
    """Ruling: English "a player may never add more than three tower blocks in a turn"
    limits the stack a player builds from; "Place one additional tower block taken from the
    general supply" (extra) and a block "from any of your stacks" (lift) come on top."""
    game = with_card(card).h(c3=1, c4=1, c5=1, d3=1).knights("a", "c3").stacks("a", [3, 2]).game()
    game.play("build c4 c5 d3")  # three blocks from the turn's stack of 3
    before = sum(game.position()["heights"].values())
    game.play("play extra c5" if card == "extra" else "play lift c3 2")
    assert sum(game.position()["heights"].values()) == before + 1


def test_master_row_is_a_rank_or_a_file_not_a_diagonal():
    """Ruling: English "If all your knights are in a row ... (they need not be adjacent)":
    one rank or one file; knights on one diagonal do not count (the diagonals have their
    own master card)."""
    pos = master_end("row").knights("a", "b2", "c3", "e5").knights("b", "b7", "f7", "g7")
    assert master_points(pos) == {"a": 0, "b": 50}
    file_ = master_end("row").knights("a", "c1", "c8").knights("b", "a1", "b2")
    assert master_points(file_) == {"a": 50, "b": 0}


def test_master_neighbors_is_one_orthogonally_connected_group():
    """Ruling: English "If all your knights are on neighboring spaces": neighbouring is
    orthogonal ("Adjacency for adding knights is orthogonal, not diagonal") and all the
    knights make one group; diagonal contact or two separate pairs do not count."""
    pos = (
        master_end("neighbors")
        .knights("a", "c3", "c4", "d4", "d5")  # one orthogonal chain
        .knights("b", "f1", "g2")  # diagonal neighbours only
    )
    assert master_points(pos) == {"a": 40, "b": 0}
    pairs = master_end("neighbors").knights("a", "a1", "a2", "e5", "e6").knights("b", "g7")
    assert master_points(pairs) == {"a": 0, "b": 0}


@pytest.mark.parametrize(("where", "deck_after"), [("top", 0), ("bottom", 3)])
def test_personal_draw_returns_the_two_cards_together_in_drawn_order(where, deck_after):
    """Ruling: English "keep 1, and return the other 2 face down to the top or bottom of
    your deck"; German "legt die beiden anderen verdeckt zurück auf oder unter den Stapel";
    Dutch "De 2 overblijvende kaarten legt hij verdekt op of onder zijn stapel".  The two go
    back together, in the order they were drawn."""
    deck = ["ap6", "jump", "vault", "lift", "extra", "ap7"]
    game = Pos(variant="personal").deck(*deck, owner="a").game()
    game.play(f"draw; keep jump {where}")
    after = game.position()["decks"]["a"]
    assert after[deck_after : deck_after + 2] == ["ap6", "vault"]
    assert sorted(after) == sorted(["ap6", "vault", "lift", "extra", "ap7"])
