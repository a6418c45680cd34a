"""Mutation check of the engine rules suite: do the rules tests catch rule bugs?

    .venv/bin/python tests/engine/mutation_check.py            # every mutant (15-20 min)
    .venv/bin/python tests/engine/mutation_check.py --quick    # the CI subset (~20 s idle)
    .venv/bin/python tests/engine/mutation_check.py --only "step two up"
    .venv/bin/python tests/engine/mutation_check.py --patterns # only: does every mutant apply?

Each mutant is one plausible rule bug: a text replacement in one engine file.  The
check copies the working tree to a temporary directory once (every file git tracks or
would track: docs/, pyproject.toml and all, not .venv, .git or ignored output), runs
the rules tests there UNMUTATED first (they must pass, and must import the copy's
engine, not the installed one, or the check stops and says why), then for each
mutant changes the copy's file, runs the rules tests, and puts the file back.  The
working tree is never changed.

The rules tests are the modules ``tests/engine/test_rules_*.py`` (sections, cards,
edges, master, rulebook cases, legal sets, the independent reference and the
hypothesis properties, the command line); nothing else counts.  "Caught by" names the
first test that fails (pytest -x; the files run in ``RULES_ORDER``, fastest first).  A
mutant no rules test catches SURVIVES; the other engine tests (messages, records,
types, ...) are then run on it too, and a mutant only they catch is reported as
"caught only by a non-rules test", which is still a survivor.  Known equivalent
mutants (no behaviour can differ) are listed in ``EQUIVALENT`` with the reason; one
that is caught after all fails the check (the reason is wrong).

A mutant whose text is found 0 or more than once in its file FAILS the check (the
engine was rewritten there: re-anchor the pattern on the new lines), it is never
skipped.  Hypothesis runs with fixed seeds (``derandomize``), no example database and
no shrinking, so a figure is reproducible and a caught mutant costs seconds.  Mutants
run one after another: on two shared cores, parallel runs only slow each other down.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = "tests/engine"
# The rules test modules, fastest first (any other tests/engine/test_rules_*.py runs last).
RULES_ORDER = (
    "test_rules_sections.py",
    "test_rules_cards.py",
    "test_rules_edges.py",
    "test_rules_master.py",
    "test_rules_rulebook_cases.py",
    "test_rules_legal_sets.py",
    "test_rules_reference.py",
    "test_rules_properties.py",
    "test_rules_cli.py",
)
# The quick subset's files: the scenario tests, each under a second.
QUICK_FILES = (
    "test_rules_sections.py",
    "test_rules_cards.py",
    "test_rules_edges.py",
    "test_rules_master.py",
)
# Never run inside a mutant: this check's own tests (they would run the check again).
NOT_RUN = ("test_mutation_check.py",)
COPY_IGNORE = (".venv", ".git", "__pycache__", ".hypothesis", "*.egg-info", ".*_cache")
PLUGIN = "_mutation_plugin"
PLUGIN_TEXT = '''"""Loaded into every pytest run of tests/engine/mutation_check.py (-p)."""
import sys
from pathlib import Path

import pytest

GUARD = "mutation-check guard"

try:
    from hypothesis import Phase, settings
except ImportError:  # a test tree without hypothesis
    pass
else:
    # fixed seeds, no example database (one mutant's failures would be replayed on
    # the next), no shrinking (a failure is enough), no deadline (a loaded machine)
    settings.register_profile(
        "mutation-check",
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),
        print_blob=False,
    )
    settings.load_profile("mutation-check")


def pytest_collection_finish(session):
    # The mutants are in the copy's pure-Python source: the tests must run that, never
    # an installed engine nor the compiled core (engine/_core, reached through the
    # editable install's finder even from the copy).
    engine = sys.modules.get("engine")
    if engine is None:
        return
    root = Path.cwd().resolve()
    game = sys.modules.get("engine.game")
    for module in (engine, game):
        if module is not None and root not in Path(module.__file__).resolve().parents:
            raise pytest.UsageError(
                f"{GUARD}: the tests imported {module.__name__} from {module.__file__}, "
                f"not from the copy {root}"
            )
    if getattr(engine, "ENGINE", "reference") != "reference":
        raise pytest.UsageError(
            f"{GUARD}: the tests ran the {engine.ENGINE} engine, not the copy's source"
        )
'''


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # relative to the repository
    edits: tuple[tuple[str, str], ...]  # (old, new): each old found exactly once
    quick: bool = False  # in the CI subset (caught by a QUICK_FILES test)


def mutant(name: str, path: str, *pairs: str, quick: bool = False) -> Mutant:
    """``mutant(name, path, old, new[, old2, new2 ...])``."""
    assert pairs and len(pairs) % 2 == 0, name
    edits = tuple((pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2))
    return Mutant(name, path, edits, quick)


BOARD, STEPS = "engine/board.py", "engine/castle_steps.py"
STATE, POS = "engine/state.py", "engine/position.py"
TABLES, COMMON = "engine/rules/tables.py", "engine/rules/common.py"
TURN, SETUP, CARDS = "engine/rules/turn.py", "engine/rules/setup.py", "engine/rules/cards.py"
SCORING, MB = "engine/rules/scoring.py", "engine/rules/moveblock.py"
ACTIONS = "engine/rules/actions.py"

MUTANTS: list[Mutant] = [
    # ---- doors (§4): entry behind a taller neighbour, exits no higher than the start
    # and beside a taller square of the castle, never the start square
    mutant("door exit as high as its wall", BOARD,
           "found |= ORTH_MASK[m] & le[hm - 1 if hm <= level else level]",
           "found |= ORTH_MASK[m] & le[hm if hm <= level else level]", quick=True),
    mutant("door ends one higher", BOARD,
           "found |= ORTH_MASK[m] & le[hm - 1 if hm <= level else level]",
           "found |= ORTH_MASK[m] & le[hm - 1 if hm <= level + 1 else level + 1]"),
    mutant("door entry needs a wall two up", TURN,
           "if near & le[level] != near:", "if near & le[level + 1] != near:"),
    mutant("ground doors wrap rank 8 to rank 1", BOARD,
           "((m & _NOT_TOP) << 1) | ((m & _NOT_BOTTOM) >> 1) | (m << 8) | (m >> 8)",
           "(m << 1) | ((m & _NOT_BOTTOM) >> 1) | (m << 8) | (m >> 8)"),
    mutant("ground doors miss the next file", BOARD,
           "((m & _NOT_TOP) << 1) | ((m & _NOT_BOTTOM) >> 1) | (m << 8) | (m >> 8)",
           "((m & _NOT_TOP) << 1) | ((m & _NOT_BOTTOM) >> 1) | (m >> 8)"),
    mutant("door exit may be the start", TURN,
           "            found &= _NOT_BIT[a]  # a door", "            found &= ALL  # a door"),
    # ---- steps (§4): one level up at most, any number down
    mutant("step two up", TURN,
           "found = near & le[level + 1]  # steps", "found = near & le[level + 2]  # steps",
           quick=True),
    mutant("step down one level at most", TURN,
           "        found = near = ORTH_MASK[a]\n",
           "        near = ORTH_MASK[a]\n"
           "        found = near & ~le[level - 2] if level >= 2 else near\n",
           "found = near & le[level + 1]  # steps", "found &= le[level + 1]  # steps"),
    # ---- leap-frog (§4 scoring track)
    mutant("no leap-frog", COMMON,
           "    while target in scores:  # another's marker", "    if False:  # another's marker"),
    mutant("leap-frog one space only", COMMON,
           "    while target in scores:  # another's marker",
           "    if target in scores:  # another's marker"),
    mutant("score step skips leap-frog", TURN,
           "    st.ap -= 1\n    advance(st, st.to_move, 1)",
           "    st.ap -= 1\n    st.scores[st.to_move] += 1"),
    # ---- the king's bonus by phase (§7.2)
    mutant("king bonus at least the phase level", SCORING,
           "if h[k] == phase and comp[k] == kc:", "if h[k] >= phase and comp[k] == kc:",
           quick=True),
    mutant("king bonus on any castle", SCORING,
           "if h[k] == phase and comp[k] == kc:", "if h[k] == phase:"),
    mutant("king bonus of the next phase", SCORING,
           "return KING_BONUS[phase - 1]", "return KING_BONUS[phase % 3]"),
    mutant("king bonus 20", TABLES, "KING_BONUS = (5, 10, 15)", "KING_BONUS = (5, 10, 20)"),
    # ---- castle points (§7.1)
    mutant("castle points area + level", SCORING,
           "total += area[c] * lv", "total += area[c] + lv", quick=True),
    mutant("castle points of the first knight, not the highest", SCORING,
           "if lv > best.get(c, 0):", "if c not in best:"),
    mutant("phase scoring in seat order", SCORING,
           "order = [(st.phase_starter + i) % n for i in range(n)]", "order = list(range(n))"),
    mutant("lowest score tie goes to the last", SCORING,
           "st.to_move = min(order, key=lambda q: st.scores[q])",
           "st.to_move = min(reversed(order), key=lambda q: st.scores[q])"),
    mutant("stacks kept after the scoring", SCORING,
           "        st.supply += sum(st.stacks[p])\n        st.stacks[p] = []\n",
           "        pass\n"),
    # ---- height <= area (§1) when building
    mutant("build: castle one taller than its area", BOARD,
           "build |= m & levels[a - 1]", "build |= m & levels[a]", quick=True),
    mutant("build after a block: one taller than its area", STEPS,
           "found |= m & le[size - 1 if size <= top else top]",
           "found |= m & le[size if size <= top else top]"),
    mutant("build beside a castle two taller than its area", BOARD,
           "            if hc <= a + 1:\n                beside |= n",
           "            if hc <= a + 2:\n                beside |= n"),
    mutant("block squares near a new block kept", STEPS,
           "    found &= ~near\n    if hc <= size:", "    if hc <= size:"),
    mutant("build after moveblock: one taller than its area", COMMON,
           "found |= masks[c] & le[a - 1 if a <= top else top]",
           "found |= masks[c] & le[a if a <= top else top]"),
    mutant("build joining two castles", BOARD,
           "alone = bare & ~twice", "alone = bare"),
    # ---- pieces and building (§1): no block under a piece, knights next to own knights
    mutant("build under a piece (legal list)", ACTIONS,
           "                m = build_mask(st)\n            m &= free\n",
           "                m = build_mask(st)\n"),
    mutant("build under a piece (play)", TURN,
           "if not m & BIT[s] or st.occupant[s] != EMPTY:\n        explain_block",
           "if not m & BIT[s]:\n        explain_block"),
    mutant("add knight one level higher (legal list)", ACTIONS,
           "m |= _ORTH_MASK[k] & le[h[k]]", "m |= _ORTH_MASK[k] & le[h[k] + 1]"),
    mutant("add knight one level higher (play)", TURN,
           "m |= ORTH_MASK[k] & le[h[k]]\n    if not m", "m |= ORTH_MASK[k] & le[h[k] + 1]\n    if not m"),
    mutant("7 knights", TABLES, "MAX_KNIGHTS = 6", "MAX_KNIGHTS = 7"),
    # ---- blocks, stacks, draws, action points (§4)
    mutant("redistribution ties go to the last", TURN,
           "if s < MAX_STACK and (best < 0 or s < stacks[best]):",
           "if s < MAX_STACK and (best < 0 or s <= stacks[best]):"),
    mutant("redistribution onto full stacks", TURN,
           "room = sum(MAX_STACK - s for s in stacks if s < MAX_STACK)",
           "room = sum(MAX_STACK - s for s in stacks if s < MAX_STACK) + 1"),
    mutant("a bare square beside one castle refused as a join", COMMON,
           "    if len(touching) == 1:\n        c = touching[0]\n        area = cc.area[c] + 1",
           "    if len(touching) == 9:\n        c = touching[0]\n        area = cc.area[c] + 1"),
    mutant("redistribution's overflow lost", TURN,
           "st.supply += left - min(left, room)",
           "st.supply += left - min(left, room + 1)"),
    mutant("stacks of 4", TABLES, "MAX_STACK = 3", "MAX_STACK = 4"),
    mutant("default stack the lowest", TURN,
           "st.turn_stack = stacks.pop(stacks.index(max(stacks)))\n    st.turn_stack -= 1",
           "st.turn_stack = stacks.pop(stacks.index(min(stacks)))\n    st.turn_stack -= 1"),
    mutant("stack named twice", TURN,
           '    if st.turn_stack is not None:\n        raise illegal(a, "stack_chosen"',
           '    if False:\n        raise illegal(a, "stack_chosen"'),
    mutant("3 draws", TABLES, "MAX_DRAWS = 2", "MAX_DRAWS = 3"),
    mutant("personal draw: rest reversed", TURN,
           'st.decks[key] = (*rest, *deck) if where == "top" else (*deck, *rest)',
           'st.decks[key] = (*rest[::-1], *deck) if where == "top" else (*deck, *rest)'),
    mutant("6 action points a turn", TABLES, "BASE_AP = 5", "BASE_AP = 6"),
    # ---- phases and rounds per player count (§3)
    mutant("2p rounds 4/4/3", TABLES, "2: (4, 4, 4), 3", "2: (4, 4, 3), 3"),
    mutant("3p rounds 4/4/3", TABLES, "3: (4, 3, 3), 4", "3: (4, 4, 3), 4"),
    mutant("4p rounds 4/3/4", TABLES, "4: (4, 3, 3)}", "4: (4, 3, 4)}"),
    mutant("one round too many", TURN,
           "if st.round < ROUNDS[n][st.phase - 1]:", "if st.round <= ROUNDS[n][st.phase - 1]:"),
    mutant("3p stacks", TABLES, "3: ((3, 3, 2, 2), (3, 3, 2), (3, 3, 2)),",
           "3: ((3, 3, 3, 2), (3, 3, 2), (3, 3, 2)),"),
    mutant("4p stacks of 3", TABLES, "4: ((2, 2, 2, 2), (2, 2, 2), (2, 2, 2)),",
           "4: ((2, 2, 2, 2), (3, 2, 2), (2, 2, 2)),"),
    mutant("game ends after phase 2", SCORING,
           "    if st.phase >= 3:\n        st.stage = Stage.OVER",
           "    if st.phase >= 2:\n        st.stage = Stage.OVER"),
    # ---- cards (§6): targets and effect of each of the ten
    mutant("jump one level (legal list)", CARDS,
           "        top = h[a] + 2\n", "        top = h[a] + 1\n", quick=True),
    mutant("jump up to two levels (play)", CARDS,
           "    if h[dst] != h[src] + 2:", "    if h[dst] > h[src] + 2:"),
    mutant("lift onto a castle as tall as its area", CARDS,
           "return max(cc.height[c], hs + 1) <= cc.area[c]", "return hs <= cc.area[c]"),
    mutant("lift at level 0 starts no castle", CARDS,
           "    if not near:\n        return True\n", "    if not near:\n        return False\n"),
    mutant("lift joining two castles", CARDS,
           "    if not cc.front[c] & BIT[s]:  # next to another castle too\n        return False\n",
           ""),
    mutant("lift empties the whole stack", CARDS,
           "stacks[stacks.index(src)] -= 1", "stacks[stacks.index(src)] = 0"),
    mutant("lift listed from an empty turn stack", CARDS,
           'sources: list[int | str] = ["turn"] if st.turn_stack else []',
           'sources: list[int | str] = ["turn"] if st.turn_stack is not None else []'),
    mutant("extra with an empty supply (legal list)", CARDS,
           "def _extra_plays(st: State) -> list[str]:\n    if st.supply <= 0:",
           "def _extra_plays(st: State) -> list[str]:\n    if st.supply < 0:"),
    mutant("extra not taken from the supply", CARDS,
           "    add_block(st, s)\n    st.supply -= 1\n", "    add_block(st, s)\n"),
    mutant("extra under a knight (legal list)", CARDS,
           "m = build_mask(st) & ~st.pieces\n", "m = build_mask(st)\n"),
    mutant("extra under a knight (play)", CARDS,
           "if not build_mask(st) & ~st.pieces & BIT[s]:", "if not build_mask(st) & BIT[s]:"),
    mutant("doorclimb keeps the level limit", CARDS,
           "found |= cc.doors_up_to(h, cc.comp[t], top)",
           "found |= cc.doors_up_to(h, cc.comp[t], level)"),
    mutant("doorclimb without a taller wall", CARDS,
           "    for t in ORTH[a]:\n        if h[t] > level:\n            found |= cc.doors_up_to",
           "    for t in ORTH[a]:\n        if h[t] > 0:\n            found |= cc.doors_up_to"),
    mutant("diagonal two up (legal list)", CARDS,
           "        top = h[a] + 1\n        for t in DIAG[a]:",
           "        top = h[a] + 2\n        for t in DIAG[a]:"),
    mutant("diagonal card moves orthogonally too (play)", CARDS,
           "    if dst not in DIAG[src]:", "    if dst not in DIAG[src] and dst not in ORTH[src]:"),
    mutant("diagonal and vault land two up (play)", CARDS,
           "    if h[dst] > h[src] + 1:", "    if h[dst] > h[src] + 2:"),
    mutant("ap6 gives 2", CARDS, "    st.ap += 1\n", "    st.ap += 2\n"),
    mutant("ap7 gives 1", CARDS, "    st.ap += 2\n", "    st.ap += 1\n"),
    mutant("moveblock leaving 5 castles (on a castle)", MB,
           "        if n2 >= 6:", "        if n2 >= 5:"),
    mutant("moveblock leaving 5 castles (extending one)", MB,
           "elif len(touch) == 1 and n2 >= 6:", "elif len(touch) == 1 and n2 >= 5:"),
    mutant("moveblock splits a castle", MB,
           "if area_a > 0 and _is_cut(a, members[ca], comp):",
           "if area_a > 0 and False:"),
    mutant("moveblock from under a piece", MB,
           "    sources = blocks & free\n", "    sources = blocks\n"),
    mutant("moveblock onto a castle taller than its area", MB,
           "            g = on[c] & le[a_c - 1 if a_c <= top else top]",
           "            g = on[c] & le[a_c if a_c <= top else top]"),
    mutant("moveblock copies the block", MB,
           "    h[src] -= 1\n    cc = st.castles\n", "    cc = st.castles\n"),
    mutant("relocate next to itself (play)", TURN,
           "        if k == without:\n            continue\n", ""),
    mutant("relocate next to itself (legal list)", CARDS,
           "            if j != i:\n                m |= n", "            if True:\n                m |= n"),
    mutant("relocate one level higher (legal list)", CARDS,
           "near = [ORTH_MASK[k] & le[h[k]] & free for k in mine]",
           "near = [ORTH_MASK[k] & le[h[k] + 1] & free for k in mine]"),
    mutant("vault over the king (legal list)", CARDS,
           "        for over, land in VAULTS[a]:\n            if 0 <= occ[over] < KING",
           "        for over, land in VAULTS[a]:\n            if occ[over] != EMPTY"),
    mutant("vault over the king (play)", CARDS,
           '    if st.occupant[over] == KING:\n        raise illegal(a, "vault_over_king"',
           '    if False:\n        raise illegal(a, "vault_over_king"'),
    mutant("vault over an empty square (legal list)", CARDS,
           "        for over, land in VAULTS[a]:\n            if 0 <= occ[over] < KING",
           "        for over, land in VAULTS[a]:\n            if occ[over] < KING"),
    mutant("card drawn this turn playable", CARDS,
           "        if not drawn or hand.count(card) > drawn.count(card):",
           "        if not drawn or hand.count(card) >= drawn.count(card):"),
    mutant("card drawn this turn playable (play)", CARDS,
           "if hand.count(card) <= st.drawn.count(card):", "if hand.count(card) < st.drawn.count(card):"),
    mutant("two cards a turn", CARDS,
           '    if st.played:\n        raise illegal(a, "card_played")',
           '    if False:\n        raise illegal(a, "card_played")'),
    # ---- master version (§8)
    mutant("master leader ignored", SETUP,
           "    if best <= 0:\n        return fallback\n    return st.scores.index(best)",
           "    return fallback"),
    mutant("master: border bonus shared on a tie", SCORING,
           "if best > 0 and counts.count(best) == 1:", "if best > 0:"),
    mutant("master: border points of phase 2 in phase 3", SCORING,
           "PER_KNIGHT = (2, 5, 10)", "PER_KNIGHT = (2, 5, 5)"),
    mutant("master: castles at least the number", SCORING,
           "== CASTLES_NEEDED[phase - 1]:", ">= CASTLES_NEEDED[phase - 1]:"),
    mutant("master: castles counts level 0", SCORING,
           "return len({comp[k] for k in knights if h[k] >= 1})",
           "return len({comp[k] for k in knights if h[k] >= 0})"),
    mutant("master: formations scored every phase", SCORING,
           "    if phase == 3:\n        for p in range(n):\n            pts[p] = formation",
           "    if True:\n        for p in range(n):\n            pts[p] = formation"),
    mutant("master: one knight makes a formation", SCORING,
           "if len(ks) < 2:", "if len(ks) < 1:"),
    mutant("master: square aligned only", SCORING,
           "if (f - dy, r + dx) in have and (g - dy, q + dx) in have:",
           "if dx * dy == 0 and (f - dy, r + dx) in have and (g - dy, q + dx) in have:"),
    mutant("master: row along a diagonal too", SCORING,
           "met = len({k % 8 for k in ks}) == 1 or len({k // 8 for k in ks}) == 1",
           "met = len({k % 8 for k in ks}) == 1 or len({k // 8 for k in ks}) == 1"
           " or len({k % 8 - k // 8 for k in ks}) == 1"),
    mutant("master: castle placement 2 apart", SETUP,
           "for gap in (3, 2):  # Ruling", "for gap in (2, 3):  # Ruling"),
    # ---- undo (§9): never across a draw or a kept card
    mutant("undo across a draw", TURN,
           '    st.ap -= 1\n    st.undo.clear()\n    if st.variant == "common":',
           '    st.ap -= 1\n    if st.variant == "common":'),
    mutant("undo across a kept card", TURN,
           "    st.stage = Stage.PLAY\n    st.undo.clear()\n", "    st.stage = Stage.PLAY\n"),
    mutant("undo across a personal draw", TURN,
           '    st.undo.clear()\n    if st.variant == "common":\n        card = deck[0]',
           '    if st.variant == "common":\n        st.undo.clear()\n        card = deck[0]',
           "    st.stage = Stage.PLAY\n    st.undo.clear()\n", "    st.stage = Stage.PLAY\n"),
    mutant("undo of a score keeps the score", STATE,
           '        elif kind == "score":\n            scores = tuple(self.scores)\n',
           '        elif kind == "score":\n            stacks = tuple(self.stacks[p])\n'),
    # ---- hidden hands in positions (§5)
    mutant("viewer sees every hand", POS,
           "if hide and (owner is None or owner != seat):", "if hide and owner is None:",
           quick=True),
    mutant("viewer sees the deck", POS,
           "decks[key if isinstance(key, str) else names[key]] = cards(None, lst)",
           "decks[key if isinstance(key, str) else names[key]] = list(lst)"),
    mutant("viewer sees the seed", POS,
           '"seed": None if hide else st.seed,', '"seed": st.seed,'),
]  # fmt: skip

# name -> why no behaviour can differ (the mutant is kept: it shows the check works)
EQUIVALENT: dict[str, str] = {
    "door exit may be the start": (
        "the start square holds the moving knight itself, and every move target is "
        "masked with the empty squares (move_targets, do_move's occupant check)"
    ),
    "undo across a kept card": (
        "draw already emptied the undo stack, and between draw and keep no other "
        "action is allowed (stage draw-keep): the stack keep clears is always empty"
    ),
    "build beside a castle two taller than its area": (
        "no play makes a castle taller than its area (§1), so a castle is never more "
        "than area + 1 tall and `hc <= a + 1` is always true; only a position written "
        "by hand against §1 could tell"
    ),
}


@dataclass
class Result:
    name: str
    status: str  # "caught", "survived", "non-rules", "equivalent", "equivalent caught"
    detail: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.status in ("caught", "equivalent")

    def line(self) -> str:
        return f"{self.name:52s} {self.detail} ({self.seconds:.0f}s)"


class CheckError(Exception):
    """The check cannot give a figure: a pattern does not apply, or the tests fail unmutated."""


def mutated(text: str, m: Mutant) -> str:
    """``text`` with ``m``'s edits; CheckError unless each old text is found exactly once."""
    for old, new in m.edits:
        n = text.count(old)
        if n != 1:
            first = old.strip().splitlines()[0] if old.strip() else repr(old)
            raise CheckError(
                f"mutant {m.name!r} does not apply: in {m.path}, the pattern {first!r}"
                f"{' (and more lines)' if old.strip().count(chr(10)) else ''} is found "
                f"{n} times, not once. The engine changed there: anchor the mutant on the "
                f"new lines (tests/engine/mutation_check.py, MUTANTS)."
            )
        text = text.replace(old, new)
    return text


