"""The mutation check (tests/engine/mutation_check.py) tells the truth.

On a tiny made-up project: a mutant a rules test catches is reported caught by that
test, one no test catches survives, one only a non-rules test catches is reported as
such, an equivalent one is listed, a pattern found 0 or 2 times fails the check, and
so do rules tests failing on the unmutated copy.  On the real engine: every mutant
applies, and the quick subset is caught by rules tests (the CI part of the check).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mutation_check import (
    EQUIVALENT,
    MUTANTS,
    REPO,
    CheckError,
    check_patterns,
    mutant,
    run_check,
)

RULES = '''\
def can_step(level, target):
    """A step climbs one level at most."""
    return target <= level + 1


def bonus(phase):
    return (5, 10, 15)[phase - 1]


def label(code):
    return {"too_high": "too high"}[code]
'''

RULES_TEST = """\
from pathlib import Path

from engine.rules import bonus, can_step


def test_docs_and_settings_are_in_the_copy():
    root = Path(__file__).resolve().parents[2]
    assert (root / "docs" / "rules.md").read_text() == "steps: one level up\\n"


def test_step():
    assert can_step(0, 1)
    assert not can_step(0, 2)


def test_bonus_phase_one():
    assert bonus(1) == 5
"""

TEXT_TEST = """\
from engine.rules import label


def test_label():
    assert label("too_high") == "too high"
"""


def fake_repo(root: Path, rules_test: str = RULES_TEST) -> Path:
    """A project shaped like this one: engine/, docs/, tests/engine/, pyproject.toml."""
    (root / "engine").mkdir(parents=True)
    (root / "engine" / "__init__.py").write_text("")
    (root / "engine" / "rules.py").write_text(RULES)
    (root / "docs").mkdir()
    (root / "docs" / "rules.md").write_text("steps: one level up\n")
    (root / "tests" / "engine").mkdir(parents=True)
    (root / "tests" / "engine" / "test_rules_fake.py").write_text(rules_test)
    (root / "tests" / "engine" / "test_texts.py").write_text(TEXT_TEST)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    return root


R = "engine/rules.py"
STEP_TWO = mutant("step two up", R, "target <= level + 1", "target <= level + 2")
BONUS_20 = mutant("bonus 20", R, "(5, 10, 15)", "(5, 10, 20)")  # no test reads phase 3
TEXT = mutant("text changed", R, '"too high"}', '"too tall"}')
SAME = mutant("same step", R, "return target <= level + 1", "return not target > level + 1")


def statuses(results) -> dict[str, tuple[str, str]]:
    return {r.name: (r.status, r.detail) for r in results}


def test_caught_survived_non_rules_and_equivalent(tmp_path):
    repo = fake_repo(tmp_path / "repo")
    got = statuses(
        run_check(
            repo,
            [STEP_TWO, BONUS_20, TEXT, SAME],
            equivalent={"same step": "not > is <="},
            log=lambda _line: None,
        )
    )
    assert got["step two up"] == (
        "caught",
        "caught by tests/engine/test_rules_fake.py::test_step",
    )
    assert got["bonus 20"] == ("survived", "SURVIVED every engine test")
    status, detail = got["text changed"]
    assert status == "non-rules"
    assert "caught only by tests/engine/test_texts.py::test_label (not a rules test)" in detail
    assert got["same step"] == ("equivalent", "survived: equivalent (not > is <=)")
    assert (repo / R).read_text() == RULES  # the working tree is never changed


def test_an_equivalent_mutant_that_is_caught_fails(tmp_path):
    repo = fake_repo(tmp_path / "repo")
    (result,) = run_check(repo, [STEP_TWO], equivalent={"step two up": "wrong"}, log=print)
    assert result.status == "equivalent caught"
    assert not result.ok


@pytest.mark.parametrize(
    ("old", "found"),
    [("target < level + 1", 0), ("target", 2)],  # can_step(level, target), target <= ...
)
def test_a_pattern_not_found_once_fails_the_check(tmp_path, old, found):
    repo = fake_repo(tmp_path / "repo")
    stale = mutant("stale", R, old, "x")
    with pytest.raises(CheckError) as e:
        run_check(repo, [STEP_TWO, stale], log=print)
    msg = str(e.value)
    assert f"mutant 'stale' does not apply: in {R}, the pattern {old!r}" in msg
    assert f"is found {found} times, not once" in msg
    assert "step two up" not in msg


def test_failing_unmutated_tests_stop_the_check(tmp_path):
    repo = fake_repo(tmp_path / "repo", RULES_TEST + "\n\ndef test_broken():\n    assert False\n")
    with pytest.raises(
        CheckError, match=r"UNMUTATED copy \(tests/engine/test_rules_fake.py::test_broken\)"
    ):
        run_check(repo, [STEP_TWO], log=print)


def test_every_mutant_applies_to_todays_engine():
    assert check_patterns(REPO, MUTANTS) == []
    names = [m.name for m in MUTANTS]
    assert len(set(names)) == len(names)
    assert set(EQUIVALENT) <= set(names)


def test_quick_subset_is_caught_by_rules_tests():
    """The CI part of the check: each quick mutant is caught by a rules test."""
    quick = [m for m in MUTANTS if m.quick]
    assert 5 <= len(quick) <= 10
    results = run_check(REPO, quick, quick=True, log=print)
    for r in results:
        assert r.status == "caught", r.line()
        assert r.detail.startswith("caught by tests/engine/test_rules_"), r.line()


def test_tests_that_run_another_engine_stop_the_check(tmp_path):
    """A run of anything but the copy's pure-Python source (the compiled core, which the
    editable install reaches even from the copy) gives no verdict: the check stops."""
    repo = fake_repo(tmp_path / "repo")
    (repo / "engine" / "__init__.py").write_text('ENGINE = "core"\n')
    with pytest.raises(CheckError, match="mutation-check guard: the tests ran the core engine"):
        run_check(repo, [STEP_TWO], log=print)
