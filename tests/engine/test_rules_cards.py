"""Scenario tests for the ten action cards (RULES.md §6), built from positions."""

from __future__ import annotations

from rules_helpers import ACTION_CARDS, Pos, assert_illegal

import engine
from engine import castles


def with_card(card: str, *, players=("a", "b")) -> Pos:
    return Pos(players).hand("a", card).supply(40)


def after(game, text: str) -> dict:
    game.play(text)
    return game.position()


def test_card_tables_name_all_ten_cards():
    """§6: ten kinds of action cards, each with an English name and a one-line effect."""
    assert set(engine.CARDS) == set(ACTION_CARDS)
    assert set(engine.CARD_HELP) == set(ACTION_CARDS)
    assert all(isinstance(v, str) and v for v in engine.CARDS.values())


def test_card_costs_no_ap_and_leaves_the_game():
    """§6: action cards cost 0 AP; the card leaves the game."""
    game = with_card("ap6").game()
    p = after(game, "play ap6")
    assert p["hands"]["a"] == []
    assert p["decks"] == {"common": []}
    assert p["turn"]["played"] is True


def test_card_not_in_hand_is_illegal():
    """§4: play a card from your hand."""
    game = Pos().knights("a", "c3").game()
    assert_illegal(game, "play ap7")


# jump ----------------------------------------------------------------------


def test_jump_two_levels_up():
    """§6 jump: move to an orthogonally adjacent empty square at most two levels higher."""
    # castle c3:1 d3:3 d4:1 (area 3); a on c3 (level 1); d3 is two levels up.
    game = with_card("jump").h(c3=1, d3=3, d4=1).knights("a", "c3").game()
    assert_illegal(game, "move c3 d3", "d3")
    p = after(game, "play jump c3 d3")
    assert p["knights"]["a"] == ["d3"]
    assert game.ap == 5
    assert p["hands"]["a"] == []


def test_jump_three_levels_up_is_illegal():
    """§6 jump: at most two levels higher."""
    # castle c3:1 d3:4 d4:1 d5:1 (area 4); d3 is three up from c3.
    game = with_card("jump").h(c3=1, d3=4, d4=1, d5=1).knights("a", "c3").game()
    assert_illegal(game, "play jump c3 d3", "d3")


def test_jump_must_be_orthogonally_adjacent_and_empty():
    """§6 jump: orthogonally adjacent empty square."""
    game = with_card("jump").h(c3=1, d3=3, d4=1).knights("a", "c3").knights("b", "d3").game()
    assert_illegal(game, "play jump c3 d3", "d3")
    assert_illegal(game, "play jump c3 d4", "d4")


# lift ----------------------------------------------------------------------


def test_lift_on_a_castle_takes_tallest_stack_by_default():
    """§6 lift: block under a knight; default the turn's stack if it holds a block, else the tallest."""
    # castle c3:1 c4:1 (area 2): c3 -> 2 is allowed (2 <= 2). Stacks 2,3,1: the 3 gives.
    game = with_card("lift").h(c3=1, c4=1).knights("a", "c3").stacks("a", [2, 3, 1]).game()
    p = after(game, "play lift c3")
    assert p["heights"]["c3"] == 2
    assert p["knights"]["a"] == ["c3"]
    assert p["stacks"]["a"] == [2, 2, 1]
    assert p["turn"]["stack"] is None  # does not choose the turn's stack
    assert game.ap == 5
    assert p["supply"] == 40


def test_lift_uses_turns_stack_when_it_holds_a_block():
    """§6 lift: default is the turn's stack if it holds a block."""
    game = (
        with_card("lift").h(c3=1, c4=1).knights("a", "c3").stacks("a", [3, 3]).turn(stack=1).game()
    )
    p = after(game, "play lift c3")
    assert p["turn"]["stack"] == 0
    assert p["stacks"]["a"] == [3, 3]


