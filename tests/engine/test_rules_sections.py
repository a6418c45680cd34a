"""Scenario tests for RULES.md sections 1-5, 7 and 9, built from positions.

Every test drives the engine only through the contract (``Game.from_position``,
``play``, ``legal``, ``undo``, ``position``).  Expected values are worked out by
hand from RULES.md; the comments show the arithmetic.
"""

from __future__ import annotations

from collections import Counter

import pytest
from rules_helpers import (
    ACTION_CARDS,
    START_SQUARES,
    Pos,
    assert_illegal,
    assert_malformed,
    blocks_total,
)

from engine import Game, IllegalAction, NotationError, castles


def names(n: int) -> list[str]:
    return ["a", "b", "c", "d"][:n]


def set_up(n: int, variant: str = "common", seed: int = 0) -> Game:
    """A game just past setup: knights on the printed castles in seat order, king on the next."""
    game = Game.new(players=n, names=names(n), variant=variant, seed=seed)
    for sq in START_SQUARES[:n]:
        game.play(f"place {sq}")
    game.play(f"king {START_SQUARES[n]}")
    return game


def stacks(game: Game, p: str) -> list[int]:
    return game.position()["stacks"][p]


# ---------------------------------------------------------------------------
# §1 Pieces and derived terms
# ---------------------------------------------------------------------------


def test_castles_are_orthogonally_connected_groups():
    """§1: a castle is a maximal set of orthogonally connected squares of height >= 1."""
    got = castles({"a1": 1, "a2": 2, "b3": 1, "c3": 1, "h8": 1, "d5": 0})
    assert sorted(sorted(c) for c in got) == [["a1", "a2"], ["b3", "c3"], ["h8"]]
    assert all(isinstance(c, frozenset) for c in got)


def test_block_never_placed_under_a_knight_or_the_king():
    """§1: a block is never placed on a square holding a knight or the king."""
    game = Pos().h(c3=1, c4=1, c5=1).knights("a", "c3").king("c4").game()
    assert_illegal(game, "build c3", "c3")
    assert_illegal(game, "build c4", "c4")
    game.play("build c5")  # the free square of the same castle is fine (2 <= area 3)
    assert game.position()["heights"]["c5"] == 2


def test_castle_exactly_as_tall_as_wide_then_one_block_more():
    """§1: every castle's height <= its area: height == area is legal, one more is not."""
    game = Pos().h(c3=1, c4=1).game()
    game.play("build c3")  # height 2, area 2
    assert game.position()["heights"]["c3"] == 2
    assert_illegal(game, "build c3", "c3")  # would be 3 > area 2
    assert_illegal(game, "build c4; build c4", "c4")  # second block: 3 > 2; nothing applied
    assert game.position()["heights"] == {"c3": 2, "c4": 1}


def test_block_joining_two_castles_is_illegal():
    """§1: two castles may touch only diagonally; no action may join two castles."""
    game = Pos().h(c3=1, e3=1, d4=1).game()
    # d3 touches c3, e3 and d4 orthogonally; c2 touches only c3.
    assert_illegal(game, "build d3", "d3")
    game.play("build c2")
    assert game.position()["heights"]["c2"] == 1


def test_diagonal_contact_does_not_join():
    """§1: castles touching only diagonally stay two castles; a block next to one of them is fine."""
    game = Pos().h(c3=1, d4=1).game()
    # b3 touches c3 orthogonally and nothing else.
    game.play("build b3")
    got = castles(game.position()["heights"])
    assert sorted(sorted(c) for c in got) == [["b3", "c3"], ["d4"]]
    # c4 and d3 each touch both castles orthogonally.
    assert_illegal(game, "build c4", "c4")
    assert_illegal(game, "build d3", "d3")


def test_square_with_king_is_not_empty():
    """§1: a square is empty when it holds no knight and no king; knights cannot step onto the king."""
    game = Pos().h(c3=1, c4=1).knights("a", "c3").king("c4").game()
    assert_illegal(game, "move c3 c4", "c4")


# ---------------------------------------------------------------------------
# §2 Setup
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_standard_setup_printed_castles(n):
    """§2.1: standard game: one block on each of d1, c3, f3, h4, a5, c6, f6, e8."""
    game = Game.new(players=n, seed=3)
    pos = game.position()
    assert pos["format"] == "torres-position/1"
    assert pos["heights"] == {sq: 1 for sq in START_SQUARES}
    assert pos["stage"] == "place"
    assert pos["to_move"] == pos["players"][0]
    assert pos["king"] is None
    assert all(k == [] for k in pos["knights"].values())
    assert game.legal() == sorted(f"place {sq}" for sq in START_SQUARES)


def test_default_names_and_custom_names():
    """NOTATION: defaults are 4 players red, blue, green, yellow; names= sets seats."""
    assert Game.new().players == ["red", "blue", "green", "yellow"]
    game = Game.new(names=["ann", "bob"])
    assert game.players == ["ann", "bob"]
    assert game.position()["players"] == ["ann", "bob"]


