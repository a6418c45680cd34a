"""The engine type-checks: ``mypy --strict`` on engine/ (settings in pyproject.toml).

A test rather than a separate CI step, so that the README's one test command
(which .ci/run calls) covers it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_is_mypy_clean():
    """Every module of engine/ passes mypy in strict mode."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "engine"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
