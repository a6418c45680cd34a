"""The engine author's quick checks; the full rules suite lives beside this file."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import CARDS, Game, IllegalAction, NotationError, castles
from engine.board import SQUARE_NAMES

ROOT = Path(__file__).resolve().parents[2]
SETUP4 = "place c3; place d1; place f3; place h4; king a5"


def pos(**fields):
    """A position with the given fields over the defaults (2 players, stage play)."""
    d = {"format": "torres-position/1", "players": ["ann", "bob"]}
    d.update(fields)
    return Game.from_position(d)


def candidates() -> list[str]:
    """Every syntactically valid single action worth trying (a superset of legal())."""
    out = ["end", "draw", "score", "king pass"] + [f"stack {k}" for k in range(4)]
    for s in SQUARE_NAMES:
        out += [f"{v} {s}" for v in ("build", "knight", "castle", "place", "king")]
        out.append(f"play extra {s}")
        out += [f"play lift {s} {src}" for src in ("turn", "1", "2", "3")]
    out += [f"keep {c} {w}" for c in CARDS for w in ("top", "bottom")]
    out += ["play ap6", "play ap7"]
    for a in SQUARE_NAMES:
        for b in SQUARE_NAMES:
            out.append(f"move {a} {b}")
            out += [
                f"play {c} {a} {b}"
                for c in ("jump", "diagonal", "vault", "doorclimb", "relocate", "moveblock")
            ]
    return out


CANDIDATES = candidates()


def assert_legal_exact(game: Game) -> None:
    """legal() lists exactly the actions play() accepts, and failures change nothing."""
    legal = game.legal()
    assert legal == sorted(set(legal))
    before = game.position()
    accepted = []
    for text in CANDIDATES:
        g = game.copy()
        try:
            g.play(text)
        except IllegalAction as e:
            assert g.position() == before, text
            assert e.reason and "\n" not in e.reason
            continue
        accepted.append(text)
    assert sorted(accepted) == legal


@pytest.mark.parametrize("variant", ["common", "personal", "master"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_legal_is_exact_and_roundtrips(variant: str, players: int) -> None:
    """Random games: legal() exact at sampled positions, JSON round trip, 92 blocks, an end."""
    rng = random.Random(players)
    game = Game.new(players, variant=variant, seed=players)
    i = 0
    while not game.over:
        if i % 90 == 30:
            assert_legal_exact(game)
        if i % 13 == 0:
            d = json.loads(json.dumps(game.position()))
            again = Game.from_position(d)
            assert again.position() == d
            assert again.legal() == game.legal()
        moves = game.legal()
        game.play(rng.choice(moves))
        p = game.position()
        in_stacks = sum(sum(s) for s in p["stacks"].values())
        turn_stack = (p["turn"] or {}).get("stack") or 0
        assert sum(p["heights"].values()) + p["supply"] + in_stacks + turn_stack == 92
        for c in castles(p["heights"]):
            assert max(p["heights"][s] for s in c) <= len(c)
        i += 1
    assert game.to_move is None and game.legal() == [] and game.winners


def test_new_game_shapes() -> None:
    """new() gives the documented first stage, hidden decks and a seeded master card."""
    g = Game.new(3, seed=5)
    assert (g.stage, g.to_move, g.players) == ("place", "red", ["red", "blue", "green"])
    assert len(g.position()["decks"]["common"]) == 40
    m = Game.new(2, variant="master", seed=5)
    assert m.stage == "castles" and m.position()["master_card"] is not None
    assert m.position() == Game.new(2, variant="master", seed=5).position()
    v = Game.new(2, variant="personal", seed=1).position(viewer="red")
    assert v["seed"] is None and set(v["decks"]["red"]) == {"hidden"}


def test_setup_then_stacks_dealt() -> None:
    """Knights in seat order, the king by the last placer, then the phase 1 stacks."""
    g = Game.new(4)
    g.play("place c3; place d1; place f3; place h4")
    assert g.stage == "king" and g.to_move == "yellow"
    with pytest.raises(IllegalAction):
        g.play("king c3")
    g.play("king a5")
    assert g.stage == "play" and g.to_move == "red" and g.ap == 5
    assert g.position()["stacks"]["red"] == [2, 2, 2, 2]
    assert g.position()["supply"] == 92 - 8 - 32


def test_end_of_turn_redistribution_and_default_stack() -> None:
    """Ending without building takes the tallest stack and spreads it onto the lowest ones."""
    g = pos(heights={"c3": 1}, knights={"ann": ["c3"]}, stacks={"ann": [2, 2, 1], "bob": [2]})
    g.play("end")
    assert g.position()["stacks"]["ann"] == [3, 2]
    g = pos(heights={"c3": 1}, knights={"ann": ["c3"]}, stacks={"ann": [3, 3], "bob": [2]})
    supply = g.position()["supply"]
    g.play("stack 3; end")
    assert g.position()["stacks"]["ann"] == [3] and g.position()["supply"] == supply + 3


def test_leapfrog() -> None:
    """A marker landing on an occupied space goes on to the next free one."""
    g = pos(scores={"ann": 3, "bob": 4}, knights={"ann": ["a1"]})
    g.play("score")
    assert g.scores == {"ann": 5, "bob": 4}


def test_undo_and_draw_barrier() -> None:
    """Undo walks back within a turn but never across a draw."""
    g = Game.new(2)
    g.play("place c3; place f6; king e8")
    start = g.position()
    g.play("move c3 c4; build c2")
    assert g.undo() and g.undo() and not g.undo()
    assert g.position() == start
    g.play("move c3 c4; draw")
    assert not g.can_undo and not g.undo()


def test_atomic_and_parse_first() -> None:
    """A malformed clause after an illegal one is reported as malformed; nothing changes."""
    g = Game.new(2)
    before = g.position()
    with pytest.raises(NotationError):
        g.play("place a1; nonsense")
    with pytest.raises(IllegalAction) as e:
        g.play("place c3; place a1")
    assert e.value.action == "place a1"
    assert g.position() == before


def test_lift_canonical_form_in_errors() -> None:
    """`play lift A` is reported with the stack it would use."""
    g = pos(heights={"c3": 1}, knights={"ann": ["c3"]}, stacks={"ann": [2, 3], "bob": [2]})
    with pytest.raises(IllegalAction) as e:
        g.play("play lift c3")
    assert e.value.action == "play lift c3 3"


def test_impossible_positions_are_one_sentence() -> None:
    """Structural errors give NotationError with a single line."""
    bad = [
        {"format": "torres-position/1"},
        {"format": "torres-position/1", "players": ["a"]},
        {"format": "torres-position/1", "players": ["a", "b"], "knights": {"a": ["z9"]}},
        {
            "format": "torres-position/1",
            "players": ["a", "b"],
            "knights": {"a": ["c3"], "b": ["c3"]},
        },
        {"format": "torres-position/1", "players": ["a", "b"], "phase": 4},
        {"format": "torres-position/1", "players": ["a", "b"], "to_move": "c"},
        {"format": "torres-position/1", "players": ["a", "b"], "hands": {"a": ["joker"]}},
        {"format": "torres-position/1", "players": ["a", "b"], "round": True},
        [],
    ]
    for d in bad:
        with pytest.raises(NotationError) as e:
            Game.from_position(d)
        assert "\n" not in str(e.value)


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_exit_codes() -> None:
    """0 success, 2 illegal with the canonical action, 1 malformed, never a traceback."""
    ok = run_cli("legal", SETUP4)
    assert ok.returncode == 0 and "end" in ok.stdout.split("\n")
    illegal = run_cli("play", SETUP4 + "; build e4")
    assert illegal.returncode == 2 and illegal.stdout == ""
    assert illegal.stderr.startswith("illegal: build e4: ") and illegal.stderr.count("\n") == 1
    for args, stdin in [
        (("play", "fly away"), None),
        (("play", "--position", "-"), '{"format": "torres-position/1", "players": '),
        (("new", "--players", "7"), None),
        (("new", "--bogus"), None),
        (("legal", "--position", "/nonexistent/file.json"), None),
    ]:
        r = run_cli(*args, stdin=stdin)
        assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1


def test_ruling_lift_turn_needs_a_chosen_stack() -> None:
    """docs/rules.md 3: `play lift A turn` needs the turn's stack; `play lift A` takes the tallest."""
    g = pos(
        heights={"c3": 1, "c4": 1},
        knights={"ann": ["c3"]},
        hands={"ann": ["lift"]},
        stacks={"ann": [2, 3], "bob": [2]},
    )
    assert "play lift c3 turn" not in g.legal()
    with pytest.raises(IllegalAction):
        g.play("play lift c3 turn")
    g.play("play lift c3")
    p = g.position()
    assert p["stacks"]["ann"] == [2, 2] and p["heights"]["c3"] == 2 and p["turn"]["stack"] is None