def test_knight_placement_in_seat_order_then_king_by_last_placer():
    """§2.2-3: each player in seat order places one knight on a knightless castle; the last placer puts the king."""
    game = Game.new(players=4, names=names(4))
    for p, sq in zip("abcd", ["d1", "c3", "f3", "h4"], strict=True):
        assert game.to_move == p
        assert game.stage == "place"
        if p == "b":
            assert_illegal(game, "place d1", "d1")  # holds a's knight
            assert_illegal(game, "place d4")  # not a starting castle
        game.play(f"place {sq}")
    assert game.stage == "king"
    assert game.to_move == "d"
    assert game.legal() == ["king a5", "king c6", "king e8", "king f6"]
    assert_illegal(game, "king c3", "c3")
    game.play("king f6")
    pos = game.position()
    assert pos["king"] == "f6"
    assert pos["stage"] == "play"
    assert pos["to_move"] == "a"
    assert (pos["phase"], pos["round"]) == (1, 1)
    assert pos["knights"] == {"a": ["d1"], "b": ["c3"], "c": ["f3"], "d": ["h4"]}


@pytest.mark.parametrize(
    ("n", "phase1"),
    [(2, [3, 3, 3, 3]), (3, [3, 3, 2, 2]), (4, [2, 2, 2, 2])],
)
def test_stacks_dealt_after_setup(n, phase1):
    """§2.6/§3: every player receives the phase-1 stacks from the supply once the king stands."""
    game = set_up(n)
    pos = game.position()
    for p in pos["players"]:
        assert pos["stacks"][p] == phase1
    assert pos["supply"] == 92 - 8 - n * sum(phase1)
    assert blocks_total(pos) == 92


def test_common_deck_holds_forty_cards_four_of_each():
    """§2.4: common deck (default): all 40 cards, 4 copies of each of the 10 kinds, whatever the player count."""
    for n in (2, 3, 4):
        pos = Game.new(players=n, seed=5).position()
        assert set(pos["decks"]) == {"common"}
        assert Counter(pos["decks"]["common"]) == Counter({c: 4 for c in ACTION_CARDS})
        assert all(h == [] for h in pos["hands"].values())


def test_personal_decks_hold_one_of_each_card():
    """§2.4: personal decks: each player shuffles the 10 cards of their colour."""
    pos = Game.new(players=3, names=names(3), variant="personal", seed=5).position()
    assert set(pos["decks"]) == {"a", "b", "c"}
    for p in "abc":
        assert sorted(pos["decks"][p]) == sorted(ACTION_CARDS)


def test_master_version_cards_in_hand_and_no_deck():
    """§2.4: master version: each player holds their 10 cards from the start; there is no deck."""
    pos = Game.new(players=2, names=names(2), variant="master", seed=5).position()
    assert pos["decks"] == {}
    for p in "ab":
        assert sorted(pos["hands"][p]) == sorted(ACTION_CARDS)
    assert pos["stage"] == "castles"


def test_same_seed_same_game_different_seed_different_deck():
    """issue 2: deterministic -- same seed and actions give the same game."""
    g1 = Game.new(players=3, seed=11)
    g2 = Game.new(players=3, seed=11)
    assert g1.position() == g2.position()
    g3 = Game.new(players=3, seed=12)
    assert g1.position()["decks"] != g3.position()["decks"]


# ---------------------------------------------------------------------------
# §3 Phases, rounds, stacks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "turns", "later"),
    [(2, (8, 8, 8), [3, 3, 3, 3]), (3, (12, 9, 9), [3, 3, 2]), (4, (16, 12, 12), [2, 2, 2])],
)
def test_rounds_per_phase_and_stacks_table(n, turns, later):
    """§3: rounds per phase 4/4/4 (2p) or 4/3/3 (3-4p); phases 2 and 3 deal the later stacks."""
    game = set_up(n)
    for phase, expected_turns in enumerate(turns, start=1):
        played = 0
        order = []
        while True:
            order.append(game.to_move)
            events = game.play("end")
            played += 1
            assert played <= expected_turns, f"phase {phase} lasted too long"
            kinds = [e["type"] for e in events]
            assert kinds[0] == "turn_end"
            if "phase_scored" in kinds:
                break
            # stacks left == turns left in the phase for the player who just moved
        assert played == expected_turns
        starter = order[0]
        seats = game.players
        i0 = seats.index(starter)
        assert order == [seats[(i0 + k) % n] for k in range(expected_turns)]
        if phase < 3:
            assert game.stage == "king"
            game.play("king pass")
            pos = game.position()
            assert pos["phase"] == phase + 1 and pos["round"] == 1
            for p in pos["players"]:
                assert pos["stacks"][p] == later
    assert game.stage == "over"


def test_one_stack_per_turn_left():
    """§3: a player holds one stack per turn left in the phase."""
    game = set_up(4)
    game.play("end")  # a's first turn
    assert len(stacks(game, "a")) == 3
    assert len(stacks(game, "b")) == 4
    assert game.position()["round"] == 1
    game.play("end")  # b
    game.play("end")  # c
    game.play("end")  # d
    pos = game.position()
    assert pos["round"] == 2 and pos["to_move"] == "a"


# ---------------------------------------------------------------------------
# §4 A turn: action points
# ---------------------------------------------------------------------------


def test_action_point_costs():
    """§4: add a knight 2 AP, step 1, block 1, draw 1, score 1, card 0."""
    game = Pos().h(c3=1, c4=1).knights("a", "c3").hand("a", "ap6").deck("jump", "vault").game()
    assert game.ap == 5
    game.play("knight c4")
    assert game.ap == 3
    game.play("move c3 d3")
    assert game.ap == 2
    game.play("play ap6")
    assert game.ap == 3
    game.play("draw")
    assert game.ap == 2
    game.play("build d4")
    assert game.ap == 1
    game.play("score")
    assert game.ap == 0
    assert game.position()["turn"]["ap"] == 0
    assert_illegal(game, "move d3 e3")
    assert_illegal(game, "score")


