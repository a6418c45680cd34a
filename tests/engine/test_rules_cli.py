"""The engine's command line (NOTATION.md "Command line"), driven as a subprocess from the repo root."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from rules_helpers import ACTION_CARDS, FIELDS, REPO, START_SQUARES, Pos, cli_json, run_cli

from engine import Game


def write(tmp_path, pos: dict | str | bytes, name: str = "pos.json") -> str:
    path = tmp_path / name
    if isinstance(pos, dict):
        path.write_text(json.dumps(pos))
    elif isinstance(pos, str):
        path.write_text(pos)
    else:
        path.write_bytes(pos)
    return str(path)


def assert_clean_failure(proc, code: int) -> str:
    """Exit ``code``, nothing on stdout, one line on stderr, never a traceback."""
    err = proc.stderr.decode("utf-8", errors="replace")
    assert proc.returncode == code, (proc.returncode, err)
    assert proc.stdout == b""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# ``new`` ---------------------------------------------------------------------


def test_new_defaults():
    """NOTATION new: 4 players red, blue, green, yellow; common; seed 0; stage place."""
    pos = cli_json(run_cli("new"))
    assert pos["format"] == "torres-position/1"
    assert pos["players"] == ["red", "blue", "green", "yellow"]
    assert pos["variant"] == "common"
    assert pos["seed"] == 0
    assert pos["stage"] == "place"
    assert pos["to_move"] == "red"
    assert pos["heights"] == {sq: 1 for sq in START_SQUARES}
    assert set(FIELDS) <= set(pos)


def test_new_options():
    """NOTATION new: --players, --names, --variant, --seed."""
    pos = cli_json(run_cli("new", "--players", "2"))
    assert len(pos["players"]) == 2
    pos = cli_json(run_cli("new", "--names", "ann,bob,cy"))
    assert pos["players"] == ["ann", "bob", "cy"]
    pos = cli_json(run_cli("new", "--variant", "master", "--seed", "9"))
    assert pos["stage"] == "castles"
    assert pos["master_card"] is not None
    assert pos["seed"] == 9
    assert cli_json(run_cli("new", "--variant", "master", "--seed", "9")) == pos
    pos = cli_json(run_cli("new", "--variant", "personal", "--players", "3"))
    assert set(pos["decks"]) == set(pos["players"])


def test_new_matches_python_interface():
    """NOTATION: the CLI and Game.new describe the same game."""
    pos = cli_json(run_cli("new", "--players", "3", "--seed", "21"))
    assert pos == Game.new(players=3, names=["red", "blue", "green"], seed=21).position()


def test_new_viewer_hides_deck_and_seed():
    """NOTATION: new --viewer prints that player's view: deck hidden, seed null."""
    pos = cli_json(run_cli("new", "--viewer", "blue", "--seed", "3"))
    assert pos["decks"]["common"] == ["hidden"] * 40
    assert pos["seed"] is None
    master = cli_json(run_cli("new", "--variant", "master", "--viewer", "red"))
    assert sorted(master["hands"]["red"]) == sorted(ACTION_CARDS)
    assert master["hands"]["blue"] == ["hidden"] * 10


@pytest.mark.parametrize(
    "args",
    [
        ["new", "--players", "7"],
        ["new", "--players", "1"],
        ["new", "--players", "two"],
        ["new", "--variant", "chess"],
        ["new", "--seed", "x"],
        ["new", "--names", "ann,ann"],
        ["new", "--viewer", "nobody"],
        ["frobnicate"],
        [],
    ],
)
def test_new_bad_options_are_malformed(args):
    """NOTATION exit 1: malformed input gets one line on stderr, never a traceback (2 means illegal)."""
    assert_clean_failure(run_cli(*args), 1)


# ``legal`` -------------------------------------------------------------------


def test_legal_default_game():
    """NOTATION legal: without --position, a new default game; sorted, one per line."""
    proc = run_cli("legal")
    assert proc.returncode == 0
    lines = proc.stdout.decode().splitlines()
    assert lines == sorted(f"place {sq}" for sq in START_SQUARES)


def test_legal_after_actions_and_from_stdin(tmp_path):
    """NOTATION legal: after applying ACTIONS; FILE may be '-' for standard input."""
    pos = cli_json(run_cli("new", "--players", "2"))
    proc = run_cli("legal", "--position", "-", "place c3\nplace f6", stdin=json.dumps(pos))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines() == [
        "king a5",
        "king c6",
        "king d1",
        "king e8",
        "king f3",
        "king h4",
    ]


