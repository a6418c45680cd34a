"""Game records (docs/notation.md, "Game records"): write, read, replay, and refuse damage."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game
from engine.ai import choose_actions
from engine.notation import canonical_actions, format_action, parse_actions
from engine.record import (
    Decision,
    Record,
    RecordError,
    format_record,
    parse_record,
    record_from_log,
    replay,
)

ROOT = Path(__file__).resolve().parents[2]


def _as_typed(actions: list[str]) -> str:
    """Canonical single actions as a player types them: shorthands wherever they fit
    (``score 3``, ``move c3 d3 d4``, ``build e4 e5``)."""
    out: list[str] = []
    for a in actions:
        last = out[-1] if out else ""
        if a == "score" and (last == "score" or last.startswith("score ")):
            out[-1] = f"score {int(last[6:] or 1) + 1}"
        elif (
            a.startswith("move ") and last.startswith("move ") and a.split()[1] == last.split()[-1]
        ):
            out[-1] = f"{last} {a.split()[2]}"
        elif a.startswith("build ") and last.startswith("build "):
            out[-1] = f"{last} {a[6:]}"
        else:
            out.append(a)
    return "; ".join(out)


def test_as_typed_writes_the_shorthands():
    assert _as_typed(["move c3 d3", "move d3 d4", "build e4", "build e5", "score", "score"]) == (
        "move c3 d3 d4; build e4 e5; score 2"
    )


def _random_log(players: int, variant: str, seed: int) -> tuple[Game, list[tuple[str, str]]]:
    """A whole random game as a service logs it: commands of one or more actions, in
    the shorthands a player types (``score 3``, move paths, build lists), now and then
    an undo of the last action of a turn."""
    rng = random.Random(seed)
    game = Game.new(players=players, variant=variant, seed=seed)
    log: list[tuple[str, str]] = []
    n = 0
    while game.stage != "over":
        actions = choose_actions(game, level="random", seed=seed * 1000 + n)
        n += 1
        i = 0
        while i < len(actions):
            size = rng.randint(1, 4)
            chunk = _as_typed(actions[i : i + size])
            game.play(chunk)
            log.append(("play", chunk))
            i += size
            if i < len(actions) and rng.random() < 0.15 and game.undo():
                log.append(("undo", ""))
                i -= 1
    return game, log


@pytest.mark.parametrize(
    "players,variant", [(2, "common"), (3, "personal"), (4, "master"), (4, "common")]
)
def test_exported_random_games_replay_to_the_same_final_position(players, variant):
    """A log with chained commands and undos becomes a record that replays exactly."""
    for seed in range(3):
        game, log = _random_log(players, variant, seed)
        record = record_from_log(
            variant=variant, seed=seed, players=game.players, log=log, headers={"Game": "7"}
        )
        text = format_record(record)
        assert "undo" not in text
        again = parse_record(text)
        assert again == record
        assert replay(again).position() == game.position()


def test_decision_k_is_the_position_after_k_decisions():
    """Decision 0 is the start; each decision line is one setup choice or one whole turn."""
    game, log = _random_log(2, "common", 4)
    record = record_from_log(variant="common", seed=4, players=game.players, log=log)
    assert replay(record, 0).position() == Game.new(players=2, seed=4).position()
    start = Game.new(players=2, seed=4)
    for decision in record.decisions[:5]:
        start.play("; ".join(decision.actions))
    assert replay(record, 5).position() == start.position()
    assert record.decisions[0] == Decision("red", ("place " + record.decisions[0].actions[0][6:],))
    with pytest.raises(RecordError, match="decisions 1 to"):
        replay(record, len(record.decisions) + 1)


def test_the_text_is_readable():
    """Headers first, then numbered decisions with the player and canonical actions."""
    record = Record(variant="common", seed=3, players=("red", "blue"), headers={"Name red": "Ann"})
    record.decisions.append(Decision("red", ("place c3",)))
    assert format_record(record) == (
        "Format: torres-record/1\nVariant: common\nSeed: 3\nPlayers: red, blue\n"
        "Name red: Ann\n\n1 red: place c3\n"
    )


def test_shorthand_and_comments_are_read():
    """Records written by hand may use the notation's shorthands and '#' comments."""
    text = (
        "Format: torres-record/1\nVariant: common\nSeed: 3\nPlayers: red, blue\n\n"
        "# the first knights\n1 red: Place C3\n2 blue: place f6\n"
    )
    record = parse_record(text)
    assert record.decisions[0].actions == ("place c3",)
    assert replay(record).to_move == "blue"


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda t: t.replace("Seed: 3", "Seed: three"), "line 3: the seed must be a whole number"),
        (lambda t: t.replace("Variant: common\n", ""), "no 'Variant:' line"),
        (lambda t: t.replace("Format: torres-record/1", "Format: pgn"), "line 1: unknown format"),
        (lambda t: t.replace("2 blue:", "3 blue:"), "line 7: decision 3 is out of order"),
        (lambda t: t.replace("2 blue:", "2 red:"), "line 7: it is blue's decision, not red's"),
        (lambda t: t.replace("place f6", "place z9"), "line 7: 'z9' is not a square"),
        (lambda t: t.replace("place f6", "place c3"), "line 7: `place c3`:"),
        (lambda t: t.replace("2 blue: place f6", "2 blue place f6"), "line 7: expected a decision"),
        (lambda t: t.replace("Players: red, blue", "Players: red"), "sets up no game"),
    ],
)
def test_damaged_records_name_the_line_and_why(change, message):
    """Each kind of damage is refused with its line number and reason."""
    text = "Format: torres-record/1\nVariant: common\nSeed: 3\nPlayers: red, blue\n\n"
    text += "1 red: place c3\n2 blue: place f6\n"
    with pytest.raises(RecordError, match=message.replace("(", r"\(")):
        replay(parse_record(change(text)))