def test_ruling_personal_draw_of_the_last_card() -> None:
    """docs/rules.md 4: one card left: both keep forms are listed and act the same."""
    g = pos(variant="personal", knights={"ann": ["a1"]}, decks={"ann": ["vault"], "bob": []})
    g.play("draw")
    assert g.stage == "draw-keep" and g.legal() == ["keep vault bottom", "keep vault top"]
    g.play("keep vault top")
    assert g.hand("ann") == ["vault"] and "play vault" not in " ".join(g.legal())


def test_ruling_default_stacks_by_stage() -> None:
    """docs/rules.md 18: the allotment is filled in only for a turn in progress."""
    assert pos().position()["stacks"] == {"ann": [3, 3, 3, 3], "bob": [3, 3, 3, 3]}
    assert pos(stage="place").position()["stacks"] == {"ann": [], "bob": []}


def test_ruling_master_next_phase_starter_is_the_leader() -> None:
    """docs/rules.md 12: lowest scorer moves the king, the leader starts the next phase."""
    g = pos(
        variant="master",
        round=4,
        to_move="bob",
        heights={"c3": 1, "c4": 1},
        knights={"ann": ["c3"], "bob": ["a1"]},
        king="c4",
        master_card="border",
        scores={"ann": 1, "bob": 0},
        stacks={"ann": [], "bob": [3]},
    )
    events = g.play("end")
    assert [e["type"] for e in events] == ["turn_end", "phase_scored"]
    # ann: 1 + 2 (area 2 x level 1) + 5 (king's bonus) = 8; bob: 2 + 2 for the a1 edge knight.
    assert g.scores == {"ann": 8, "bob": 4}
    assert g.stage == "king" and g.to_move == "bob" and g.phase == 1
    g.play("king pass")
    assert (g.phase, g.round, g.to_move, g.stage) == (2, 1, "ann", "play")
    assert g.position()["phase_starter"] == "ann"