def test_lift_named_stack():
    """§6 lift: one of the other stacks named by its size (play lift A K)."""
    game = with_card("lift").h(c3=1, c4=1).knights("a", "c3").stacks("a", [3, 1]).game()
    p = after(game, "play lift c3 1")
    assert p["stacks"]["a"] == [3, 0]  # the emptied stack stays, as an empty stack
    assert p["heights"]["c3"] == 2


def test_lift_from_named_missing_stack_is_illegal():
    """§6 lift: the block comes from one of YOUR stacks."""
    game = with_card("lift").h(c3=1, c4=1).knights("a", "c3").stacks("a", [3, 1]).game()
    assert_illegal(game, "play lift c3 2")
    game2 = with_card("lift").h(c3=1, c4=1).knights("a", "c3").stacks("a", [3, 1]).game()
    assert_illegal(game2, "play lift c3 turn")  # no turn's stack chosen yet


def test_lift_may_not_exceed_area():
    """§6 lift: on a castle, its height must stay <= its area."""
    game = with_card("lift").h(c3=1).knights("a", "c3").game()
    assert_illegal(game, "play lift c3", "c3")


def test_lift_at_level_zero_starts_a_new_castle():
    """§6 lift: at level 0 the block starts a new castle if it touches none."""
    game = with_card("lift").h(c3=1).knights("a", "f6").game()
    p = after(game, "play lift f6")
    assert p["heights"] == {"c3": 1, "f6": 1}
    assert len(castles(p["heights"])) == 2


def test_lift_at_level_zero_joins_the_one_castle_it_touches():
    """§6 lift: at level 0 the new block joins the one castle it touches orthogonally."""
    game = with_card("lift").h(c3=1).knights("a", "d3").game()
    p = after(game, "play lift d3")
    assert [sorted(c) for c in castles(p["heights"])] == [["c3", "d3"]]


def test_lift_at_level_zero_touching_two_castles_is_illegal():
    """§6 lift: touching two or more castles is illegal."""
    game = with_card("lift").h(c3=1, e3=1).knights("a", "d3").game()
    assert_illegal(game, "play lift d3", "d3")


def test_lift_at_level_zero_next_to_one_too_tall_castle_is_illegal():
    """§6 lift: the new square joins the one castle it touches, which must then be no
    taller than its area; the refusal names the castle's height and its area after."""
    game = with_card("lift").h(c4=3).knights("a", "c3").stacks("a", [3]).game()
    msg = assert_illegal(game, "play lift c3 3", "c3", "taller (3)", "area (2)")
    assert "join" not in msg


def test_lift_at_level_zero_touching_one_castle_twice_is_not_called_a_join():
    """§6 lift: two squares of one castle next to the knight are still one castle."""
    game = with_card("lift").h(c4=5, b4=1, b3=1).knights("a", "c3").stacks("a", [3]).game()
    msg = assert_illegal(game, "play lift c3 3", "c3", "taller (5)", "area (4)")
    assert "join" not in msg


def test_lift_only_under_own_knight():
    """§6 lift: under one of YOUR knights."""
    game = with_card("lift").h(c3=1, c4=1).knights("b", "c3").game()
    assert_illegal(game, "play lift c3", "c3")


# extra ---------------------------------------------------------------------


def test_extra_block_from_the_supply():
    """§6 extra: one more block from the common supply, by the rules for placing a block."""
    game = with_card("extra").h(c3=1, c4=1).stacks("a", [3, 3]).supply(5).game()
    p = after(game, "play extra d3")
    assert p["heights"]["d3"] == 1
    assert p["supply"] == 4
    assert p["stacks"]["a"] == [3, 3]
    assert p["turn"]["stack"] is None
    assert game.ap == 5


def test_extra_obeys_placement_rules():
    """§6 extra: normal block-placement rules apply."""
    game = with_card("extra").h(c3=1, e3=1).game()
    assert_illegal(game, "play extra d3", "d3")  # would join two castles
    assert_illegal(game, "play extra h8", "h8")  # touches no castle
    assert_illegal(game, "play extra c3", "c3")  # 2 > area 1


