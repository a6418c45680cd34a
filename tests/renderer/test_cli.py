"""`python -m renderer`: a PNG for good input, one clear line and exit 1 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from renderer_samples import load

import renderer

ROOT = Path(__file__).resolve().parents[2]
FORMAT = "torres-position/1"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "renderer", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def write_position(tmp_path: Path, position) -> Path:
    path = tmp_path / "position.json"
    path.write_text(json.dumps(position))
    return path


def test_writes_the_same_png_as_the_python_function(tmp_path):
    """The command line and render_board give the very same bytes."""
    pos = load("midgame")
    src = write_position(tmp_path, pos)
    out = tmp_path / "board.png"
    result = run("--position", str(src), "--out", str(out), "--viewer", "blue")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert out.read_bytes() == renderer.render_board(pos, viewer="blue")


def test_reads_standard_input_and_highlights(tmp_path):
    """--position - reads stdin; --highlight takes comma-separated squares."""
    pos = load("setup")
    out = tmp_path / "board.png"
    result = run(
        "--position", "-", "--out", str(out), "--highlight", "c3,f3", stdin=json.dumps(pos)
    )
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == renderer.render_board(pos, highlight=["c3", "f3"])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("[" * 100_000, "is not valid JSON"),
        ("[1, 2]", "The position must be a JSON object."),
        ('{"format": "torres-position/1"}', "players"),
        (
            json.dumps({"format": FORMAT, "players": ["a", "b"], "heights": {"z9": 1}}),
            "z9",
        ),
        (
            json.dumps(
                {"format": FORMAT, "players": ["a", "b"], "knights": {"a": ["c3"], "b": ["c3"]}}
            ),
            "c3",
        ),
    ],
)
def test_bad_positions_give_one_clear_line_and_exit_1(tmp_path, content, message):
    """Malformed or impossible positions: exit 1, one stderr line, no traceback."""
    src = tmp_path / "position.json"
    src.write_text(content)
    out = tmp_path / "board.png"
    result = run("--position", str(src), "--out", str(out))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert "Traceback" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--position", "no/such/file.json"], "cannot read no/such/file.json"),
        (["--position", "SETUP", "--viewer", "mallory"], "Unknown viewer 'mallory'"),
        (["--position", "SETUP", "--highlight", "e4,k2"], "'k2' is not a square"),
        (["--viewer", "red"], "--position"),
    ],
)
def test_bad_arguments_give_one_clear_line_and_exit_1(tmp_path, args, message):
    """Missing files, missing options, unknown viewers and bad squares: exit 1."""
    out = tmp_path / "board.png"
    setup = str(write_position(tmp_path, load("setup")))
    result = run(*[setup if a == "SETUP" else a for a in args], "--out", str(out))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_unwritable_output_is_a_clear_error(tmp_path):
    """An output path in a missing folder is reported, not a traceback."""
    src = write_position(tmp_path, load("setup"))
    result = run("--position", str(src), "--out", str(tmp_path / "missing" / "b.png"))
    assert result.returncode == 1
    assert result.stderr.startswith("error: cannot write ")
    assert "Traceback" not in result.stderr


def test_highlight_note_and_describe(tmp_path):
    """--highlight-note reaches the legend; --describe prints the alt text."""
    pos = load("late")
    src = write_position(tmp_path, pos)
    out = tmp_path / "board.png"
    note = "changed by blue's last turn"
    result = run(
        "--position", str(src), "--out", str(out), "--highlight", "e1",
        "--highlight-note", note, "--describe",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == renderer.render_board(pos, highlight=["e1"], highlight_note=note)
    assert result.stdout.strip() == renderer.describe(pos, highlight=["e1"], highlight_note=note)