def test_unspent_action_points_are_lost():
    """§4: unspent AP are lost when the turn ends; the next turn starts with 5."""
    game = Pos().knights("a", "a1").knights("b", "h8").game()
    game.play("move a1 a2; end")
    assert game.to_move == "b"
    assert game.ap == 5
    game.play("end")
    assert game.ap == 5


def test_add_knight_same_level_or_lower():
    """§4 add a knight: onto an empty orthogonal neighbour at the knight's level or lower, never higher."""
    # castle c3..c5, d3: c3=1 (knight), c4=2, d3=1, c2 bare
    game = Pos().h(c3=1, c4=2, c5=1, d3=1).knights("a", "c3").knights("b", "b3").game()
    assert_illegal(game, "knight c4", "c4")  # level 2 > knight's level 1
    assert_illegal(game, "knight b3", "b3")  # occupied
    assert_illegal(game, "knight d4", "d4")  # diagonal
    assert_illegal(game, "knight c2; knight a1", "a1")  # not next to any of a's knights
    game.play("knight d3")  # same level
    game.play("knight c2")  # lower
    assert sorted(game.position()["knights"]["a"]) == ["c2", "c3", "d3"]
    assert game.ap == 1


def test_add_knight_next_to_opponent_only_is_illegal():
    """§4 add a knight: adjacent to one of YOUR knights."""
    game = Pos().knights("a", "a1").knights("b", "e5").game()
    assert_illegal(game, "knight e6", "e6")


def test_at_most_six_knights():
    """§4: at most 6 knights on the board per player."""
    game = Pos().knights("a", "a1", "a2", "a3", "a4", "a5", "a6").game()
    assert_illegal(game, "knight b1")
    assert "knight b1" not in game.legal()
    game5 = Pos().knights("a", "a1", "a2", "a3", "a4", "a5").game()
    game5.play("knight b1")
    assert len(game5.position()["knights"]["a"]) == 6
    assert not any(x.startswith("knight ") for x in game5.legal())


# ---------------------------------------------------------------------------
# §4 Steps
# ---------------------------------------------------------------------------


def test_step_exactly_one_level_up_is_legal():
    """§4 step: at most one level higher."""
    game = Pos().h(c3=1, d3=2, e3=1).knights("a", "c3").game()
    game.play("move c3 d3")
    assert game.position()["knights"]["a"] == ["d3"]
    assert game.ap == 4


def test_step_two_levels_up_is_illegal_and_names_squares():
    """§4 step: a step climbs at most one level (two up is illegal)."""
    game = Pos().h(c3=1, d3=3, e3=1, d4=1).knights("a", "c3").game()
    msg = assert_illegal(game, "move c3 d3", "c3", "d3")
    assert "\n" not in msg.strip()


def test_step_down_any_number_of_levels():
    """§4 step: any number of levels lower."""
    game = Pos().h(c3=3, c4=1, d3=1, c2=1).knights("a", "c3").game()
    game.play("move c3 b3")  # level 3 -> bare board
    assert game.position()["knights"]["a"] == ["b3"]


def test_step_only_orthogonal_adjacent_empty():
    """§4 step: to an orthogonally adjacent empty square."""
    game = Pos().knights("a", "c3").knights("b", "c4").king(None).game()
    assert_illegal(game, "move c3 c4", "c4")  # occupied
    assert_illegal(game, "move c3 d4", "d4")  # diagonal
    assert_illegal(game, "move c3 c5", "c5")  # two squares away, no castle to pass
    assert_illegal(game, "move d3 d4", "d3")  # no knight of a's on d3
    assert_illegal(game, "move c4 c5", "c4")  # b's knight, not a's


def test_move_shorthand_is_several_steps():
    """NOTATION: move A B C is move A B; move B C, 1 AP each."""
    game = Pos().knights("a", "a1").game()
    game.play("move a1 a2 a3 b3")
    assert game.position()["knights"]["a"] == ["b3"]
    assert game.ap == 2


# ---------------------------------------------------------------------------
# §4 Doors
# ---------------------------------------------------------------------------


def door_castle() -> Pos:
    """C = b2:1 c2:3 d2:1 e2:1 f2:1 (area 5, height 3); a's knight on b2 (level 1)."""
    return Pos().h(b2=1, c2=3, d2=1, e2=1, f2=1).knights("a", "b2")


def test_door_passage_from_the_ground_over_a_castle():
    """§4 doors: enter at a taller neighbour t, leave onto an empty square v beside a taller u; 1 AP."""
    # level-0 knight on a3; t = a2? no: build C2 = c5:2 d5:2 e5:1 and knight on b5 (bare).
    game = Pos().h(c5=2, d5=2, e5=1).knights("a", "b5").game()
    game.play("move b5 f5")  # f5 is bare, beside e5 (height 1 > 0)
    assert game.position()["knights"]["a"] == ["f5"]
    assert game.ap == 4


def test_door_passage_never_ends_higher():
    """§4 doors (Ruling): the knight never ends higher than it started."""
    game = Pos().h(c5=2, d5=2, e5=1).knights("a", "b5").game()
    assert_illegal(game, "move b5 e5", "e5")  # e5 is level 1 > 0