def test_extra_never_under_a_knight_or_the_king():
    """§1, §6 extra: a block is never placed on a square holding a knight or the king."""
    # c3:1 c4:1 c5:1 (area 3): c4, c5 and the bare d3 would take a block, but hold pieces
    pos = with_card("extra").h(c3=1, c4=1, c5=1).knights("a", "c4").knights("b", "d3")
    game = pos.king("c5").game()
    for sq in ("c4", "d3", "c5"):
        assert f"play extra {sq}" not in game.legal()
        assert_illegal(game, f"play extra {sq}", sq)
    assert after(game, "play extra b3")["heights"]["b3"] == 1


def test_extra_with_empty_supply_is_illegal():
    """§6 extra: illegal when the supply is empty."""
    game = with_card("extra").h(c3=1, c4=1).supply(0).game()
    assert_illegal(game, "play extra d3")


# doorclimb -----------------------------------------------------------------


def test_doorclimb_exits_higher_than_it_started():
    """§6 doorclimb: a door passage without the level limit."""
    # C = c2:3 d2:1 e2:1 (area 3); a on b2 (bare). d2 (1) is beside c2 (3 > 1).
    game = with_card("doorclimb").h(c2=3, d2=1, e2=1).knights("a", "b2").game()
    assert_illegal(game, "move b2 d2", "d2")  # a normal passage never ends higher
    p = after(game, "play doorclimb b2 d2")
    assert p["knights"]["a"] == ["d2"]
    assert game.ap == 5


def test_doorclimb_exit_still_needs_a_taller_neighbour():
    """§6 doorclimb: exit still orthogonally adjacent to a square u of the castle with height(u) > height(exit)."""
    game = with_card("doorclimb").h(c2=3, d2=1, e2=1).knights("a", "b2").game()
    assert_illegal(game, "play doorclimb b2 c2", "c2")  # the top: nothing taller beside it
    assert_illegal(game, "play doorclimb b2 e2", "e2")  # beside d2 (1) only


def test_doorclimb_still_needs_a_door_to_enter():
    """§6 doorclimb: still a door passage: entry needs a taller neighbour."""
    game = with_card("doorclimb").h(c2=3, d2=1, e2=1).knights("a", "a5").game()
    assert_illegal(game, "play doorclimb a5 d2")


# diagonal ------------------------------------------------------------------


def test_diagonal_move_castle_to_castle_one_up():
    """§6 diagonal: to a diagonally adjacent empty square at most one level higher, also castle to castle."""
    # castles {c3:1} and {d4:2, e4:1}
    game = with_card("diagonal").h(c3=1, d4=2, e4=1).knights("a", "c3").game()
    p = after(game, "play diagonal c3 d4")
    assert p["knights"]["a"] == ["d4"]
    assert game.ap == 5


def test_diagonal_two_up_or_orthogonal_is_illegal():
    """§6 diagonal: at most one level higher; diagonal squares only."""
    game = with_card("diagonal").h(c3=1, d4=3, e4=1, e5=1).knights("a", "c3").game()
    assert_illegal(game, "play diagonal c3 d4", "d4")
    assert_illegal(game, "play diagonal c3 c4", "c4")
    assert_illegal(game, "play diagonal c3 e5", "e5")


# ap6 / ap7 -----------------------------------------------------------------


def test_ap6_adds_one_action_point():
    """§6 ap6: +1 AP this turn."""
    game = with_card("ap6").game()
    game.play("score 2")
    game.play("play ap6")
    assert game.ap == 4
    assert game.position()["turn"]["ap"] == 4


def test_ap7_adds_two_action_points():
    """§6 ap7: +2 AP this turn (7 in all)."""
    game = with_card("ap7").knights("a", "a1").game()
    game.play("play ap7")
    assert game.ap == 7
    game.play("move a1 a2 a3 a4 a5 a6 a7 a8")
    assert game.ap == 0


