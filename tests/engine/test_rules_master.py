"""Scenario tests for the master version (RULES.md §2, §8) and all eight master cards."""

from __future__ import annotations

import pytest
from rules_helpers import ACTION_CARDS, MASTER_CARDS, SQUARES, Pos, assert_illegal

import engine
from engine import Game


def manhattan(a: str, b: str) -> int:
    return abs(ord(a[0]) - ord(b[0])) + abs(int(a[1]) - int(b[1]))


def master_end(phase: int, card: str) -> Pos:
    """2-player master game, b takes the last turn of ``phase`` (4 rounds each for 2 players)."""
    return (
        Pos(variant="master")
        .hand("a", *ACTION_CARDS)
        .hand("b", *ACTION_CARDS)
        .phase(phase, 4)
        .starters("a")
        .to_move("b")
        .stacks("a", [])
        .stacks("b", [3])
        .supply(40)
        .master(card)
    )


def finish(pos: Pos) -> dict:
    game = pos.game()
    events = game.play("end")
    scored = [e for e in events if e["type"] == "phase_scored"]
    assert len(scored) == 1
    return {"game": game, "scored": scored[0], "events": events}


def master_points(result: dict) -> dict:
    return {p: v["master"] for p, v in result["scored"]["points"].items()}


def test_master_card_tables():
    """§8: eight master cards with English names and help."""
    assert set(engine.MASTER_CARDS) == set(MASTER_CARDS)
    assert set(engine.MASTER_CARD_HELP) == set(MASTER_CARDS)


def test_master_card_drawn_from_seed_or_chosen():
    """§2.5: one master card revealed at random (the host may choose it)."""
    pos = Game.new(players=3, variant="master", seed=4).position()
    assert pos["master_card"] in MASTER_CARDS
    assert Game.new(players=3, variant="master", seed=4).position() == pos
    chosen = Game.new(players=2, variant="master", master_card="row").position()
    assert chosen["master_card"] == "row"
    assert Game.new(players=2).position()["master_card"] is None


def test_master_castle_placement_distance_rule():
    """§2.1 master Ruling: each new starting block at Manhattan distance >= 3 from every block already placed."""
    game = Game.new(players=3, names=["a", "b", "c"], variant="master", seed=1)
    assert game.stage == "castles"
    assert game.position()["heights"] == {}
    assert game.legal() == sorted(f"castle {sq}" for sq in SQUARES)
    game.play("castle d4")
    assert game.to_move == "b"
    expected = sorted(f"castle {sq}" for sq in SQUARES if manhattan(sq, "d4") >= 3)
    assert game.legal() == expected
    assert_illegal(game, "castle e5", "e5")  # distance 2 (diagonal neighbour)
    assert_illegal(game, "castle d6", "d6")  # distance 2 (two squares up)
    game.play("castle e6")  # distance 1 + 2 = 3: "at least one diagonally"
    assert game.to_move == "c"


def test_master_castle_placement_relaxes_to_two_only_when_no_square_is_three_away():
    """Ruling 10: with no bare square 3 away from every block, the distance relaxes to 2."""
    blocks = ["a1", "d1", "g1", "b4", "e4", "h4", "a7", "d7", "g7"]
    position = Game.new(players=4, variant="master", seed=1).position()
    position["heights"] = {sq: 1 for sq in blocks}
    position["supply"] -= len(blocks)
    game = Game.from_position(position)

    def gap(sq: str) -> int:
        return min(manhattan(sq, b) for b in blocks)

    assert not [sq for sq in SQUARES if gap(sq) >= 3]
    expected = sorted(f"castle {sq}" for sq in SQUARES if gap(sq) == 2)
    assert game.legal() == expected
    assert_illegal(game, "castle a2", "a2")  # next to a1
    assert_illegal(game, "castle c1", "c1", "d1")  # next to d1 (a1, 2 away, is not too close)
    game.play("castle c3")  # 2 from b4, its nearest block
    assert game.position()["heights"]["c3"] == 1


def test_master_castle_on_a_knight_is_refused_by_name():
    """A position read from JSON may hold a knight in the castle stage: a block there is
    refused with the knight named, not a crash."""
    position = Game.new(players=2, names=["a", "b"], variant="master", seed=1).position()
    position["heights"] = {"a1": 1}
    position["supply"] -= 1
    position["knights"] = {"a": ["h8"], "b": []}
    game = Game.from_position(position)
    assert "castle h8" not in game.legal()
    assert_illegal(game, "castle h8", "h8", "knight")


def test_master_setup_cycles_seats_then_knights_from_seat_one():
    """§2.1: players place the 8 blocks in seat order, cycling; knight placement then starts from seat 1."""
    game = Game.new(players=3, names=["a", "b", "c"], variant="master", seed=1)
    squares = ["a1", "d1", "g1", "a4", "d4", "g4", "a7", "d7"]
    movers = []
    for sq in squares:
        movers.append(game.to_move)
        game.play(f"castle {sq}")
    assert movers == ["a", "b", "c", "a", "b", "c", "a", "b"]
    p = game.position()
    assert p["heights"] == {sq: 1 for sq in squares}
    assert p["stage"] == "place"
    assert p["to_move"] == "a"
    assert game.legal() == sorted(f"place {sq}" for sq in squares)
    game.play("place a1; place d1; place g1")  # a, b, c in turn
    assert game.stage == "king"
    assert game.to_move == "c"


