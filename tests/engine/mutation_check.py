"""Mutation check of the engine rules suite (not a test; run by hand).

    .venv/bin/python tests/engine/mutation_check.py     # ~20 min: failing hypothesis tests shrink

Each mutant copies engine/ and tests/engine/ to a temporary directory, changes
one rule there (never in the working tree), and runs the rules suite; a mutant
must make at least one test fail.  A mutant whose text no longer matches the
engine prints NOT APPLIED (the engine changed; update the pattern).  Two
mutants are known to be equivalent (the change cannot alter behaviour) and are
listed in EQUIVALENT.
"""

from __future__ import annotations

import concurrent.futures as cf
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
R, P = "engine/rules/tables.py", "engine/position.py"
TURN, SETUP, CARDS = "engine/rules/turn.py", "engine/rules/setup.py", "engine/rules/cards.py"
SCORING, COMMON, MB = (
    "engine/rules/scoring.py",
    "engine/rules/common.py",
    "engine/rules/moveblock.py",
)

MUTANTS: list[tuple[str, str, str, str]] = [
    ("door ends higher", TURN, "if h[v] <= level and v != a])",
     "if h[v] <= level + 1 and v != a])"),
    ("door exit may be start", TURN, "if h[v] <= level and v != a])",
     "if h[v] <= level])"),
    ("redistribution ties last", TURN, "if s < MAX_STACK and (best < 0 or s < stacks[best]):",
     "if s < MAX_STACK and (best < 0 or s <= stacks[best]):"),
    ("redistribution onto full stacks", TURN, "if s < MAX_STACK and (best < 0 or s < stacks[best]):",
     "if s <= MAX_STACK and (best < 0 or s < stacks[best]):"),
    ("no leap-frog", COMMON, "    while target in taken:\n        target += 1\n", ""),
    ("leap-frog onto 0", COMMON, "taken = {s for q, s in enumerate(st.scores) if q != p and s > 0}",
     "taken = {s for q, s in enumerate(st.scores) if q != p}"),
    ("king bonus at least", SCORING, "if any(comp[k] == kc and h[k] == phase for k in knights):",
     "if any(comp[k] == kc and h[k] >= phase for k in knights):"),
    ("lowest tie last", SCORING, "st.to_move = min(order, key=lambda q: st.scores[q])",
     "st.to_move = min(reversed(order), key=lambda q: st.scores[q])"),
    ("3 draws", R, "MAX_DRAWS = 2", "MAX_DRAWS = 3"),
    ("7 knights", R, "MAX_KNIGHTS = 6", "MAX_KNIGHTS = 7"),
    ("stacks of 4", R, "MAX_STACK = 3", "MAX_STACK = 4"),
    ("king bonus 20", R, "KING_BONUS = (5, 10, 15)", "KING_BONUS = (5, 10, 20)"),
    ("3p rounds 4/4/3", R, "3: (4, 3, 3), 4", "3: (4, 4, 3), 4"),
    ("3p stacks", R, "3: ((3, 3, 2, 2), (3, 3, 2), (3, 3, 2)),",
     "3: ((3, 3, 3, 2), (3, 3, 2), (3, 3, 2)),"),
    ("master leader ignored", SETUP,
     "    if best <= 0:\n        return fallback\n    return st.scores.index(best)",
     "    return fallback"),
    ("relocate next to itself", TURN, "        if k == without:\n            continue\n",
     ""),
    ("vault over king", CARDS, "if 0 <= occ[over] < KING and occ[land] == EMPTY",
     "if occ[over] != EMPTY and occ[land] == EMPTY"),
    ("drawn copies", CARDS, "if not drawn or hand.count(c) > drawn.count(c)]",
     "if not drawn or hand.count(c) >= drawn.count(c)]"),
    ("moveblock 5 castles (top)", MB, "        if n2 >= 6:", "        if n2 >= 5:"),
    ("moveblock 5 castles (extend)", MB, "elif len(touch) == 1 and n2 >= 6:",
     "elif len(touch) == 1 and n2 >= 5:"),
    ("add knight higher", TURN,
     "            if occ[t] == EMPTY and h[t] <= level:\n                res.add(t)\n",
     "            if occ[t] == EMPTY and h[t] <= level + 1:\n                res.add(t)\n"),
    ("step two up", TURN, "res = {t for t in ORTH[a] if h[t] <= level + 1}",
     "res = {t for t in ORTH[a] if h[t] <= level + 2}"),
    ("castle points area+level", SCORING,
     "return sum(area[c] * lv for c, lv in highest_levels(knights, h, comp).items())",
     "return sum(area[c] + lv for c, lv in highest_levels(knights, h, comp).items())"),
    ("undo across draw", TURN,
     '    st.ap -= 1\n    st.undo.clear()\n    if st.variant == "common":',
     '    st.ap -= 1\n    if st.variant == "common":'),
    ("viewer sees all hands", P, "if hide and (owner is None or owner != seat):",
     "if hide and owner is None:"),
    ("jump one level (legal list)", CARDS, "top = h[s] + 2\n    return [t for t in ORTH[s]",
     "top = h[s] + 1\n    return [t for t in ORTH[s]"),
    ("square aligned only", SCORING, "if (f - dy, r + dx) in have and (g - dy, q + dx) in have:",
     "if dx * dy == 0 and (f - dy, r + dx) in have and (g - dy, q + dx) in have:"),
    ("stack named twice", TURN,
     "    if st.turn_stack is not None:\n        raise illegal(a, \"stack_chosen\"",
     "    if False:\n        raise illegal(a, \"stack_chosen\""),
    ("personal rest reversed", TURN,
     'st.decks[key] = (*rest, *deck) if where == "top" else (*deck, *rest)',
     'st.decks[key] = (*rest[::-1], *deck) if where == "top" else (*deck, *rest)'),
    ("phase scoring in seat order", SCORING,
     "order = [(st.phase_starter + i) % n for i in range(n)]", "order = list(range(n))"),
]  # fmt: skip

# v != a: the start square holds the knight itself, so it is never empty anyway
# (move_targets filters by occupant);
# leap-frog onto 0: a marker only moves forward from >= 0, so it never stops on 0.
EQUIVALENT = {"door exit may be start", "leap-frog onto 0"}


def run(root: Path, i: int, mutant: tuple[str, str, str, str]) -> tuple[str, str]:
    name, path, old, new = mutant
    d = root / f"m{i}"
    shutil.copytree(REPO / "engine", d / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(
        REPO / "tests/engine",
        d / "tests/engine",
        ignore=shutil.ignore_patterns("ai", "__pycache__", "test_core_smoke.py"),
    )
    shutil.copy(REPO / "pyproject.toml", d)
    f = d / path
    text = f.read_text()
    if text.count(old) != 1:
        return name, f"NOT APPLIED (pattern found {text.count(old)} times)"
    f.write_text(text.replace(old, new))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "tests/engine"],
        cwd=d,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode == 0:
        return name, "SURVIVED" + (" (equivalent)" if name in EQUIVALENT else "")
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAILED")]
    return name, "caught by " + (failed[0].split()[1] if failed else "a collection error")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp, cf.ThreadPoolExecutor(8) as ex:
        results = list(ex.map(lambda a: run(Path(tmp), *a), enumerate(MUTANTS)))
    survived = 0
    for name, result in results:
        print(f"{name:32s} {result}")
        survived += result == "SURVIVED"
    caught = sum(r.startswith("caught") for _, r in results)
    print(f"{caught} of {len(MUTANTS)} mutants caught; {len(EQUIVALENT)} known equivalent")
    return 1 if survived else 0


if __name__ == "__main__":
    raise SystemExit(main())