# moveblock -----------------------------------------------------------------

STANDARD = {sq: 1 for sq in ("d1", "c3", "f3", "h4", "a5", "c6", "f6", "e8")}


def test_moveblock_single_block_castle_to_a_new_castle():
    """§6 moveblock: a single-block castle may be picked up; bare touching no castle starts a new one."""
    game = with_card("moveblock").h(**STANDARD).game()
    p = after(game, "play moveblock d1 e2")
    assert "d1" not in p["heights"]
    assert p["heights"]["e2"] == 1
    assert len(castles(p["heights"])) == 8
    assert game.ap == 5


def test_moveblock_onto_castle_top_must_keep_height_le_area():
    """§6 moveblock: every castle's height <= its area afterwards."""
    game = with_card("moveblock").h(**STANDARD).game()
    assert_illegal(game, "play moveblock d1 c3")  # c3 would be 2 on area 1


def test_moveblock_may_not_split_the_source_castle():
    """§6 moveblock: the castle it came from is not split into two."""
    board = dict(a1=1, b1=1, c1=1, h8=1, h6=1, f8=1, d8=1, b8=1)
    game = with_card("moveblock").h(**board).game()
    assert_illegal(game, "play moveblock b1 e4")
    p = after(game, "play moveblock c1 e4")  # an end square: no split, 7 castles
    assert p["heights"]["e4"] == 1 and "c1" not in p["heights"]


def test_moveblock_source_castle_height_le_area():
    """§6 moveblock: shrinking a castle may not leave it taller than its area."""
    board = dict(a1=2, b1=1, h8=1, h6=1, f8=1, d8=1, b8=1)
    game = with_card("moveblock").h(**board).game()
    assert_illegal(game, "play moveblock b1 e4")  # a1 alone: height 2 > area 1


def test_moveblock_top_block_of_a_taller_square():
    """§6 moveblock: take the top block of a square."""
    board = dict(c3=2, c4=1, h8=1, h6=1, f8=1, d8=1, b8=1)
    game = with_card("moveblock").h(**board).game()
    p = after(game, "play moveblock c3 e5")
    assert p["heights"]["c3"] == 1 and p["heights"]["e5"] == 1


def test_moveblock_keeps_at_least_six_castles():
    """§6 moveblock: there are still at least 6 castles afterwards."""
    # six castles: {a1,a2}, h8, h6, f8, d8, b8
    board = dict(a1=1, a2=1, h8=1, h6=1, f8=1, d8=1, b8=1)
    game = with_card("moveblock").h(b5=1, **board).game()  # 7 castles
    p = after(game, "play moveblock b5 a3")  # extends {a1,a2}: 6 remain
    assert len(castles(p["heights"])) == 6
    game2 = with_card("moveblock").h(**board).game()  # exactly 6 castles
    assert_illegal(game2, "play moveblock h8 a3")  # would leave 5
    p2 = after(game2, "play moveblock h8 e4")  # new castle: still 6
    assert len(castles(p2["heights"])) == 6


def test_moveblock_never_joins_two_castles():
    """§6 moveblock: at the destination it never joins two castles."""
    # e2 is a castle of its own (it touches d1 and f3 only diagonally); d2 touches d1 and e2.
    game = with_card("moveblock").h(**STANDARD, e2=1).game()
    assert_illegal(game, "play moveblock h4 d2")


def test_moveblock_source_and_destination_must_be_free():
    """§6 moveblock: source with no knight and no king; destination empty."""
    game = (
        with_card("moveblock").h(**STANDARD).knights("b", "d1").king("c3").knights("a", "e2").game()
    )
    assert_illegal(game, "play moveblock d1 g8")  # knight on the source
    assert_illegal(game, "play moveblock c3 g8")  # king on the source
    assert_illegal(game, "play moveblock h4 e2")  # knight on the destination
    game.play("play moveblock h4 g8")