def test_legal_output_is_canonical_and_sorted(tmp_path):
    """NOTATION canonical form: lower case, single spaces, one action per line, lift with K or turn."""
    path = write(tmp_path, Pos().h(c3=1, c4=1).knights("a", "c3").hand("a", "lift").build())
    proc = run_cli("legal", "--position", path)
    lines = proc.stdout.decode().splitlines()
    assert lines == sorted(lines)
    assert all(line == " ".join(line.lower().split()) for line in lines)
    assert "play lift c3 3" in lines
    assert "play lift c3" not in lines
    assert "score" in lines and not any(line.startswith("score ") for line in lines)


# ``play`` --------------------------------------------------------------------


def test_play_without_actions_fills_every_field(tmp_path):
    """NOTATION play with no ACTIONS: the position as read, with every field filled in."""
    path = write(tmp_path, {"format": "torres-position/1", "players": ["x", "y"]})
    pos = cli_json(run_cli("play", "--position", path))
    assert set(FIELDS) <= set(pos)
    assert pos["stage"] == "play"
    assert pos["phase"] == 1 and pos["round"] == 1
    assert pos["to_move"] == "x"
    assert pos["phase_starter"] == "x" and pos["round_starter"] == "x"
    assert pos["stacks"] == {"x": [3, 3, 3, 3], "y": [3, 3, 3, 3]}
    assert pos["scores"] == {"x": 0, "y": 0}
    assert pos["hands"] == {"x": [], "y": []}
    assert sorted(pos["decks"]["common"]) == sorted(ACTION_CARDS * 4)
    assert pos["supply"] == 92 - 24
    assert pos["turn"]["ap"] == 5 and pos["turn"]["stack"] is None
    assert pos["king"] is None and pos["master_card"] is None


def test_play_applies_actions_case_and_spaces_ignored(tmp_path):
    """NOTATION: case and extra spaces are ignored; clauses split by ';' or newlines."""
    path = write(tmp_path, Pos().knights("a", "a1").build())
    pos = cli_json(run_cli("play", "--position", path, "MOVE   A1 a2 ;\n  Score  2"))
    assert pos["knights"]["a"] == ["a2"]
    assert pos["scores"]["a"] == 2
    assert pos["turn"]["ap"] == 2


def test_play_output_reads_back_identically(tmp_path):
    """NOTATION: the position after any action, mid-turn included, reads back and continues the same."""
    path = write(tmp_path, Pos().h(c3=1, c4=1).knights("a", "c3").deck("jump", "ap6").build())
    mid = cli_json(run_cli("play", "--position", path, "move c3 d3; draw"))
    again = cli_json(run_cli("play", "--position", "-", stdin=json.dumps(mid)))
    assert again == mid
    a = cli_json(run_cli("play", "--position", path, "move c3 d3; draw; build d4; end"))
    b = cli_json(run_cli("play", "--position", "-", "build d4; end", stdin=json.dumps(mid)))
    assert a == b


def test_play_viewer_hides_other_hands(tmp_path):
    """NOTATION play --viewer: other hands and every deck replaced by "hidden", lengths kept."""
    pos = Pos().hand("a", "jump", "vault").hand("b", "ap6").deck("lift", "extra", "ap7").build()
    path = write(tmp_path, pos)
    view = cli_json(run_cli("play", "--position", path, "--viewer", "b"))
    assert view["hands"] == {"a": ["hidden", "hidden"], "b": ["ap6"]}
    assert view["decks"] == {"common": ["hidden"] * 3}
    assert view["seed"] is None
    out = json.dumps(view)
    for card in ("jump", "vault", "lift", "extra", "ap7"):
        assert card not in out


def test_illegal_action_exit_2(tmp_path):
    """NOTATION exit 2: stderr 'illegal: <action>: <reason>', stdout nothing."""
    path = write(tmp_path, Pos().h(c3=1, d3=3, d4=1).knights("a", "c3").build())
    line = assert_clean_failure(run_cli("play", "--position", path, "Move C3  D3"), 2)
    assert line.startswith("illegal: move c3 d3: ")
    reason = line[len("illegal: move c3 d3: ") :]
    assert reason.strip()
    assert "d3" in reason


