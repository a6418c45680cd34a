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
G, R, P = "engine/game.py", "engine/rules.py", "engine/position.py"

MUTANTS: list[tuple[str, str, str, str]] = [
    ("door ends higher", G, "if h[v] <= level and occ[v] == EMPTY and v != a:",
     "if h[v] <= level + 1 and occ[v] == EMPTY and v != a:"),
    ("door exit may be start", G, "if h[v] <= level and occ[v] == EMPTY and v != a:",
     "if h[v] <= level and occ[v] == EMPTY:"),
    ("redistribution ties last", G, "if s < MAX_STACK and (best < 0 or s < stacks[best]):",
     "if s < MAX_STACK and (best < 0 or s <= stacks[best]):"),
    ("redistribution onto full stacks", G, "if s < MAX_STACK and (best < 0 or s < stacks[best]):",
     "if s <= MAX_STACK and (best < 0 or s < stacks[best]):"),
    ("no leap-frog", G, "        while target in taken:\n            target += 1\n", ""),
    ("leap-frog onto 0", G, "taken = {s for q, s in enumerate(self.scores_) if q != p and s > 0}",
     "taken = {s for q, s in enumerate(self.scores_) if q != p}"),
    ("king bonus at least", G, "h[k] == self.phase_ for k in self.kn[p]",
     "h[k] >= self.phase_ for k in self.kn[p]"),
    ("lowest tie last", G, "lowest = min(order, key=lambda q: self.scores_[q])",
     "lowest = min(reversed(order), key=lambda q: self.scores_[q])"),
    ("3 draws", R, "MAX_DRAWS = 2", "MAX_DRAWS = 3"),
    ("7 knights", R, "MAX_KNIGHTS = 6", "MAX_KNIGHTS = 7"),
    ("stacks of 4", R, "MAX_STACK = 3", "MAX_STACK = 4"),
    ("king bonus 20", R, "KING_BONUS = (5, 10, 15)", "KING_BONUS = (5, 10, 20)"),
    ("3p rounds 4/4/3", R, "3: (4, 3, 3), 4", "3: (4, 4, 3), 4"),
    ("3p stacks", R, "3: ((3, 3, 2, 2), (3, 3, 2), (3, 3, 2)),",
     "3: ((3, 3, 3, 2), (3, 3, 2), (3, 3, 2)),"),
    ("master leader ignored", G,
     "        if best <= 0:\n            return fallback\n        return self.scores_.index(best)",
     "        return fallback"),
    ("relocate next to itself", G, "            if k == a:\n                continue\n            level = h[k]",
     "            level = h[k]"),
    ("vault over king", G, "if 0 <= occ[over] < KING and occ[land] == EMPTY",
     "if occ[over] != EMPTY and occ[land] == EMPTY"),
    ("drawn copies", G, "if not drawn or hand.count(c) > drawn.count(c):",
     "if not drawn or hand.count(c) >= drawn.count(c):"),
    ("moveblock 5 castles (top)", G, "            if n2 >= 6:", "            if n2 >= 5:"),
    ("moveblock 5 castles (extend)", G, "elif len(touch) == 1 and n2 >= 6:",
     "elif len(touch) == 1 and n2 >= 5:"),
    ("add knight higher", G,
     "                if occ[t] == EMPTY and h[t] <= level:\n                    res.add(t)\n"
     "        return res\n\n    def _do_knight",
     "                if occ[t] == EMPTY and h[t] <= level + 1:\n                    res.add(t)\n"
     "        return res\n\n    def _do_knight"),
    ("step two up", G, "res = {t for t in ORTH[a] if occ[t] == EMPTY and h[t] <= level + 1}",
     "res = {t for t in ORTH[a] if occ[t] == EMPTY and h[t] <= level + 2}"),
    ("castle points area+level", G, "pts = sum(cc.area[c] * lv for c, lv in best.items())",
     "pts = sum(cc.area[c] + lv for c, lv in best.items())"),
    ("undo across draw", G,
     '        self.t_ap -= 1\n        self._undo.clear()\n        if self._variant == "common":',
     '        self.t_ap -= 1\n        if self._variant == "common":'),
    ("viewer sees all hands", P, "if hide and (owner is None or owner != seat):",
     "if hide and owner is None:"),
    ("jump one level (legal list)", G, "top = h[s] + 2\n        return [t for t in ORTH[s]",
     "top = h[s] + 1\n        return [t for t in ORTH[s]"),
    ("stack named twice", G,
     '        if self.t_stack is not None:\n            raise self._illegal(\n                a, f"You already use',
     '        if False:\n            raise self._illegal(\n                a, f"You already use'),
    ("personal rest reversed", G,
     'self.decks[key] = rest + deck if where == "top" else deck + rest',
     'self.decks[key] = rest[::-1] + deck if where == "top" else deck + rest'),
    ("phase scoring in seat order", G,
     "order = [(self.phase_starter + i) % n for i in range(n)]", "order = list(range(n))"),
]  # fmt: skip

# v != a: the start square holds the knight itself, so it is never empty anyway;
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