def test_door_exit_onto_lower_part_of_the_castle_needs_a_taller_neighbour():
    """§4 doors: v may be a lower part of C, but must be beside a square u of C with height(u) > height(v)."""
    game = door_castle().game()
    game.play("move b2 d2")  # d2 (1) beside c2 (3)
    assert game.position()["knights"]["a"] == ["d2"]
    game2 = door_castle().game()
    assert_illegal(game2, "move b2 e2", "e2")  # e2's castle neighbours d2, f2 are height 1 too


def test_door_needs_a_taller_neighbour_to_enter():
    """§4 doors: entry needs an orthogonal neighbour t of C with height(t) > the knight's level."""
    # knight on top of the castle (c2, level 3): no neighbour is taller, so no door passage.
    game = Pos().h(b2=1, c2=3, d2=1, e2=1, f2=1).knights("a", "c2").game()
    assert_illegal(game, "move c2 g2", "g2")
    # a level-0 knight not beside the castle cannot pass through it either
    game2 = Pos().h(c5=2, d5=2, e5=1).knights("a", "a5").game()
    assert_illegal(game2, "move a5 f5", "f5")


def test_pieces_on_door_squares_do_not_block():
    """§4 doors: pieces standing on t or u do not block their doors."""
    game = door_castle().king("c2").knights("b", "f2").game()
    game.play("move b2 g2")  # t = c2 holds the king, u = f2 holds b's knight
    assert game.position()["knights"]["a"] == ["g2"]


def test_door_exit_must_be_empty_and_not_the_start():
    """§4 doors: v is an empty square, v != s."""
    game = door_castle().knights("b", "g2").game()
    assert_illegal(game, "move b2 g2", "g2")
    assert_illegal(game, "move b2 b2", "b2")


# ---------------------------------------------------------------------------
# §4 Placing blocks and the turn's stack
# ---------------------------------------------------------------------------


def test_bare_square_next_to_no_castle_is_illegal():
    """§4 place a block: a new castle is never started this way."""
    game = Pos().h(c3=1).game()
    assert_illegal(game, "build f6", "f6")


def test_bare_square_next_to_one_castle_joins_it():
    """§4 place a block: a bare square next to exactly one castle joins it (area + 1)."""
    game = Pos().h(c3=1).game()
    game.play("build c4")
    got = castles(game.position()["heights"])
    assert [sorted(c) for c in got] == [["c3", "c4"]]


def test_blocks_come_from_the_turns_stack_only():
    """§4: every block placed with the 1-AP action comes from the turn's stack."""
    game = Pos().h(c3=1, c4=1, c5=1).stacks("a", [2, 2]).supply(50).game()
    game.play("build c2; build c6")
    turn = game.position()["turn"]
    assert turn["stack"] == 0
    assert game.position()["stacks"]["a"] == [2]
    assert_illegal(game, "build d3")  # stack exhausted though AP remain
    assert game.ap == 3


def test_tallest_stack_is_taken_by_default():
    """§4: otherwise the tallest stack is taken at the first block."""
    game = Pos().h(c3=1, c4=1, c5=1).stacks("a", [1, 3, 2]).supply(50).game()
    game.play("build c2")
    pos = game.position()
    assert pos["turn"]["stack"] == 2
    assert pos["stacks"]["a"] == [1, 2]
    game.play("build c6")  # a 1-stack would already be empty here
    assert game.position()["turn"]["stack"] == 1


def test_naming_the_stack():
    """§4: the player may name the stack (by its size) before the first block."""
    game = Pos().h(c3=1, c4=1, c5=1).stacks("a", [3, 1, 2]).supply(50).game()
    assert {"stack 1", "stack 2", "stack 3"} <= set(game.legal())
    assert_illegal(game, "stack 4")
    game.play("stack 1")
    pos = game.position()
    assert pos["turn"]["stack"] == 1
    assert pos["stacks"]["a"] == [3, 2]
    assert game.ap == 5  # naming the stack costs nothing
    game.play("build c2")
    assert_illegal(game, "build c6")
    assert not any(a.startswith("stack ") for a in game.legal())


def test_stack_cannot_be_named_after_the_first_block():
    """§4: the stack is named before the first block."""
    game = Pos().h(c3=1, c4=1).stacks("a", [3, 2]).supply(50).game()
    game.play("build c2")
    assert_illegal(game, "stack 2")


def test_end_of_turn_redistribution_three_players():
    """§4 end of turn: unused blocks go one at a time to the lowest stack with < 3; overflow to the supply."""
    # 3 players, phase 1 stacks 3,3,2,2. a names a 3 and builds nothing:
    # left [3,2,2]; 3 blocks: -> [3,3,2] -> [3,3,3] -> third fits nowhere -> supply + 1.
    game = Pos(["a", "b", "c"]).supply(30).game()
    assert game.position()["stacks"]["a"] == [3, 3, 2, 2]
    events = game.play("stack 3; end")
    assert events[0] == {"type": "turn_end", "player": "a"}
    pos = game.position()
    assert pos["stacks"]["a"] == [3, 3, 3]
    assert pos["supply"] == 31


def test_end_of_turn_with_a_huge_turns_stack_fills_the_stacks_and_the_rest_goes_to_the_supply():
    """§4 end of turn: a position may hold any turn's stack; ending the turn puts what
    fits into the stacks below 3 and the rest into the supply at once (it once handed
    the blocks over one at a time: 2**64 of them never ended)."""
    game = Pos(["a", "b"]).stacks("a", [1, 3]).supply(5).turn(stack=2**64).game()
    game.play("end")
    after = game.position()
    assert after["stacks"]["a"] == [3, 3]
    assert after["supply"] == 5 + 2**64 - 2