def test_illegal_action_is_canonical_single_action(tmp_path):
    """NOTATION: <action> is the canonical SINGLE action (shorthands expanded)."""
    pos = Pos().h(c3=1, d3=1, e3=3, e4=1, e2=1).knights("a", "b3").build()
    path = write(tmp_path, pos)
    line = assert_clean_failure(run_cli("play", "--position", path, "move b3 c3 d3 e3"), 2)
    assert line.startswith("illegal: move d3 e3: ")
    path2 = write(tmp_path, Pos().h(c3=1).build(), "p2.json")
    line = assert_clean_failure(run_cli("play", "--position", path2, "build c4 h8"), 2)
    assert line.startswith("illegal: build h8: ")
    path3 = write(tmp_path, Pos().turn(ap=2).build(), "p3.json")
    line = assert_clean_failure(run_cli("play", "--position", path3, "score 3"), 2)
    assert line.startswith("illegal: score: ")
    path4 = write(tmp_path, Pos().h(c3=1).knights("a", "c3").hand("a", "lift").build(), "p4.json")
    line = assert_clean_failure(run_cli("play", "--position", path4, "PLAY LIFT c3"), 2)
    assert line.startswith("illegal: play lift c3 3: ")


def test_legal_with_illegal_actions_exit_2(tmp_path):
    """NOTATION: legal applies ACTIONS first, with the same exit codes."""
    path = write(tmp_path, Pos().knights("a", "a1").build())
    line = assert_clean_failure(run_cli("legal", "--position", path, "move a1 c1"), 2)
    assert line.startswith("illegal: move a1 c1: ")


def test_malformed_clause_wins_over_earlier_illegal_clause(tmp_path):
    """NOTATION: when a clause is malformed nothing is applied (exit 1), even if an earlier clause is illegal."""
    path = write(tmp_path, Pos().knights("a", "a1").build())
    assert_clean_failure(run_cli("play", "--position", path, "move a1 c1; flurb"), 1)
    assert_clean_failure(run_cli("play", "--position", path, "move a1 a2; score 0"), 1)
    assert_clean_failure(run_cli("play", "--position", path, "move a1 h8; move a1 z9"), 1)
    assert_clean_failure(run_cli("legal", "--position", path, "knight h8\nbuild"), 1)


@pytest.mark.parametrize(
    "actions",
    [
        "score 0",
        "move z9 a1",
        "move a1 a9",
        "build i1",
        "knight",
        "play teleport a1 a2",
        "play jump a1",
        "stack two",
        "score -1",
        "keep jump sideways",
        "move a1",
        "\x7f\x01garbage",
        "end end",
    ],
)
def test_malformed_actions_exit_1(tmp_path, actions):
    """NOTATION exit 1: unknown notation, squares off the board, score 0."""
    path = write(tmp_path, Pos().knights("a", "a1").hand("a", "jump").build())
    assert_clean_failure(run_cli("play", "--position", path, actions), 1)