def check_patterns(repo: Path, mutants: Sequence[Mutant]) -> list[str]:
    """Every mutant that does not apply to ``repo``'s files, with why."""
    errors = []
    for m in mutants:
        try:
            text = mutated((repo / m.path).read_text(), m)
            if m.path.endswith(".py"):
                compile(text, m.path, "exec")  # a syntax error is no rule bug
        except SyntaxError as e:
            errors.append(f"mutant {m.name!r} is no valid Python: {e}")
        except CheckError as e:
            errors.append(str(e))
        except FileNotFoundError:
            errors.append(f"mutant {m.name!r} does not apply: {m.path} does not exist")
    return errors


def rules_files(repo: Path, quick: bool = False) -> list[str]:
    """The rules test modules to run, in ``RULES_ORDER`` (QUICK_FILES only if quick)."""
    if quick:
        return [f"{TESTS}/{f}" for f in QUICK_FILES]
    found = sorted(p.name for p in (repo / TESTS).glob("test_rules_*.py"))
    order = [f for f in RULES_ORDER if f in found] + [f for f in found if f not in RULES_ORDER]
    return [f"{TESTS}/{f}" for f in order]


def other_files(repo: Path) -> list[str]:
    """The engine's test modules that are not rules tests (run on survivors only)."""
    return [
        f"{TESTS}/{p.name}"
        for p in sorted((repo / TESTS).glob("test_*.py"))
        if not p.name.startswith("test_rules_") and p.name not in NOT_RUN
    ]