def test_a_turn_that_does_not_end_is_refused_unless_it_is_the_last():
    """Only the last decision of a record may stop mid-turn (a game still running)."""
    game, log = _random_log(2, "common", 2)
    record = record_from_log(variant="common", seed=2, players=game.players, log=log)
    turn = next(i for i, d in enumerate(record.decisions) if d.actions[-1] == "end")
    cut = record.decisions[turn]
    running = Record("common", 2, record.players, decisions=record.decisions[:turn])
    running.decisions.append(Decision(cut.player, cut.actions[:-1]))
    replay(running)  # the last decision may stop mid-turn
    running.decisions.append(record.decisions[turn + 1])
    with pytest.raises(RecordError, match=f"decision {turn + 1}: the decision does not end"):
        replay(running)


_BASE = None


def _base_text() -> str:
    global _BASE
    if _BASE is None:
        game, log = _random_log(3, "common", 9)
        _BASE = format_record(
            record_from_log(variant="common", seed=9, players=game.players, log=log)
        )
    return _BASE


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_damaged_records_raise_record_error_only(data):
    """Property: a record with lines deleted, swapped, cut or overwritten either replays
    or raises RecordError (with a line number where a line is at fault); nothing else."""
    lines = _base_text().splitlines()
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["delete", "swap", "cut", "text", "dup"]))
        if how == "delete":
            del lines[i]
        elif how == "swap":
            j = data.draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == "cut":
            lines[i] = lines[i][: data.draw(st.integers(0, max(0, len(lines[i]) - 1)))]
        elif how == "text":
            lines[i] = data.draw(st.text(max_size=60))
        else:
            lines.insert(i, lines[i])
        if not lines:
            lines = [""]
    try:
        replay(parse_record("\n".join(lines)))
    except RecordError as e:
        assert str(e)


def test_cli_replays_and_refuses_damage_with_exit_2(tmp_path):
    """`python -m engine replay FILE [--decision K]`; damage: exit 2, 'record: line N: …'."""
    game, log = _random_log(2, "personal", 1)
    record = record_from_log(variant="personal", seed=1, players=game.players, log=log)
    path = tmp_path / "game.txt"
    path.write_text(format_record(record), encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "engine", "replay", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )

    ok = run(str(path))
    assert ok.returncode == 0, ok.stderr
    assert '"stage": "over"' in ok.stdout
    early = run(str(path), "--decision", "1")
    assert early.returncode == 0
    assert '"stage": "place"' in early.stdout and '"to_move": "blue"' in early.stdout
    lines = path.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith("3 "))
    lines[n] = "3 red: move a1"
    path.write_text("\n".join(lines), encoding="utf-8")
    bad = run(str(path))
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.startswith(f"record: line {n + 1}: ")
    assert "Traceback" not in bad.stderr
    missing = run(str(tmp_path / "none.txt"))
    assert missing.returncode == 1 and "Cannot read the record file" in missing.stderr


_SQUARES = st.sampled_from([f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)])
_ACTION_TEXTS = st.one_of(
    st.builds(
        lambda v, s: f"{v} {s}", st.sampled_from(["castle", "place", "knight", "king"]), _SQUARES
    ),
    st.just("king pass"),
    st.builds(lambda p: "move " + " ".join(p), st.lists(_SQUARES, min_size=2, max_size=6)),
    st.builds(lambda p: "build " + " ".join(p), st.lists(_SQUARES, min_size=1, max_size=4)),
    st.builds("stack {}".format, st.integers(0, 999)),
    st.builds("score {}".format, st.integers(1, 999)),
    st.sampled_from(["score", "draw", "end", "play ap6", "play ap7"]),
    st.builds(
        lambda c, k: f"keep {c} {k}",
        st.sampled_from(["jump", "lift", "ap6"]),
        st.sampled_from(["top", "bottom"]),
    ),
    st.builds(
        lambda c, a, b: f"play {c} {a} {b}",
        st.sampled_from(["jump", "doorclimb", "diagonal", "moveblock", "relocate", "vault"]),
        _SQUARES,
        _SQUARES,
    ),
    st.builds(lambda a: f"play extra {a}", _SQUARES),
    st.builds(
        lambda a, k: f"play lift {a}{k}",
        _SQUARES,
        st.sampled_from(["", " turn", " 0", " 2", " 3"]),
    ),
)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(_ACTION_TEXTS, min_size=1, max_size=6))
def test_property_formatted_actions_parse_back_to_the_same_actions(texts):
    """Property: nothing a clause holds is lost in writing it out: every parsed action
    (move paths, build lists, ``score N``, card plays) formats to text that parses back
    to it, and the canonical single actions play out the same steps."""
    parsed = parse_actions("; ".join(texts))
    for action in parsed:
        assert parse_actions(format_action(action)) == (action,)
    singles = canonical_actions(parsed)
    steps = [a for text in singles for a in parse_actions(text)]
    expand = [
        ("score", 1) if a[0] == "score" and a[1] <= 50 else a
        for a in parsed
        for _ in range(a[1] if a[0] == "score" and a[1] <= 50 else 1)
    ]
    assert steps == expand