@pytest.mark.parametrize(
    "content",
    [
        '{"format": "torres-position/1", "players": ["a", "b"',  # truncated JSON
        "",
        "[]",
        "null",
        '"torres"',
        '{"players": ["a", "b"]}',  # format missing
        '{"format": "torres-position/9", "players": ["a", "b"]}',
        '{"format": "torres-position/1"}',  # players missing
        '{"format": "torres-position/1", "players": ["a"]}',
        '{"format": "torres-position/1", "players": ["a", "b", "c", "d", "e"]}',
        '{"format": "torres-position/1", "players": ["a", "a"]}',
        '{"format": "torres-position/1", "players": "ab"}',
        '{"format": "torres-position/1", "players": ["a", "b"], "heights": {"z9": 1}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "heights": {"c3": "1"}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "heights": {"c3": -1}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "knights": {"a": ["c3"], "b": ["c3"]}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "knights": {"a": ["c3"]}, "king": "c3"}',
        '{"format": "torres-position/1", "players": ["a", "b"],'
        ' "knights": {"a": ["a1", "a2", "a3", "a4", "a5", "a6", "a7"]}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "knights": {"zed": ["a1"]}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "phase": 4}',
        '{"format": "torres-position/1", "players": ["a", "b"], "phase": 1, "round": 5}',
        '{"format": "torres-position/1", "players": ["a", "b", "c"], "phase": 2, "round": 4}',
        '{"format": "torres-position/1", "players": ["a", "b"], "to_move": "c"}',
        '{"format": "torres-position/1", "players": ["a", "b"], "hands": {"a": ["teleport"]}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "variant": "chess"}',
        '{"format": "torres-position/1", "players": ["a", "b"], "stage": "lunch"}',
        '{"format": "torres-position/1", "players": ["a", "b"], "master_card": "joker"}',
        '{"format": "torres-position/1", "players": ["a", "b"], "scores": {"a": "many"}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "turn": "soon"}',
        '{"format": "torres-position/1", "players": ["a", "b"], "king": "k9"}',
        '{"format": "torres-position/1", "players": ["a", "b"], "stacks": {"a": [3, "x"]}}',
        '{"format": "torres-position/1", "players": ["a", "b"], "supply": "lots"}',
        "[" * 100000,
    ],
)
def test_impossible_or_garbage_positions_exit_1(tmp_path, content):
    """NOTATION exit 1: bad JSON or an impossible position, one line on stderr, no traceback."""
    path = write(tmp_path, content)
    assert_clean_failure(run_cli("play", "--position", path), 1)
    assert_clean_failure(run_cli("legal", "--position", path), 1)


def test_binary_junk_position_exit_1(tmp_path):
    """NOTATION: the engine never prints a Python traceback for any input."""
    junk = os.urandom(512) + b"\xff\xfe\x00"
    path = write(tmp_path, junk)
    assert_clean_failure(run_cli("play", "--position", path), 1)
    assert_clean_failure(run_cli("play", "--position", "-", stdin=junk), 1)


def test_missing_position_file_exit_1(tmp_path):
    """NOTATION exit 1: malformed input (an unreadable file is not an illegal action)."""
    assert_clean_failure(run_cli("play", "--position", str(tmp_path / "nope.json")), 1)


def test_unknown_viewer_exit_1(tmp_path):
    """NOTATION: --viewer names a player."""
    path = write(tmp_path, Pos().build())
    assert_clean_failure(run_cli("play", "--position", path, "--viewer", "zed"), 1)


def test_action_when_game_over_is_not_a_traceback(tmp_path):
    """NOTATION: no traceback for any input, even actions after the game ended."""
    pos = Pos().stage("over").to_move(None).phase(3, 4).scores(a=3, b=5).build()
    path = write(tmp_path, pos)
    proc = run_cli("play", "--position", path, "end")
    assert proc.returncode in (1, 2)
    assert_clean_failure(proc, proc.returncode)
    legal = run_cli("legal", "--position", path)
    assert legal.returncode == 0
    assert legal.stdout == b""


