"""Further legality edges: one door = one castle, scoring order, moveblock 'afterwards', draws."""

from __future__ import annotations

import pytest
from rules_helpers import ACTION_CARDS, Pos, assert_illegal

from engine import NotationError, castles


def test_one_door_passage_crosses_one_castle():
    """§4 doors: 1 AP enters one castle C and leaves C; a second castle needs a second passage."""
    # C1 = c4:1, C2 = f4:1; a's knight on d4 (bare, next to C1 only).
    game = Pos().h(c4=1, f4=1).knights("a", "d4").game()
    assert_illegal(game, "move d4 g4", "g4")  # g4 is beside C2 only
    game.play("move d4 b4")  # over C1
    assert game.position()["knights"]["a"] == ["b4"]
    assert game.ap == 4


def test_door_passage_between_two_adjacent_castles_choose_either():
    """§4 doors: a knight beside two castles may enter either of them."""
    # C1 = c4:1 (west of d4), C2 = e4:1 (east); exits b4 (C1) and f4 (C2) both fine.
    for target in ("b4", "f4"):
        game = Pos().h(c4=1, e4=1).knights("a", "d4").game()
        game.play(f"move d4 {target}")
        assert game.position()["knights"]["a"] == [target]


def test_door_passage_from_a_castle_never_ends_higher():
    """§4 doors: from level L the exit is at most L high, even beside a taller square."""
    # C = b2:1 c2:3 d2:2 e2:1; a's knight on b2 (level 1) enters at c2 (3 > 1).
    game = Pos().h(b2=1, c2=3, d2=2, e2=1).knights("a", "b2").game()
    assert "move b2 d2" not in game.legal()
    assert_illegal(game, "move b2 d2", "d2")  # d2 is level 2 > 1, though c2 (3) is taller
    game.play("move b2 e2")  # level 1 beside d2 (2)
    assert game.position()["knights"]["a"] == ["e2"]


def test_door_passage_at_the_board_edge():
    """§4 doors: the exits are orthogonal neighbours of the castle, never squares on the
    far side of the board (a8's neighbours are a7 and b8 only)."""
    game = Pos().h(a8=1).knights("a", "a7").game()
    moves = sorted(m for m in game.legal() if m.startswith("move a7 "))
    assert moves == ["move a7 a6", "move a7 a8", "move a7 b7", "move a7 b8"]
    assert_illegal(game, "move a7 b1", "b1")
    game.play("move a7 b8")  # through the door of a8
    assert game.position()["knights"]["a"] == ["b8"]


def test_castle_points_are_one_move_passing_over_others():
    """§7.1: a player's castle points are one move of the marker; only where it stops matters."""
    # a scores 5 (castle c3..c7 area 5, level 1) from 0 past b on 3: lands on 5, not 6.
    game = (
        Pos()
        .phase(1, 4)
        .starters("a")
        .to_move("b")
        .stacks("a", [])
        .stacks("b", [3])
        .supply(40)
        .h(c3=1, c4=1, c5=1, c6=1, c7=1, h1=1)
        .king("h1")
        .knights("a", "c3")
        .scores(b=3)
        .game()
    )
    game.play("end")
    assert game.scores == {"a": 5, "b": 3}


def test_phase_scoring_order_starts_with_phase_starter():
    """§7.1: player by player in seat order from the phase's starting player (leap-frog depends on it)."""
    # b started the phase, a takes the last turn. Both score 2 from 0: b first lands on 2, a on 3.
    game = (
        Pos()
        .phase(1, 4)
        .starters("b")
        .to_move("a")
        .stacks("a", [3])
        .stacks("b", [])
        .supply(40)
        .h(c3=1, c4=1, f6=1, f7=1, h1=1)
        .king("h1")
        .knights("a", "c3")
        .knights("b", "f6")
        .game()
    )
    events = game.play("end")
    assert events[-1]["scores"] == {"a": 3, "b": 2}
    assert game.to_move == "b"  # lowest score moves the king


def test_moveblock_destination_judged_after_the_block_leaves():
    """§6 moveblock: 'afterwards' -- the source square no longer counts when judging the destination."""
    # castles c3, e3 (single blocks) + h8 h6 f8 d8 b8 = 7. c3 -> d3: c3 is gone, d3 extends e3: 6 castles.
    board = dict(c3=1, e3=1, h8=1, h6=1, f8=1, d8=1, b8=1)
    game = Pos().hand("a", "moveblock").h(**board).game()
    game.play("play moveblock c3 d3")
    p = game.position()
    assert "c3" not in p["heights"] and p["heights"]["d3"] == 1
    assert len(castles(p["heights"])) == 6


def test_king_pass_only_when_no_empty_castle_square():
    """§7.5: the king mover need not move it, and cannot when no castle square is empty."""
    game = (
        Pos()
        .stage("king")
        .phase(1, 4)
        .to_move("a")
        .h(c3=1, c4=1)
        .king("c4")
        .knights("a", "c3")
        .stacks("a", [])
        .stacks("b", [])
        .supply(60)
        .game()
    )
    assert game.legal() == ["king pass"]


def test_personal_draw_limit_and_kept_card_is_drawn_this_turn():
    """§4: at most 2 draws per turn in personal decks too; the kept card was drawn this turn."""
    deck = ["jump", "ap6", "extra", "ap7", "vault", "lift"]
    game = Pos(variant="personal").deck(*deck, owner="a").game()
    game.play("draw; keep ap6 top")
    assert "play ap6" not in game.legal()
    assert_illegal(game, "play ap6")
    game.play("draw; keep jump bottom")
    assert_illegal(game, "draw")
    assert game.ap == 3