_FAILED = re.compile(r"^(FAILED|ERROR) (\S+(?:\[.*?\])?)")


def run_tests(root: Path, files: Sequence[str], timeout: float) -> tuple[bool, str, str]:
    """Run pytest on ``files`` in ``root``: (passed, the first failing test, output)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a mutant of the same size must not reuse a .pyc
    env["TORRES_ENGINE"] = "reference"  # the mutated source, never the compiled core
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider"]
    cmd += ["-p", PLUGIN, *files]
    try:
        proc = subprocess.run(
            cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode()
        return False, f"a time-out after {timeout:.0f}s (an endless loop?)", out
    out = proc.stdout + proc.stderr
    if "mutation-check guard" in out:  # the run tested something else: no verdict at all
        raise CheckError(tail(out, 5))
    if proc.returncode == 0:
        return True, "", out
    for line in out.splitlines():
        found = _FAILED.match(line)
        if found:
            what = " (an error, not a failed assertion)" if found.group(1) == "ERROR" else ""
            return False, found.group(2) + what, out
    return False, f"pytest exit status {proc.returncode} (no test named)", out


def copy_tree(repo: Path, dest: Path) -> None:
    """Everything the tests may read (docs/, pyproject.toml, ...), as in the working
    tree: in a git checkout the files git tracks or would track (not .venv, demo/ or
    other ignored output), else every file but caches."""
    files = git_files(repo)
    if files is None:
        shutil.copytree(repo, dest, ignore=shutil.ignore_patterns(*COPY_IGNORE), symlinks=True)
    else:
        for name in files:
            src = repo / name
            if src.is_file():  # not a file deleted but not yet committed
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / name)
    (dest / f"{PLUGIN}.py").write_text(PLUGIN_TEXT)


def git_files(repo: Path) -> list[str] | None:
    """The files of ``repo`` git tracks or does not ignore (None: not the top of a checkout)."""
    try:
        top = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
        )
        if top.returncode or Path(top.stdout.strip()).resolve() != repo.resolve():
            return None
        listed = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z", "-co", "--exclude-standard"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return [name for name in listed.stdout.split("\0") if name]


def run_check(
    repo: Path,
    mutants: Sequence[Mutant],
    *,
    quick: bool = False,
    equivalent: dict[str, str] | None = None,
    log: Callable[[str], None] = print,
) -> list[Result]:
    """Run every mutant of ``mutants`` on a copy of ``repo`` (see the module docstring).

    :raises CheckError: if a mutant does not apply, or the unmutated copy fails.
    """
    equivalent = EQUIVALENT if equivalent is None else equivalent
    errors = check_patterns(repo, mutants)
    if errors:
        raise CheckError("\n".join(errors))
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="mutation-") as tmp:
        root = Path(tmp) / "repo"
        copy_tree(repo, root)
        rules = rules_files(root, quick)
        others = other_files(root)
        t0 = time.monotonic()
        passed, first, out = run_tests(root, rules, timeout=1800)
        base = time.monotonic() - t0
        if not passed:
            raise CheckError(
                f"the rules tests fail on the UNMUTATED copy ({first}), so no mutant "
                f"can be judged; fix that first.\n{tail(out)}"
            )
        log(f"unmutated copy: {len(rules)} rules test files pass ({base:.0f}s)")
        timeout = max(300.0, 10 * base)
        others_ok: bool | None = None
        for m in mutants:
            path = root / m.path
            original = path.read_text()
            path.write_text(mutated(original, m))
            t0 = time.monotonic()
            try:
                passed, first, out = run_tests(root, rules, timeout)
                if passed and others:
                    if others_ok is None:  # the other tests must pass unmutated too
                        path.write_text(original)
                        others_ok, why, other_out = run_tests(root, others, 1800)
                        if not others_ok:
                            raise CheckError(
                                f"the non-rules engine tests fail on the UNMUTATED copy "
                                f"({why}).\n{tail(other_out)}"
                            )
                        path.write_text(mutated(original, m))
                    other_passed, other_first, _ = run_tests(root, others, timeout)
                else:
                    other_passed, other_first = True, ""
            finally:
                path.write_text(original)
            caught_by = "" if passed else first
            also = "" if other_passed else other_first
            r = Result(m.name, *judge(m.name, caught_by, also, equivalent), time.monotonic() - t0)
            log(r.line())
            results.append(r)
    return results


def judge(name: str, caught_by: str, other: str, equivalent: dict[str, str]) -> tuple[str, str]:
    """(status, detail) of a mutant the rules tests caught (``caught_by``: the first
    failing test) or not, and that the other engine tests caught (``other``) or not."""
    if caught_by:
        if name in equivalent:
            return "equivalent caught", f"LISTED AS EQUIVALENT but caught by {caught_by}"
        return "caught", f"caught by {caught_by}"
    if name in equivalent:
        return "equivalent", f"survived: equivalent ({equivalent[name]})"
    if other:
        return "non-rules", f"SURVIVED the rules tests; caught only by {other} (not a rules test)"
    return "survived", "SURVIVED every engine test"


def tail(out: str, lines: int = 30) -> str:
    return "\n".join(out.splitlines()[-lines:])


def summary(results: Sequence[Result], seconds: float) -> str:
    caught = sum(r.status == "caught" for r in results)
    eq = sum(r.status == "equivalent" for r in results)
    bad = [r for r in results if not r.ok]
    text = (
        f"{caught} of {len(results)} applied mutants caught by a rules test; "
        f"{eq} equivalent; {len(bad)} not caught; {seconds / 60:.1f} min"
    )
    for r in bad:
        text += f"\n  NOT CAUGHT: {r.name}: {r.detail}"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the CI subset: quick mutants, fast files")
    ap.add_argument("--only", action="append", default=[], help="a mutant's name (repeatable)")
    ap.add_argument("--patterns", action="store_true", help="only check that every mutant applies")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.quick or m.quick]
    if args.only:
        unknown = set(args.only) - {m.name for m in MUTANTS}
        if unknown:
            print(f"no such mutant: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        chosen = [m for m in chosen if m.name in args.only]
    if args.patterns:
        errors = check_patterns(REPO, MUTANTS)
        print("\n".join(errors) or f"all {len(MUTANTS)} mutants apply")
        return 1 if errors else 0
    t0 = time.monotonic()
    try:
        results = run_check(REPO, chosen, quick=args.quick)
    except CheckError as e:
        print(f"MUTATION CHECK FAILED: {e}", file=sys.stderr)
        return 1
    print(summary(results, time.monotonic() - t0))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