def test_multi_step_scoring_keeps_every_step_in_the_record():
    """``score 3`` (the panel's "Score 3 steps") is three steps in the record, its
    replay and every decision of it: the issue-33 record lost two of them."""
    game = Game.new(players=2, seed=5)
    log = []
    while game.stage != "play":
        action = game.legal()[0]
        game.play(action)
        log.append(("play", action))
    for text in ("score 3", "end", "score 2; score", "end"):
        game.play(text)
        log.append(("play", text))
    record = record_from_log(variant="common", seed=5, players=game.players, log=log)
    assert record.decisions[-2].actions == ("score", "score", "score", "end")
    assert record.decisions[-1].actions == ("score", "score", "score", "end")
    text = format_record(record)
    assert text.splitlines()[-1].endswith("blue: score; score; score; end")
    assert replay(parse_record(text)).scores == game.scores == {"red": 3, "blue": 4}


def test_old_records_with_plain_score_and_records_with_score_n_read_alike():
    """A record written before ``score N`` was kept (single ``score`` steps) still reads;
    a hand-written ``score 3`` reads as the three steps."""
    head = "Format: torres-record/1\nVariant: common\nSeed: 3\nPlayers: red, blue\n\n"
    setup = "1 red: place c3\n2 blue: place f6\n3 blue: king e8\n"
    old = parse_record(head + setup + "4 red: score; score; score; end\n")
    new = parse_record(head + setup + "4 red: Score 3; END\n")
    assert old.decisions == new.decisions
    assert new.decisions[-1].actions == ("score", "score", "score", "end")
    assert replay(old).position() == replay(new).position()
    assert replay(new).scores["red"] == 3


def test_a_128_bit_seed_is_written_and_read_exactly():
    """New games have 128-bit seeds (39 digits): the record keeps them exactly; a seed of
    more than 100 digits is refused by name."""
    seed = 2**128 - 159
    record = Record(variant="personal", seed=seed, players=("red", "blue"))
    text = format_record(record)
    assert f"Seed: {seed}\n" in text
    again = parse_record(text)
    assert again.seed == seed
    assert replay(again).position() == Game.new(2, variant="personal", seed=seed).position()
    with pytest.raises(RecordError, match="line 3: the seed must be a whole number of at most 100"):
        parse_record(text.replace(str(seed), "9" * 101))


@pytest.mark.parametrize("seed", [2**128 - 1, -(2**100), -(2**63) - 1, 10**99])
def test_any_seed_a_game_starts_from_reads_back_from_its_position(seed):
    """The position of a game made with any whole seed reads back to the same game (the
    reader refused seeds below -2**63 that Game.new and records accept)."""
    game = Game.new(players=3, variant="personal", seed=seed)
    again = Game.from_position(game.position())
    assert again.position() == game.position() and again.seed == seed
    record = parse_record(format_record(Record("personal", seed, tuple(game.players))))
    assert replay(record).position() == game.position()


def test_a_lift_without_its_stack_is_recorded_with_the_stack_it_took():
    """``play lift A`` takes the turn's stack or the tallest; the record writes which
    (the canonical form), so that it reads the same whatever the reader's default."""
    rng = random.Random(3)
    game = Game.new(players=2, seed=3)
    log: list[tuple[str, str]] = []
    while True:
        lifts = [a for a in game.legal() if a.startswith("play lift ")]
        if lifts:
            square = lifts[0].split()[2]
            resolved = game.copy()
            resolved.play(f"play lift {square}")
            canonical = next(
                a
                for a in lifts
                if a.startswith(f"play lift {square} ")
                and _after(game, a).position() == resolved.position()
            )
            game.play(f"play lift {square}")
            log.append(("play", f"play lift {square}"))
            break
        action = rng.choice(game.legal())
        game.play(action)
        log.append(("play", action))
    record = record_from_log(variant="common", seed=3, players=game.players, log=log)
    assert record.decisions[-1].actions[-1] == canonical
    assert replay(parse_record(format_record(record))).position() == game.position()


def _after(game: Game, action: str) -> Game:
    work = game.copy()
    work.play(action)
    return work