def test_end_of_turn_redistribution_ties_go_to_the_first():
    """§4 end of turn (Ruling): ties go to the first of the lowest stacks."""
    # 4 players, stacks 2,2,2,2: one block built from the turn's 2-stack, 1 left -> [3,2,2]
    game = Pos(["a", "b", "c", "d"]).h(c3=1).supply(40).game()
    game.play("build c4; end")
    pos = game.position()
    assert pos["stacks"]["a"] == [3, 2, 2]
    assert pos["supply"] == 40


def test_end_of_turn_redistribution_currently_lowest():
    """§4 end of turn: each block goes to the CURRENTLY lowest remaining stack."""
    # turn's stack holds 2; others [3,1,2]: 1 -> [3,2,2]; then tie 2,2 -> first -> [3,3,2]
    game = Pos().stacks("a", [3, 1, 2]).turn(stack=2).supply(20).game()
    game.play("end")
    pos = game.position()
    assert pos["stacks"]["a"] == [3, 3, 2]
    assert pos["supply"] == 20


def test_turns_stack_removed_even_if_unused():
    """§4 end of turn: the turn's stack is removed even if no block was placed."""
    game = Pos().stacks("a", [3, 3, 3, 3]).supply(20).game()
    game.play("end")
    pos = game.position()
    # tallest 3 removed; its 3 blocks fit nowhere ([3,3,3]) -> supply
    assert pos["stacks"]["a"] == [3, 3, 3]
    assert pos["supply"] == 23


def test_stack_emptied_by_lift_can_still_be_named():
    """§4: a stack emptied by the lift card stays as an empty stack and can be chosen."""
    game = Pos().stacks("a", [0, 3]).supply(20).game()
    assert "stack 0" in game.legal()
    game.play("stack 0")
    pos = game.position()
    assert pos["turn"]["stack"] == 0
    assert pos["stacks"]["a"] == [3]
    game.play("end")
    assert game.position()["stacks"]["a"] == [3]


# ---------------------------------------------------------------------------
# §4 Drawing
# ---------------------------------------------------------------------------


def test_draw_takes_top_card_at_most_two_per_turn():
    """§4 draw (common deck): take the top card; at most 2 per turn; 1 AP each."""
    game = Pos().deck("jump", "vault", "ap6").game()
    game.play("draw")
    pos = game.position()
    assert pos["hands"]["a"] == ["jump"]
    assert pos["decks"]["common"] == ["vault", "ap6"]
    assert pos["turn"]["drawn"] == ["jump"]
    assert game.ap == 4
    game.play("draw")
    assert sorted(game.hand("a")) == ["jump", "vault"]
    assert "draw" not in game.legal()
    assert_illegal(game, "draw")
    assert game.ap == 3


def test_draw_from_empty_deck_is_illegal():
    """§4 draw: drawing from an empty deck is illegal."""
    game = Pos().deck().game()
    assert "draw" not in game.legal()
    assert_illegal(game, "draw")


def test_cards_drawn_this_turn_cannot_be_played():
    """§4: never play a card drawn this turn."""
    game = Pos().h(c3=1, d3=3, d4=1).knights("a", "c3").deck("jump", "ap6").game()
    game.play("draw")
    assert not any(a.startswith("play jump") for a in game.legal())
    assert_illegal(game, "play jump c3 d3")
    game.play("end")
    game.play("end")  # b
    game.play("play jump c3 d3")  # a's next turn: now it may be played
    assert game.position()["knights"]["a"] == ["d3"]


def test_duplicate_copy_drawn_this_turn():
    """§4: a card may be played when the hand holds more copies of it than were drawn this turn."""
    game = Pos().h(c3=1, d3=3, d4=1).knights("a", "c3").hand("a", "jump").deck("jump", "ap6").game()
    game.play("draw")
    assert game.hand("a").count("jump") == 2
    assert "play jump c3 d3" in game.legal()
    game.play("play jump c3 d3")
    assert game.hand("a") == ["jump"]


def test_duplicate_copy_mid_turn_position():
    """§4 / NOTATION turn.drawn: with 2 copies and 2 drawn, none may be played."""
    base = Pos().h(c3=1, d3=3, d4=1).knights("a", "c3").hand("a", "jump", "jump")
    game = base.turn(ap=3, drawn=["jump", "jump"]).game()
    assert_illegal(game, "play jump c3 d3")
    game2 = base.turn(ap=4, drawn=["jump"]).game()
    game2.play("play jump c3 d3")


def test_one_card_per_turn():
    """§4: play an action card at most 1 per turn."""
    game = Pos().hand("a", "ap6", "ap7").game()
    game.play("play ap6")
    assert game.position()["turn"]["played"] is True
    assert_illegal(game, "play ap7")
    assert not any(a.startswith("play ") for a in game.legal())


def test_personal_draw_reveals_three_keep_one_rest_bottom():
    """§4 draw (personal decks): look at the top three, keep one, the others together at the bottom."""
    pos = Pos(variant="personal").deck("jump", "lift", "extra", "ap6", "vault", owner="a")
    game = pos.game()
    game.play("draw")
    p = game.position()
    assert p["stage"] == "draw-keep"
    assert p["to_move"] == "a"
    assert p["turn"]["revealed"] == ["jump", "lift", "extra"]
    assert game.legal() == sorted(
        f"keep {c} {w}" for c in ("jump", "lift", "extra") for w in ("top", "bottom")
    )
    assert_illegal(game, "end")  # nothing else may happen in between
    game.play("keep lift bottom")
    p = game.position()
    assert p["stage"] == "play"
    assert p["hands"]["a"] == ["lift"]
    assert p["decks"]["a"] == ["ap6", "vault", "jump", "extra"]
    assert p["turn"]["drawn"] == ["lift"]
    assert game.ap == 4