def test_engine_runs_from_the_root_with_nothing_installed():
    """NOTATION: `python -m engine` runs from the repository root with no package installed, stdlib only."""
    # -S: no site-packages at all (so neither the editable install nor any third-party package)
    proc = subprocess.run(
        [sys.executable, "-S", "-m", "engine", "new", "--players", "2"],
        cwd=REPO,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert json.loads(proc.stdout)["players"] == ["red", "blue"]
    check = (
        "import importlib, pkgutil, sys, engine\n"
        "names = [m.name for m in pkgutil.walk_packages(engine.__path__, 'engine.')"
        " if not m.name.endswith('__main__')]\n"
        "for n in names: importlib.import_module(n)\n"
        "extra = {k.split('.')[0] for k in sys.modules} - set(sys.stdlib_module_names)"
        " - {'engine', '__main__'}\n"
        "print(sorted(extra))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", check], cwd=REPO, capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert proc.stdout.decode().strip() == "[]", (
        "engine imports something outside the standard library"
    )


@pytest.mark.parametrize("variant", ["common", "personal", "master"])
def test_same_seed_same_game_in_any_process(variant):
    """issue 2: deterministic -- the same seed and actions give the same game, whatever the hash seed."""
    game = Game.new(players=3, variant=variant, seed=41)
    start = game.position()
    rng = random.Random(5)
    actions = []
    while game.stage != "over" and len(actions) < 120:
        legal = game.legal()
        action = "end" if "end" in legal and rng.random() < 0.25 else rng.choice(legal)
        game.play(action)
        actions.append(action)
    script = "\n".join(actions)
    outs = []
    for hash_seed in ("0", "4242"):
        env = {"PYTHONHASHSEED": hash_seed}
        new = cli_json(
            run_cli("new", "--players", "3", "--variant", variant, "--seed", "41", env=env)
        )
        assert new == start
        outs.append(
            cli_json(run_cli("play", "--position", "-", script, stdin=json.dumps(start), env=env))
        )
    assert outs[0] == outs[1] == game.position()


# issue 33: long numbers, byte order marks, --help, the replay summary -------------


@pytest.mark.parametrize("where", ["seed", "supply", "scores"])
def test_a_number_of_thousands_of_digits_is_refused_clearly(tmp_path, where):
    """A 5,000-digit number in a position is malformed input (exit 1) that says so,
    not "internal error (ValueError …)"."""
    huge = "9" * 5000
    value = {"scores": f'{{"a": {huge}}}'}.get(where, huge)
    text = f'{{"format": "torres-position/1", "players": ["a", "b"], "{where}": {value}}}'
    path = write(tmp_path, text)
    for cmd in ("play", "legal"):
        line = assert_clean_failure(run_cli(cmd, "--position", path), 1)
        assert line == (
            "error: The position holds a number of 5000 digits; "
            "a number in a position has at most 4300 digits."
        )
    line = assert_clean_failure(run_cli("new", "--seed", huge), 1)
    assert line.startswith("error: --seed must be a whole number, not '999") and len(line) < 100


def test_a_long_seed_in_a_position_is_kept_exactly(tmp_path):
    """Seeds are as wide as the record format allows (128 bits and more): read and
    written back exactly, never as a float."""
    seed = 2**200 + 12345
    pos = cli_json(run_cli("new", "--players", "2", "--seed", str(seed)))
    assert pos["seed"] == seed and isinstance(pos["seed"], int)
    again = cli_json(run_cli("play", "--position", write(tmp_path, pos)))
    assert again == pos
    assert (
        f'"seed": {seed},' in run_cli("new", "--players", "2", "--seed", str(seed)).stdout.decode()
    )


def test_new_seed_random_is_a_fresh_128_bit_seed():
    """`new --seed random` draws from `secrets`; the default stays seed 0 (the contract)."""
    seeds = {
        cli_json(run_cli("new", "--players", "2", "--seed", "random"))["seed"] for _ in range(3)
    }
    assert len(seeds) == 3 and all(0 <= s < 2**128 for s in seeds)
    assert cli_json(run_cli("new", "--players", "2"))["seed"] == 0


def _record_text() -> str:
    from engine.record import format_record, record_from_log

    game = Game.new(players=2, seed=3)
    log = []
    while game.stage != "play":
        log.append(("play", game.legal()[0]))
        game.play(log[-1][1])
    for text in ("score 2", "end"):
        log.append(("play", text))
    record = record_from_log(variant="common", seed=3, players=game.players, log=log)
    return format_record(record)


def test_a_record_or_position_with_a_byte_order_mark_is_read(tmp_path):
    """Editors on Windows start UTF-8 files with a byte order mark: it is not part of
    the text, so the record (file or stdin) and a position are read as without it."""
    text = _record_text()
    plain = run_cli("replay", write(tmp_path, text, "plain.txt"))
    assert plain.returncode == 0
    with_bom = b"\xef\xbb\xbf" + text.encode()
    for proc in (
        run_cli("replay", write(tmp_path, with_bom, "bom.txt")),
        run_cli("replay", "-", stdin=with_bom),
    ):
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == plain.stdout
    pos = b"\xef\xbb\xbf" + json.dumps(Pos().build()).encode()
    assert cli_json(run_cli("play", "--position", write(tmp_path, pos, "pos.json")))


def test_help_lists_every_command():
    """`python -m engine --help` names new, legal, play and replay, each with a line."""
    proc = run_cli("--help")
    assert proc.returncode == 0
    out = proc.stdout.decode()
    for command, words in (
        ("new", "new game"),
        ("legal", "legal action"),
        ("play", "apply actions"),
        ("replay", "game record"),
    ):
        line = next(x for x in out.splitlines() if x.strip().startswith(command + " "))
        assert words in line, line
    for command in ("new", "legal", "play", "replay"):
        sub = run_cli(command, "--help")
        assert sub.returncode == 0 and b"usage: python -m engine " + command.encode() in sub.stdout


def test_replay_prints_json_on_stdout_and_a_summary_on_stderr(tmp_path):
    """stdout stays the position JSON alone (the contract); stderr has one line:
    the decision, the scores and who is to move."""
    path = write(tmp_path, _record_text(), "game.txt")
    proc = run_cli("replay", path)
    assert proc.returncode == 0
    pos = json.loads(proc.stdout)
    assert pos["scores"] == {"red": 2, "blue": 0}
    assert proc.stderr.decode() == (
        "decision 4: red 2 · blue 0; blue to move (phase 1, round 1, play)\n"
    )
    early = run_cli("replay", path, "--decision", "1")
    assert (
        early.stderr.decode()
        == "decision 1: red 0 · blue 0; blue to move (phase 1, round 1, place)\n"
    )
    assert json.loads(early.stdout)["stage"] == "place"


# issue 33, item 4: a position without a king ---------------------------------------


def _no_king_last_turn() -> dict:
    """Phase 1's last turn (b to move in round 4) with no king anywhere: the minimal
    positions of the contract look like this (``king`` defaults to none)."""
    return (
        Pos()
        .h(c3=2, d3=1, f6=1, g6=1)
        .knights("a", "c3")
        .knights("b", "f6")
        .phase(1, 4)
        .to_move("b")
        .build()
    )


def test_a_phase_without_a_king_is_scored_once_and_the_game_goes_on(tmp_path):
    """With no king on the board, the phase is scored (no king's bonus) once; the lowest
    scorer then puts the king on any empty castle square or passes, and the next phase
    starts: neither the setup's king placement again nor phase 1 scored twice."""
    pos = cli_json(run_cli("play", "--position", write(tmp_path, _no_king_last_turn()), "end"))
    assert (pos["stage"], pos["phase"], pos["round"], pos["king"]) == ("king", 1, 4, None)
    assert pos["scores"] == {"a": 4, "b": 2}  # 2 x level 2, 2 x level 1: once each
    assert pos["to_move"] == "b"
    path = write(tmp_path, pos, "king.json")
    moves = set(run_cli("legal", "--position", path).stdout.decode().splitlines())
    assert moves == {"king d3", "king g6", "king pass"}  # any empty castle square
    for decision, king in (("king pass", None), ("king g6", "g6")):
        after = cli_json(run_cli("play", "--position", path, decision))
        assert (after["stage"], after["phase"], after["round"]) == ("play", 2, 1)
        assert after["king"] == king and after["to_move"] == "b"
        assert after["scores"] == {"a": 4, "b": 2}
        assert after["stacks"] == {"a": [3, 3, 3, 3], "b": [3, 3, 3, 3]}


def test_a_game_without_a_king_reaches_its_end(tmp_path):
    """Passing after every scoring, the game is scored three times and ends."""
    game = Game.from_position(_no_king_last_turn())
    scorings = 0
    while game.stage != "over":
        if game.stage == "king":
            assert "king pass" in game.legal()
            events = game.play("king pass")
        else:
            events = game.play("end")
        scorings += sum(1 for e in events if e["type"] == "phase_scored")
        assert scorings <= 3
    assert scorings == 3
    assert game.position()["phase"] == 3


def test_the_setup_king_placement_is_unchanged(tmp_path):
    """Phase 1, round 1, no king: still the setup's placement (an empty castle, no pass)."""
    game = Game.new(players=2, seed=1)
    for action in ("place c3", "place f6"):
        game.play(action)
    assert game.stage == "king"
    legal = game.legal()
    assert "king pass" not in legal and "king c3" not in legal and "king e8" in legal
    again = Game.from_position(game.position())
    assert again.legal() == legal


def test_a_king_stage_in_phase_3_is_impossible_with_or_without_a_king(tmp_path):
    """The king moves after phases 1 and 2 only; a king stage in phase 3 without a king
    was read as the setup's placement and dealt phase 3 again."""
    for king in (None, "d3"):
        pos = Pos().h(d3=1).stage("king").phase(3, 3).king(king).build()
        line = assert_clean_failure(run_cli("play", "--position", write(tmp_path, pos)), 1)
        assert "the king moves after the scoring of phases 1 and 2 only" in line