def test_building_after_moveblock_keeps_height_le_area():
    """§1, §6 moveblock: after a block is moved the build rules still hold: a castle as
    tall as its area takes no block on its tallest square (its lower one, yes)."""
    # B = c3:2 c4:1 (area 2, height 2); the block goes from a1 (2 -> 1) to h8: 7 castles.
    board = dict(a1=2, a2=1, c3=2, c4=1, e1=1, g1=1, e5=1, g5=1)
    game = with_card("moveblock").h(**board).stacks("a", [3]).game()
    game.play("play moveblock a1 h8")
    assert "build c3" not in game.legal()
    assert_illegal(game, "build c3", "c3")  # 3 on area 2
    game.play("build c4")  # 2 on area 2
    assert game.position()["heights"]["c4"] == 2


# relocate ------------------------------------------------------------------


def test_relocate_next_to_another_knight():
    """§6 relocate: to any empty square legal for adding a knight next to one of your OTHER knights."""
    # a: a1 (bare) and e5 (level 2 on e5:2 e6:1); e6 (1 <= 2) is next to e5.
    game = with_card("relocate").h(e5=2, e6=1).knights("a", "a1", "e5").game()
    p = after(game, "play relocate a1 e6")
    assert sorted(p["knights"]["a"]) == ["e5", "e6"]
    assert game.ap == 5


def test_relocate_next_to_itself_only_is_illegal():
    """§6 relocate: next to one of your OTHER knights."""
    game = with_card("relocate").h(e5=2, e6=1).knights("a", "a1", "e5").game()
    assert_illegal(game, "play relocate a1 b1", "b1")


def test_relocate_not_higher_than_the_other_knight():
    """§6 relocate: same or lower level than that knight."""
    game = with_card("relocate").h(d1=1).knights("a", "a8", "c1").game()
    assert_illegal(game, "play relocate a8 d1", "d1")  # d1 (1) above c1's knight (0)
    game.play("play relocate a8 c2")
    assert sorted(game.position()["knights"]["a"]) == ["c1", "c2"]


def test_relocate_with_a_single_knight_is_illegal():
    """§6 relocate: needs another knight of yours."""
    game = with_card("relocate").knights("a", "a1").game()
    assert_illegal(game, "play relocate a1 a2")


# vault ---------------------------------------------------------------------


def test_vault_over_any_knight():
    """§6 vault: jump in a straight orthogonal line over an adjacent knight onto the empty square beyond."""
    game = with_card("vault").knights("a", "c3").knights("b", "d3").game()
    p = after(game, "play vault c3 e3")
    assert p["knights"] == {"a": ["e3"], "b": ["d3"]}
    assert game.ap == 5


def test_vault_over_own_knight_and_one_level_up():
    """§6 vault: any colour, any level; landing at most one level higher than where it started."""
    # own knight on d3 at level 3; landing e3 is level 1 (one up from c3's 0)
    game = with_card("vault").h(d3=3, d4=1, d5=1, e3=1).knights("a", "c3", "d3").game()
    p = after(game, "play vault c3 e3")
    assert sorted(p["knights"]["a"]) == ["d3", "e3"]


def test_vault_landing_two_up_is_illegal():
    """§6 vault: at most one level higher than where it started."""
    game = with_card("vault").h(e3=2, e4=1).knights("a", "c3").knights("b", "d3").game()
    assert_illegal(game, "play vault c3 e3", "e3")


def test_vault_not_over_the_king_or_an_empty_square():
    """§6 vault: over a square holding a knight -- not the king."""
    game = with_card("vault").h(d3=1).knights("a", "c3").king("d3").game()
    assert_illegal(game, "play vault c3 e3")
    game2 = with_card("vault").knights("a", "c3").game()
    assert_illegal(game2, "play vault c3 e3")