def test_master_turn_order_by_score():
    """§8: from the second round on, each round starts with the player with the most points, then seat order."""
    # 3 players, round 1 started by a; c ends the round. b leads with 3.
    game = (
        Pos(["a", "b", "c"], variant="master")
        .hand("a", *ACTION_CARDS)
        .hand("b", *ACTION_CARDS)
        .hand("c", *ACTION_CARDS)
        .phase(1, 1)
        .starters("a", "a")
        .to_move("c")
        .stacks("a", [3, 3, 2])
        .stacks("b", [3, 3, 2])
        .stacks("c", [3, 3, 2, 2])
        .scores(a=0, b=3, c=1)
        .supply(40)
        .game()
    )
    game.play("end")
    p = game.position()
    assert p["round"] == 2
    assert p["round_starter"] == "b"
    assert p["to_move"] == "b"
    game.play("end")
    assert game.to_move == "c"
    game.play("score 3")  # c: 1 -> 2 -> 3 taken -> 4 -> 5 : now c leads
    game.play("end")
    assert game.to_move == "a"
    game.play("end")
    p = game.position()
    assert p["round"] == 3
    assert p["to_move"] == "c"
    assert p["round_starter"] == "c"


def test_master_turn_order_all_zero_keeps_previous_starter():
    """§8: while every score is 0 the player who started the previous round starts again."""
    game = (
        Pos(["a", "b", "c"], variant="master")
        .hand("a", *ACTION_CARDS)
        .hand("b", *ACTION_CARDS)
        .hand("c", *ACTION_CARDS)
        .phase(1, 2)
        .starters("a", "b")
        .to_move("a")  # round 2 order: b, c, a
        .stacks("a", [3, 3, 2])
        .stacks("b", [3, 2])
        .stacks("c", [3, 2])
        .supply(40)
        .game()
    )
    game.play("end")
    p = game.position()
    assert p["round"] == 3
    assert p["to_move"] == "b"
    assert p["round_starter"] == "b"


def test_master_next_phase_starts_with_leader_not_king_mover():
    """§8: turn order by score replaces 'the king mover starts the next phase'."""
    # b's knight on c3 (castle c3,c4 area 2, level 1) scores 2; a scores nothing -> a moves the king,
    # but phase 2 starts with b, the leader.
    result = finish(
        master_end(1, "row").h(c3=1, c4=1, h1=1).king("h1").knights("a", "a8").knights("b", "c3")
    )
    game = result["game"]
    assert game.scores == {"a": 0, "b": 2}
    assert game.stage == "king"
    assert game.to_move == "a"
    game.play("king pass")
    p = game.position()
    assert p["phase"] == 2 and p["round"] == 1
    assert p["to_move"] == "b"
    assert p["round_starter"] == "b"


def test_master_levels_card():
    """§8 levels: after phase 3, all your knights on different levels -> 40."""
    # a: a8 (0) and c3 (1 on c3,c4 area 2): castles 2 + 40. b: f8, h8 both level 0 -> nothing.
    r = finish(
        master_end(3, "levels")
        .h(c3=1, c4=1, h1=1)
        .king("h1")
        .knights("a", "a8", "c3")
        .knights("b", "f8", "h8")
    )
    assert master_points(r) == {"a": 40, "b": 0}
    assert r["game"].scores == {"a": 42, "b": 0}
    assert r["game"].winners == ["a"]


def test_master_same_level_card_needs_two_knights():
    """§8 same-level: all your knights on the same level -> 50; 'all your knights' needs at least 2."""
    # a: a8, b8 (both 0) -> 50. b: only one knight (c3, level 1) -> castles 2, no master points.
    r = finish(
        master_end(3, "same-level")
        .h(c3=1, c4=1, h1=1)
        .king("h1")
        .knights("a", "a8", "b8")
        .knights("b", "c3")
    )
    assert master_points(r) == {"a": 50, "b": 0}
    assert r["game"].scores == {"a": 50, "b": 2}


def test_master_row_card():
    """§8 row: all your knights on one rank or one file (not necessarily adjacent) -> 50."""
    r = finish(
        master_end(3, "row")
        .h(h8=1)
        .king("h8")
        .knights("a", "a2", "e2", "h2")
        .knights("b", "b5", "c6")
    )
    assert master_points(r) == {"a": 50, "b": 0}


