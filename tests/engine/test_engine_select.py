"""TORRES_ENGINE and the fallback to the reference (engine/_select.py), each in a fresh
interpreter, so that the choice made at the first ``import engine`` is the one tested."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

# Makes ``engine._core`` impossible to import, as on a machine where it was never built.
NO_CORE = """
import importlib.abc, sys
class NoCore(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "engine._core" or name.startswith("engine._core."):
            raise ModuleNotFoundError(f"No module named {name!r}")
sys.meta_path.insert(0, NoCore())
"""
SHOW = "import engine; print(engine.ENGINE, engine.Game.__module__, engine.rules.actions.__name__)"


def run(code: str, engine: str | None = None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TORRES_ENGINE"}
    if engine is not None:
        env["TORRES_ENGINE"] = engine
    return subprocess.run(
        [sys.executable, *(("-c", code) if code else ()), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def core_built() -> bool:
    return run("import engine; print(engine.ENGINE)").stdout.strip() == "core"


def test_reference_on_request() -> None:
    out = run(SHOW + "; import engine.rules.actions", "reference")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["reference", "engine.game", "engine.rules.actions"]
    assert out.stderr == ""


def test_without_the_core_the_reference_says_so_once() -> None:
    """Without the core: the reference, one log line (the application decides whether it
    shows: here a configured logging), nothing on stderr otherwise."""
    code = NO_CORE + "import logging; logging.basicConfig(level=logging.INFO)\n"
    code += "import engine, engine.game, engine.rules, engine.ai\n" + SHOW
    out = run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["reference", "engine.game", "engine.rules.actions"]
    assert out.stderr.count("\n") == 1, out.stderr
    assert "WARNING:engine.core:the reference engine (pure Python):" in out.stderr
    assert "compiled core is not built" in out.stderr or "No module named" in out.stderr
    quiet = run(NO_CORE + SHOW)  # a program that configures no logging: not a word
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


def test_core_required_but_missing_fails_clearly() -> None:
    out = run(NO_CORE + "import engine", "core")
    assert out.returncode == 1
    assert "ImportError: TORRES_ENGINE=core:" in out.stderr


def test_unknown_choice_is_named_and_the_default_used() -> None:
    out = run("import engine; print(engine.ENGINE_NOTE)", "fast")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("TORRES_ENGINE='fast' is not 'core' or 'reference'; ")


def test_the_command_line_adds_nothing_to_stderr_without_the_core() -> None:
    """The command line's contract (one line on stderr for an error) holds without the core."""
    code = NO_CORE + "import runpy; sys.argv = ['engine', 'legal']\n"
    code += "runpy.run_module('engine', run_name='__main__', alter_sys=True)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        input="{}",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "TORRES_ENGINE"},
    )
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert "place" in out.stdout


@pytest.mark.skipif(not core_built(), reason="the compiled core is not built")
def test_core_by_default_when_built() -> None:
    out = run(SHOW + "; import engine.rules.actions")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["core", "engine._core.game", "engine._core.rules.actions"]
    assert out.stderr == ""


# which modules run: the computer players' evaluation, engine.ai itself, the C kernels
PARTS = (
    "import sys, engine, engine.ai, engine.ai._evaluate as e\n"
    "print(e.__name__, engine.ai.__file__.endswith('.py'), 'engine._native' in sys.modules)"
)


@pytest.mark.skipif(not core_built(), reason="the compiled core is not built")
def test_the_core_brings_its_c_kernels_and_compiled_players() -> None:
    """The core calls the C kernels and runs the computer players' compiled modules;
    engine.ai itself stays Python (callers set its knobs); the reference uses neither."""
    out = run(PARTS)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["engine._core.ai._evaluate", "True", "True"]
    out = run(PARTS, "reference")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["engine.ai._evaluate", "True", "False"]


@pytest.mark.skipif(not core_built(), reason="the compiled core is not built")
def test_a_core_built_from_other_source_is_not_used() -> None:
    """An editable install whose engine/ changed since the core was built: the reference,
    until the core is built again (the core knows its source's digest)."""
    code = (
        "import engine._select as s\ns.source_hash = lambda root: 'changed'\nprint(s.choose()[1])\n"
    )
    out = run(code)
    assert out.returncode == 0, out.stderr
    assert "built from other engine source" in out.stdout
