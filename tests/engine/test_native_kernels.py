"""The C kernels under odd arguments (engine/_native*.c): an answer, None or a clean
exception, never a crash, a SystemError or a board of one list kept for another.

Each case runs in a subprocess of its own (a regression could kill the interpreter);
skipped where the compiled core is not built.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

native = pytest.importorskip("engine._native", reason="the compiled core's C kernels are not built")
_CORE = subprocess.run(
    [sys.executable, "-c", "import engine"],
    capture_output=True,
    text=True,
    env={**os.environ, "TORRES_ENGINE": "core"},
)
if _CORE.returncode != 0:  # built from other source: pip install -e . rebuilds it
    pytest.skip(f"the compiled core cannot be used: {_CORE.stderr[-300:]}", allow_module_level=True)

PRELUDE = """
import engine  # the core's modules hand the kernels their tables (set_texts, ...)
from engine import _native as N
"""


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TORRES_ENGINE": "core"},  # also when the suite runs the reference
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_a_board_that_fails_to_load_leaves_the_kept_boards_of_other_lists_alone() -> None:
    """A tower above the kept boards' limit is left to Python; the board it was about
    to replace still answers for its own list, as a fresh copy of that list does."""
    assert (
        _run(
            """
        lists = [[0] * 64 for _ in range(8)]
        for i, h in enumerate(lists):
            h[i] = 1
            h[20] = 2
        want = [N.phase_points(h, [[20]], None, 1) for h in lists]  # the 8 boards kept
        assert N.block_squares([5] * 63 + [100]) is None
        assert [N.phase_points(h, [[20]], None, 1) for h in lists] == want
        print("ok")
        """
        )
        == "ok"
    )


def test_a_condition_that_fails_to_convert_raises_its_own_error() -> None:
    assert (
        _run(
            """
        class Bad:
            def __bool__(self):
                raise ZeroDivisionError
        h = [0] * 64
        for args in ((False, Bad(), False), (Bad(), False, False), (False, False, Bad())):
            try:
                N.turn_actions(h, 0, [], *args)
            except ZeroDivisionError:
                pass
            else:
                raise AssertionError(args)
        print("ok")
        """
        )
        == "ok"
    )


def test_squares_that_are_not_plain_ints_run_no_code_and_answer_none() -> None:
    """An int subclass or an object with __index__ is left to Python (None): no code of
    the caller's runs while the kernel holds borrowed references."""
    assert (
        _run(
            """
        h = [0] * 64
        h[0] = 1
        occupant = [-1] * 64
        class Index:
            def __index__(self):
                h.clear()
                occupant.clear()
                outer.clear()
                return 5
        class Int(int):
            pass
        outer = [[Index()], [1, 2]]
        assert N.turn_actions(h, 0, [Index()], True, True, True) is None
        assert N.turn_actions(h, 0, [Int(5)], True, True, True) is None
        assert N.phase_points([0] * 63 + [1], outer, None, 1) is None
        assert N.castle_squares([0] * 63 + [1], [[Index()]]) is None
        assert N.add_squares([0] * 63 + [1], [Index()]) is None
        assert N.move_reach([0] * 63 + [1], Index()) is None
        assert N.card_plays(h, occupant, 0, [Index()], ["diagonal"], [], None, [], 5) is None
        assert len(h) == 64 and len(occupant) == 64 and len(outer) == 2
        print("ok")
        """
        )
        == "ok"
    )


def test_numbers_out_of_range_answer_none_with_no_error_pending() -> None:
    assert (
        _run(
            """
        h = [0] * 63 + [1]
        assert N.phase_points(h, [[0]], 2**64, 1) is None
        assert N.phase_points(h, [[0]], -1, 1) is None
        assert N.phase_points(h, [[0]], None, 2**64) is None
        assert N.phase_points(h, [[0]], True, 1) is None
        assert N.moveblock_targets(h, -1, 63) is None
        assert N.moveblock_targets(h, 2**64, 63) is None
        assert N.moveblock_targets(h, 0, 2**64) is None
        assert N.move_reach(h, 2**64) is None
        assert N.add_squares(h, [2**64]) is None
        print("ok")
        """
        )
        == "ok"
    )