def test_master_square_card_only_once():
    """§8 square: four knights on the corners of a board-aligned square -> 50 (only once)."""
    # a: b2 b5 e2 e5 (side 3) and b8: still 50 only. b: a1 a2 b1 -- three corners.
    r = finish(
        master_end(3, "square")
        .h(h8=1)
        .king("h8")
        .knights("a", "b2", "b5", "e2", "e5", "b8")
        .knights("b", "a1", "a2", "b1")
    )
    assert master_points(r) == {"a": 50, "b": 0}
    # two squares (b2 b3 c2 c3 and c2 c3 d2 d3 would need 6): a 2x3 block holds two -> still 50
    r2 = finish(
        master_end(3, "square")
        .h(h8=1)
        .king("h8")
        .knights("a", "b2", "b3", "c2", "c3", "d2", "d3")
        .knights("b", "a8")
    )
    assert master_points(r2)["a"] == 50


def test_master_border_card_phase_three():
    """§8 border: 10 per knight on an edge square after phase 3; most such knights (no tie) +10."""
    # a: a1, a5 on edges (20) + most (10) = 30; c3 on castle c3,c4 scores 2 castle points.
    # b: h8 on the edge: 10.  a 0->2 (castles), then master a 2->32, b 0->10.
    r = finish(
        master_end(3, "border")
        .h(c3=1, c4=1, e5=1)
        .king("e5")
        .knights("a", "a1", "a5", "c3")
        .knights("b", "h8", "d4")
    )
    assert master_points(r) == {"a": 30, "b": 10}
    assert r["game"].scores == {"a": 32, "b": 10}


def test_master_border_card_phase_one_tie_no_bonus():
    """§8 border: 2 per edge knight after phase 1; a tie for most gives no extra."""
    # a: a1 (edge) + c3 (castle, 2 points); b: h8 (edge). Each 2, tie -> no +2.
    # a castles 0->2; master a 2->4, b 0->2.
    r = finish(
        master_end(1, "border")
        .h(c3=1, c4=1, e5=1)
        .king("e5")
        .knights("a", "a1", "c3")
        .knights("b", "h8", "d4")
    )
    assert master_points(r) == {"a": 2, "b": 2}
    assert r["game"].scores == {"a": 4, "b": 2}


def test_master_castles_card_exactly_four_after_phase_one():
    """§8 castles: knights on exactly 4 different castles (level >= 1) after phase 1 -> 5."""
    # a on four single-block castles a1 c1 e1 g1 (1 point each) -> castles 4, master 5.
    # b on three (a3 c3 e3) -> castles 3, nothing more. King on h8 with nobody there.
    r = finish(
        master_end(1, "castles")
        .h(a1=1, c1=1, e1=1, g1=1, a3=1, c3=1, e3=1, h8=1)
        .king("h8")
        .knights("a", "a1", "c1", "e1", "g1")
        .knights("b", "a3", "c3", "e3")
    )
    assert master_points(r) == {"a": 5, "b": 0}
    assert r["game"].scores == {"a": 9, "b": 3}


def test_master_castles_card_five_after_phase_one_is_not_exactly_four():
    """§8 castles: EXACTLY 4 castles after phase 1 (seed rulebook: 'exactly 4 castles')."""
    r = finish(
        master_end(1, "castles")
        .h(a1=1, c1=1, e1=1, g1=1, a3=1, h8=1)
        .king("h8")
        .knights("a", "a1", "c1", "e1", "g1", "a3")
        .knights("b", "f6")
    )
    assert master_points(r)["a"] == 0


def test_master_castles_card_level_zero_does_not_count():
    """§8: knights on level 0 count for every condition except castles."""
    r = finish(
        master_end(1, "castles")
        .h(a1=1, c1=1, e1=1, h8=1)
        .king("h8")
        .knights("a", "a1", "c1", "e1", "g3")  # three castles + a bare square
        .knights("b", "f6")
    )
    assert master_points(r)["a"] == 0


def test_master_diagonal_card():
    """§8 diagonal: 10 per knight on a1-h8 or a8-h1 after phase 3; most (no tie) +10."""
    # a: a1, d4 (a1-h8) and h1 (a8-h1) -> 30 + 10. b: c3 (a1-h8), e2 (no) -> 10.
    r = finish(
        master_end(3, "diagonal")
        .h(h4=1)
        .king("h4")
        .knights("a", "a1", "d4", "h1")
        .knights("b", "c3", "e2")
    )
    assert master_points(r) == {"a": 40, "b": 10}
    assert r["game"].scores == {"a": 40, "b": 10}


def test_master_neighbors_card():
    """§8 neighbors: all your knights form one orthogonally connected group -> 40."""
    r = finish(
        master_end(3, "neighbors")
        .h(h8=1)
        .king("h8")
        .knights("a", "c3", "c4", "d4")
        .knights("b", "f6", "g7")  # diagonal only: not connected
    )
    assert master_points(r) == {"a": 40, "b": 0}


@pytest.mark.parametrize("card", ["levels", "same-level", "row", "square", "neighbors"])
def test_phase_three_only_cards_score_nothing_after_phase_one(card):
    """§8: levels, same-level, row, square, neighbors are scored after phase 3 only."""
    r = finish(
        master_end(1, card)
        .h(h8=1)
        .king("h8")
        .knights("a", "b2", "b3", "c2", "c3")  # a square, a group, same level
        .knights("b", "f6")
    )
    assert master_points(r) == {"a": 0, "b": 0}