def test_personal_draw_rest_on_top_in_drawn_order():
    """§4 draw (personal decks): the others go back together, in the order drawn, on top."""
    game = Pos(variant="personal").deck("jump", "lift", "extra", "ap6", owner="a").game()
    game.play("draw; keep jump top")
    p = game.position()
    assert p["hands"]["a"] == ["jump"]
    assert p["decks"]["a"] == ["lift", "extra", "ap6"]


def test_personal_draw_fewer_than_three():
    """§4 draw (personal decks): fewer if fewer remain."""
    game = Pos(variant="personal").deck("vault", "ap7", owner="a").game()
    game.play("draw")
    assert game.position()["turn"]["revealed"] == ["vault", "ap7"]
    assert_illegal(game, "keep jump top")  # not among the revealed
    game.play("keep ap7 bottom")
    assert game.position()["decks"]["a"] == ["vault"]


def test_master_version_has_no_draw():
    """§2.4/§4: no drawing in the master version."""
    game = Pos(variant="master").hand("a", *ACTION_CARDS).hand("b", *ACTION_CARDS).game()
    assert "draw" not in game.legal()
    assert_illegal(game, "draw")


# ---------------------------------------------------------------------------
# §4 Scoring track
# ---------------------------------------------------------------------------


def test_scoring_step_costs_one_ap():
    """§4: advance the scoring marker one step, 1 AP."""
    game = Pos().game()
    game.play("score")
    assert game.scores == {"a": 1, "b": 0}
    assert game.ap == 4


def test_leap_frog_over_occupied_spaces():
    """§4 scoring track: a marker that would stop on an occupied space moves on to the next free one."""
    game = Pos(["a", "b", "c"]).scores(a=2, b=3, c=4).game()
    game.play("score")
    assert game.scores == {"a": 5, "b": 3, "c": 4}
    assert game.ap == 4


def test_score_n_is_n_single_steps_with_leap_frog():
    """NOTATION: score N advances N single steps (each with leap-frog), 1 AP each."""
    # a: 0 -> 1 -> 2 is b's, so 3 -> 4
    game = Pos().scores(a=0, b=2).game()
    game.play("score 3")
    assert game.scores == {"a": 4, "b": 2}
    assert game.ap == 2


def test_score_zero_is_malformed():
    """NOTATION: score 0 is malformed."""
    game = Pos().game()
    assert_malformed(game, "score 0")


# ---------------------------------------------------------------------------
# §5 Hidden information
# ---------------------------------------------------------------------------


def test_viewer_sees_own_hand_and_counts_only():
    """§5: hands are private; others see only counts; deck order is secret."""
    game = (
        Pos(["a", "b", "c"])
        .hand("a", "jump", "ap6")
        .hand("b", "vault")
        .deck("lift", "extra")
        .game()
    )
    view = game.position(viewer="b")
    assert view["hands"]["b"] == ["vault"]
    assert view["hands"]["a"] == ["hidden", "hidden"]
    assert view["hands"]["c"] == []
    assert view["decks"]["common"] == ["hidden", "hidden"]
    assert view["seed"] is None
    full = game.position()
    assert full["hands"]["a"] == ["jump", "ap6"]


def test_viewer_does_not_see_cards_drawn_by_others():
    """§5 / NOTATION: turn.drawn and turn.revealed of another player are hidden."""
    game = Pos(variant="personal").deck("jump", "lift", "extra", owner="a").game()
    game.play("draw")
    view_b = game.position(viewer="b")
    assert view_b["turn"]["revealed"] == ["hidden"] * 3
    assert "jump" not in str(view_b)
    view_a = game.position(viewer="a")
    assert view_a["turn"]["revealed"] == ["jump", "lift", "extra"]
    game.play("keep lift bottom")
    view_b = game.position(viewer="b")
    assert view_b["turn"]["drawn"] == ["hidden"]
    assert view_b["hands"]["a"] == ["hidden"]
    assert view_b["decks"]["a"] == ["hidden", "hidden"]
    view_a = game.position(viewer="a")
    assert view_a["decks"]["a"] == ["hidden", "hidden"]  # even their own deck order is secret


# ---------------------------------------------------------------------------
# §7 Scoring
# ---------------------------------------------------------------------------


def end_of_phase(phase: int, last_round: int) -> Pos:
    """2 players a, b; a started the phase; b takes its last turn."""
    return (
        Pos()
        .phase(phase, last_round)
        .starters("a")
        .to_move("b")
        .stacks("a", [])
        .stacks("b", [3])
        .supply(40)
    )