def test_undo_never_across_a_personal_draw():
    """§9: never back across a card draw (personal draw + keep)."""
    game = Pos(variant="personal").knights("a", "a1").deck("jump", "ap6", "ap7", owner="a").game()
    game.play("move a1 a2; draw; keep ap7 top")
    p = game.position()
    assert game.can_undo is False
    assert game.undo() is False
    assert game.position() == p


def test_undo_then_a_different_action():
    """§9: after taking an action back the player may do something else."""
    game = Pos().knights("a", "a1").game()
    game.play("move a1 a2")
    game.undo()
    game.play("move a1 b1")
    assert game.position()["knights"]["a"] == ["b1"]
    assert game.ap == 4


@pytest.mark.parametrize("card", ["row", "neighbors", "same-level", "levels"])
def test_all_your_knights_needs_two(card):
    """§8: 'all your knights' needs at least 2 of your knights on the board."""
    game = (
        Pos(variant="master")
        .hand("a", *ACTION_CARDS)
        .hand("b", *ACTION_CARDS)
        .phase(3, 4)
        .starters("a")
        .to_move("b")
        .stacks("a", [])
        .stacks("b", [3])
        .supply(40)
        .master(card)
        .h(h8=1)
        .king("h8")
        .knights("a", "c3")
        .game()
    )
    events = game.play("end")
    scored = [e for e in events if e["type"] == "phase_scored"][0]
    assert scored["points"]["a"]["master"] == 0
    assert scored["points"]["b"]["master"] == 0


def test_lift_under_a_knight_higher_up_a_castle():
    """§6 lift: the knight can be on any level; the castle's height stays <= its area."""
    # castle c3:2 c4:1 c5:1 (area 3): a on c3 (level 2) -> 3 <= 3 fine; again -> 4 > 3.
    game = Pos().hand("a", "lift").h(c3=2, c4=1, c5=1).knights("a", "c3").game()
    game.play("play lift c3")
    assert game.position()["heights"]["c3"] == 3
    game2 = Pos().hand("a", "lift").h(c3=3, c4=1, c5=1).knights("a", "c3").game()
    assert_illegal(game2, "play lift c3", "c3")


def test_step_uses_the_level_after_earlier_actions():
    """§4: every action is judged on the position it is played in (a lift raises the knight)."""
    # a on c3 (1) of c3,c4,c5,d3(3)? keep it simple: c3:1 c4:1 c5:1 d3:3; after lift c3 is 2,
    # so d3 (3) is one up.
    game = Pos().hand("a", "lift").h(c3=1, c4=1, c5=1, d3=3).knights("a", "c3").game()
    assert_illegal(game, "move c3 d3", "d3")
    game.play("play lift c3; move c3 d3")
    assert game.position()["knights"]["a"] == ["d3"]


def test_king_bonus_fifteen_after_phase_three():
    """§7.2: 15 after phase 3 for a knight on exactly level 3 of the king's castle."""
    # K = c3:3 c4:2 d3:2 d4:1 (area 4), king d4. a on c3 (3): 12 + 15. b on c4 (2): 8, no bonus.
    # a 0->12, b 0->8, a 12->27.
    game = (
        Pos()
        .phase(3, 4)
        .starters("a")
        .to_move("b")
        .stacks("a", [])
        .stacks("b", [3])
        .supply(40)
        .h(c3=3, c4=2, d3=2, d4=1)
        .king("d4")
        .knights("a", "c3")
        .knights("b", "c4")
        .game()
    )
    events = game.play("end")
    scored = events[1]
    assert scored["phase"] == 3
    assert scored["points"]["a"] == {"castles": 12, "king": 15, "master": 0}
    assert scored["points"]["b"] == {"castles": 8, "king": 0, "master": 0}
    assert events[2] == {"type": "game_over", "scores": {"a": 27, "b": 8}, "winners": ["a"]}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 1},
        {"players": 5},
        {"variant": "chess"},
        {"names": ["ann", "ann"]},
        {"names": ["solo"]},
        {"master_card": "joker", "variant": "master"},
        {"players": 2, "names": ["ann", "bob", "cy"]},
    ],
)
def test_game_new_rejects_bad_arguments_with_a_message(kwargs):
    """Brief: bad input gets a clear, specific message (NotationError/ValueError), never a crash."""
    from engine import Game

    with pytest.raises(ValueError) as info:
        Game.new(**kwargs)
    assert str(info.value).strip()


def test_from_position_rejects_a_viewer_position():
    """NOTATION: 'hidden' is not a card, so a viewer's position is not a full position."""
    from engine import Game

    view = Game.new(players=2).position(viewer="red")
    with pytest.raises(NotationError):
        Game.from_position(view)


def test_positions_and_hands_are_copies():
    """API: position(), hand() and scores are snapshots; mutating them (or the dict read) changes nothing."""
    from engine import Game

    game = Pos().h(c3=1).knights("a", "c3").hand("a", "jump").deck("ap6").game()
    before = game.position()
    p = game.position()
    p["heights"]["c3"] = 4
    p["knights"]["a"].append("h8")
    p["turn"]["ap"] = 99
    p["decks"]["common"].clear()
    game.hand("a").append("vault")
    game.scores["a"] = 50
    assert game.position() == before
    d = game.position()
    other = Game.from_position(d)
    d["heights"]["c3"] = 3
    d["hands"]["a"].append("lift")
    assert other.position() == before
