"""The checked packages type-check: ``mypy --strict`` on the files pyproject.toml's
[tool.mypy] names (engine/, renderer/ and bot/; settings there too).

A test rather than a separate CI step, so that the README's one test command
(which .ci/run calls) covers it. mypy runs with no paths, so a bare ``mypy`` in
the repository checks exactly what this test checks.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Packages that must stay in the checked set.
CHECKED = {"engine", "renderer", "bot"}


def test_the_checked_set_holds_engine_renderer_and_bot_strictly():
    """pyproject.toml's mypy settings name the three packages, in strict mode."""
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert settings["strict"] is True
    assert set(settings["files"]) >= CHECKED


def test_the_checked_packages_are_mypy_clean():
    """Every module of the checked set passes mypy in strict mode."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
