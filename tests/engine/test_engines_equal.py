"""The compiled core and the pure-Python reference, list for list (engine_trace.py).

Both engines run the same random games of every variant for 2-4 players and the rules
suites' positions, each in its own interpreter; every legal list, position, view,
property, event and refusal (text, code, parameters) must be the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TRACE = HERE / "engine_trace.py"


def _run(*args: str, engine: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TORRES_ENGINE"}
    if engine is not None:
        env["TORRES_ENGINE"] = engine
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=600
    )


def _core_built() -> tuple[bool, str]:
    probe = _run("-c", "import engine; print(engine.ENGINE); print(engine.ENGINE_NOTE)")
    assert probe.returncode == 0, probe.stderr
    which, note = probe.stdout.splitlines()
    return which == "core", note


def test_core_and_reference_agree_list_for_list() -> None:
    built, note = _core_built()
    if not built:
        pytest.skip(f"the compiled core is not built, nothing to compare: {note}")
    core = _run(str(TRACE), engine="core")
    reference = _run(str(TRACE), engine="reference")
    assert core.returncode == 0, core.stderr
    assert reference.returncode == 0, reference.stderr
    core_lines = core.stdout.splitlines()
    reference_lines = reference.stdout.splitlines()
    assert json.loads(core_lines[0]) == {"engine": "core"}
    assert json.loads(reference_lines[0]) == {"engine": "reference"}
    assert len(core_lines) > 5000  # every variant and player count, the suites' positions
    for got, want in zip(core_lines[1:], reference_lines[1:], strict=True):
        if got != want:  # the first difference, readably
            assert json.loads(got) == json.loads(want)