def test_vault_landing_must_be_empty():
    """§6 vault: onto the EMPTY square beyond."""
    game = with_card("vault").knights("a", "c3").knights("b", "d3", "e3").game()
    assert_illegal(game, "play vault c3 e3", "e3")


# the legal lists: each card's plays, worked out by hand -----------------------


def plays(game, card: str) -> set[str]:
    return {m for m in game.legal() if m.startswith(f"play {card} ")}


def test_relocate_plays_next_to_the_other_knight_no_higher():
    """§6 relocate: the listed plays are the squares legal for a new knight next to the
    OTHER knight: never next to the moving knight itself, never higher than the other."""
    game = with_card("relocate").h(d1=1).knights("a", "a8", "c1").game()
    # a8 -> beside c1 (level 0): b1, c2 (d1 is 1 high); c1 -> beside a8: a7, b8
    assert plays(game, "relocate") == {
        "play relocate a8 b1",
        "play relocate a8 c2",
        "play relocate c1 a7",
        "play relocate c1 b8",
    }


def test_diagonal_plays_at_most_one_up():
    """§6 diagonal: listed only onto diagonal squares at most one level higher."""
    # c3:1 alone; b4:2 b5:1 and d4:3 d5:1 e4:1 touch c3 only diagonally
    game = with_card("diagonal").h(c3=1, b4=2, b5=1, d4=3, d5=1, e4=1).knights("a", "c3").game()
    assert plays(game, "diagonal") == {
        "play diagonal c3 b2",
        "play diagonal c3 d2",
        "play diagonal c3 b4",  # 2 = 1 + 1; d4 (3) is two up
    }


def test_doorclimb_plays_need_a_taller_neighbour():
    """§6 doorclimb: no play from the top of a castle (no neighbour is taller)."""
    game = with_card("doorclimb").h(c3=2, c4=1).knights("a", "c3").game()
    assert plays(game, "doorclimb") == set()
    game = with_card("doorclimb").h(c3=2, c4=1).knights("a", "c4").game()
    assert "play doorclimb c4 d3" in plays(game, "doorclimb")  # beside c3 (2 > 0)


def test_lift_plays_not_from_an_empty_turn_stack():
    """§6 lift: the turn's stack is offered only while it holds a block."""
    pos = with_card("lift").h(c3=1, c4=1).knights("a", "c3").stacks("a", [2])
    assert plays(pos.turn(stack=0).game(), "lift") == {"play lift c3 2"}
    assert plays(pos.turn(stack=1).game(), "lift") == {"play lift c3 turn", "play lift c3 2"}


def test_extra_plays_none_with_an_empty_supply():
    """§6 extra: not listed when the supply is empty."""
    assert plays(with_card("extra").h(c3=1, c4=1).supply(0).game(), "extra") == set()
    assert "play extra d3" in plays(with_card("extra").h(c3=1, c4=1).supply(1).game(), "extra")


def test_moveblock_plays_never_from_under_a_piece():
    """§6 moveblock: no play takes a block from under a knight or the king."""
    game = with_card("moveblock").h(**STANDARD).knights("b", "d1").king("c3").game()
    sources = {m.split()[2] for m in plays(game, "moveblock")}
    assert sources == {"f3", "h4", "a5", "c6", "f6", "e8"}


def test_moveblock_next_door_joining_a_castle_keeps_six():
    """§6 moveblock: a single block moved next door, onto a square beside another castle,
    joins that castle: with 6 castles before, 5 would remain."""
    # six castles: {a1,a2}, a4, h8, h6, f8, d8; a3 touches a2 (and a4, which empties)
    game = with_card("moveblock").h(a1=1, a2=1, a4=1, h8=1, h6=1, f8=1, d8=1).game()
    assert "play moveblock a4 a3" not in plays(game, "moveblock")
    assert_illegal(game, "play moveblock a4 a3")
    p = after(game, "play moveblock a4 b4")  # a new castle of its own: still 6
    assert len(castles(p["heights"])) == 6