def test_phase_scoring_castles_king_and_leap_frog():
    """§7: area x highest knight level per castle (once), king bonus 5 at level 1, leap-frog per move."""
    # C1 = c3:2 c4:1 d3:1 (area 3), king on c4; C2 = f6:1 f7:1 (area 2); H = h1:1.
    # a: C1 highest c3 (2) -> 6; C2 f6 (1) -> 2; castles 8. King: d3 is exactly level 1 -> 5.
    # b: C2 f7 (1) -> 2; e5 is level 0 -> nothing.
    # From a 5, b 13, starting with a: a 5+8=13 taken -> 14; b 13+2=15; a king 14+5=19.
    pos = (
        end_of_phase(1, 4)
        .h(c3=2, c4=1, d3=1, f6=1, f7=1, h1=1)
        .knights("a", "c3", "d3", "f6")
        .knights("b", "f7", "e5")
        .king("c4")
        .scores(a=5, b=13)
    )
    game = pos.game()
    events = game.play("end")
    assert [e["type"] for e in events] == ["turn_end", "phase_scored"]
    scored = events[1]
    assert scored["phase"] == 1
    assert scored["points"] == {
        "a": {"castles": 8, "king": 5, "master": 0},
        "b": {"castles": 2, "king": 0, "master": 0},
    }
    assert scored["scores"] == {"a": 19, "b": 15}
    assert game.scores == {"a": 19, "b": 15}
    p = game.position()
    assert p["stage"] == "king"
    assert p["to_move"] == "b"  # lowest score
    assert (p["phase"], p["round"]) == (1, 4)
    assert p["stacks"] == {"a": [], "b": []}
    assert p["supply"] == 43  # b's unused 3-stack fits nowhere
    # empty castle squares: only h1 (c3, d3, f6, f7 hold knights, c4 the king)
    assert game.legal() == ["king h1", "king pass"]


def test_king_move_then_mover_starts_next_phase_with_new_stacks():
    """§7.5: the lowest scorer may move the king to an empty castle square; they start the next phase."""
    pos = (
        end_of_phase(1, 4)
        .h(c3=2, c4=1, d3=1, f6=1, f7=1, h1=1)
        .knights("a", "c3", "d3", "f6")
        .knights("b", "f7", "e5")
        .king("c4")
        .scores(a=5, b=13)
    )
    game = pos.game()
    game.play("end")
    assert_illegal(game, "king e5", "e5")  # not a castle
    assert_illegal(game, "king f7", "f7")  # holds a knight
    game.play("king h1")
    p = game.position()
    assert p["king"] == "h1"
    assert p["stage"] == "play"
    assert (p["phase"], p["round"]) == (2, 1)
    assert p["to_move"] == "b"
    assert p["phase_starter"] == "b"
    assert p["stacks"] == {"a": [3, 3, 3, 3], "b": [3, 3, 3, 3]}
    assert p["supply"] == 43 - 24


def test_king_pass_leaves_the_king():
    """§7.5: the king mover may leave the king where it is."""
    game = end_of_phase(1, 4).h(c3=1, h1=1).knights("a", "c3").king("h1").game()
    game.play("end")
    assert game.to_move == "b"
    game.play("king pass")
    p = game.position()
    assert p["king"] == "h1"
    assert p["to_move"] == "b" and p["phase"] == 2


def test_king_bonus_needs_exactly_the_phase_level():
    """§7.2: king's bonus 10 after phase 2 for a knight on exactly level 2 of the king's castle."""
    # K = c3:3 c4:2 d3:1 d4:1 (area 4), king d4. a on c4 (2): 4*2=8 + bonus 10.
    # b on c3 (3): 4*3=12, no knight on exactly 2 -> no bonus. a 0->8, b 0->12, a 8->18.
    game = (
        end_of_phase(2, 4)
        .h(c3=3, c4=2, d3=1, d4=1)
        .knights("a", "c4")
        .knights("b", "c3")
        .king("d4")
        .game()
    )
    events = game.play("end")
    scored = events[-1]
    assert scored["points"]["a"] == {"castles": 8, "king": 10, "master": 0}
    assert scored["points"]["b"] == {"castles": 12, "king": 0, "master": 0}
    assert game.scores == {"a": 18, "b": 12}
    assert game.to_move == "b"


def test_king_bonus_once_and_castle_scored_once_per_castle():
    """§7.1-2: several knights on one castle score once (highest); bonus once."""
    # K = c3:1 c4:1 c5:1 (area 3), king c5; a knights c3, c4 both level 1: 3*1 = 3, bonus 5 once.
    game = end_of_phase(1, 4).h(c3=1, c4=1, c5=1).knights("a", "c3", "c4").king("c5").game()
    events = game.play("end")
    assert events[-1]["points"]["a"] == {"castles": 3, "king": 5, "master": 0}
    assert game.scores["a"] == 8


def test_castle_points_count_the_highest_knight_whatever_its_place():
    """§7.1: per castle, area x the level of the player's HIGHEST knight there."""
    # C = c3:1 c4:2 c5:1 (area 3); a's knights c3 (1), c4 (2), c5 (1): 3 x 2 = 6, once.
    game = end_of_phase(1, 4).h(c3=1, c4=2, c5=1).knights("a", "c3", "c4", "c5").game()
    events = game.play("end")
    assert events[-1]["points"]["a"] == {"castles": 6, "king": 0, "master": 0}
    assert game.scores["a"] == 6


def test_lowest_scorer_tie_goes_to_first_from_phase_starter():
    """§7.5 Ruling: on a tie, the tied player first in seat order from the phase's starting player."""
    # 3 players, phase started by c (order c, a, b); b takes the last turn.
    # Nobody scores; a already has 7 -> b and c tie on 0 -> c (first from starter c).
    game = (
        Pos(["a", "b", "c"])
        .phase(1, 4)
        .starters("c")
        .to_move("b")
        .stacks("a", [])
        .stacks("b", [2])
        .stacks("c", [])
        .supply(40)
        .h(h1=1)
        .king("h1")
        .knights("a", "a8")
        .scores(a=7)
        .game()
    )
    game.play("end")
    assert game.stage == "king"
    assert game.to_move == "c"
    game.play("king pass")
    p = game.position()
    assert p["to_move"] == "c" and p["phase_starter"] == "c"
    assert p["stacks"]["a"] == [3, 3, 2]


def test_all_zero_tie_two_players():
    """§7.5 Ruling: all on 0 -> the phase's starting player moves the king and starts."""
    game = (
        Pos()
        .phase(1, 4)
        .starters("b")
        .to_move("a")
        .stacks("a", [3])
        .stacks("b", [])
        .supply(40)
        .h(h1=1)
        .king("h1")
        .game()
    )
    game.play("end")
    assert game.to_move == "b"


def test_blocks_left_in_stacks_return_to_supply():
    """§7.4: blocks left in stacks return to the supply at phase end."""
    # a's extra stack [2] (taken as given) and b's unused 3-stack both go back: 40 + 3 + 2.
    game = (
        end_of_phase(1, 4)
        .stacks("a", [2])
        .h(h1=1)
        .king("h1")
        .knights("a", "a8")
        .knights("b", "b8")
        .game()
    )
    game.play("end")
    p = game.position()
    assert p["stacks"] == {"a": [], "b": []}
    assert p["supply"] == 45


def test_game_end_after_phase_three_and_winner():
    """§7: after phase 3 the game ends; the highest score wins."""
    # a on c3 (level 1, castle area 2): +2 -> 12; b stays 20.
    game = (
        end_of_phase(3, 4)
        .h(c3=1, c4=1, h1=1)
        .king("h1")
        .knights("a", "c3")
        .knights("b", "a8")
        .scores(a=10, b=20)
        .game()
    )
    events = game.play("end")
    assert [e["type"] for e in events] == ["turn_end", "phase_scored", "game_over"]
    assert events[-1] == {"type": "game_over", "scores": {"a": 12, "b": 20}, "winners": ["b"]}
    assert game.stage == "over"
    assert game.to_move is None
    assert game.winners == ["b"]
    assert game.legal() == []
    p = game.position()
    assert p["stage"] == "over" and p["to_move"] is None
    with pytest.raises((IllegalAction, NotationError)):
        game.play("end")
    assert game.position() == p


def test_three_player_phase_three_has_three_rounds():
    """§3/§7: 3 players, phase 3 lasts 3 rounds; after round 3 the game ends."""
    game = (
        Pos(["a", "b", "c"])
        .phase(3, 3)
        .starters("a")
        .to_move("c")
        .stacks("a", [])
        .stacks("b", [])
        .stacks("c", [2])
        .supply(40)
        .h(h1=1)
        .king("h1")
        .scores(a=1, b=2, c=3)
        .game()
    )
    events = game.play("end")
    assert events[-1]["type"] == "game_over"
    assert events[-1]["winners"] == ["c"]


# ---------------------------------------------------------------------------
# §9 Undo
# ---------------------------------------------------------------------------


def test_undo_one_action_at_a_time_back_to_turn_start():
    """§9: within their turn a player may take back actions one at a time, back to the start of the turn."""
    game = Pos().h(c3=1, c4=1).knights("a", "c2").supply(40).game()
    start = game.position()
    assert game.can_undo is False
    assert game.undo() is False
    game.play("move c2 c3")
    after_move = game.position()
    game.play("build d4; score")
    assert game.can_undo is True
    assert game.undo() is True  # score
    assert game.undo() is True  # build
    assert game.position() == after_move
    assert game.undo() is True  # move
    assert game.position() == start
    assert game.undo() is False
    assert game.position() == start


def test_undo_restores_stack_choice_and_ap():
    """§9: undo takes back a named stack as well."""
    game = Pos().stacks("a", [3, 1]).game()
    start = game.position()
    game.play("stack 1")
    assert game.undo() is True
    assert game.position() == start


def test_undo_never_across_a_draw():
    """§9: never back across a card draw (it revealed hidden information)."""
    game = Pos().knights("a", "a1").deck("jump", "ap6").game()
    game.play("move a1 a2; draw; move a2 a3")
    assert game.undo() is True  # the move after the draw
    after_draw = game.position()
    assert after_draw["hands"]["a"] == ["jump"]
    assert game.can_undo is False
    assert game.undo() is False
    assert game.position() == after_draw


def test_undo_never_across_turn_end():
    """§9: once the turn ends it is final."""
    game = Pos().knights("a", "a1").game()
    game.play("move a1 a2; end")
    p = game.position()
    assert game.undo() is False
    assert game.position() == p
    assert game.to_move == "b"


def test_failed_play_is_atomic():
    """NOTATION: play is all or nothing -- a later illegal clause undoes the earlier ones."""
    game = Pos().knights("a", "a1").game()
    before = game.position()
    with pytest.raises(IllegalAction):
        game.play("move a1 a2; move a2 a3; knight h8")
    assert game.position() == before
    with pytest.raises(NotationError):
        game.play("move a1 a2; frobnicate")
    assert game.position() == before
    assert game.can_undo is False


def test_copy_is_independent():
    """API: copy() gives an independent game."""
    game = Pos().knights("a", "a1").game()
    other = game.copy()
    other.play("move a1 a2")
    assert game.position()["knights"]["a"] == ["a1"]
    assert other.position()["knights"]["a"] == ["a2"]
