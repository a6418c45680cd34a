"""Engine speed, optionally side by side with another commit.

Random players choose uniformly among ``legal()``.  Figures (nothing is asserted):

- whole random games: CPU ms per game (median) and games per CPU second; then the same
  games played again in the same process, with every action text and other table the
  engine keeps across games already made: what the rest of the engine costs, and so
  a bound on what caching more could gain (the second time also gains from warming
  up: an engine that keeps nothing across games is a few per cent faster on it too);
- ``legal()`` on mid-game positions, just after an action (no cached list);
- ``Game.from_position(p).legal()`` on freshly loaded mid-game positions, each board
  new to the process, then the same positions again (as a search loads samples of
  one board);
- ``copy()``, and ``copy()`` + ``play()`` of each legal action.

Run from the repository root::

    python bench/engine_bench.py [--games N] [--variant V]
    python bench/engine_bench.py --baseline main        # this tree next to main
    python bench/engine_bench.py --baseline HEAD~3 --rounds 5

Without ``--baseline`` it measures this tree's two engines side by side, the
pure-Python reference (``TORRES_ENGINE=reference``) and the compiled core, each in
its own interpreter, alternating ``--rounds`` times (the reference alone if the core
is not built).  With ``--baseline`` both trees run with the engine ``TORRES_ENGINE``
selects.

With ``--baseline REV`` the script makes a ``git worktree`` of REV in a temporary
directory and runs the very same measurements (this file) on both engines, each in
a subprocess, alternating ``--rounds`` times; every figure is the best round, which
is the one least disturbed by other work on a shared machine.  The whole-game figures
take each game's best round (every round plays the same games in the same order, so
the engine's caches stand alike): bursts of other work on the machine then move them
little.  Times are CPU time of the measuring process (``time.process_time``), not
wall time; the per-call figures run with the garbage collector paused, as ``timeit``
does (whole games not).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
_clock = time.process_time

# (key, label, unit, scale from seconds) in print order
FIGURES = [
    ("game_ms", "whole game (median)", "ms/game", 1e3),
    ("games_per_s", "whole games", "games/s", 1.0),
    ("again_game_ms", "  the same games again (median)", "ms/game", 1e3),
    ("legal_us", "legal() mid-game, after an action", "us", 1e6),
    ("load_legal_us", "from_position(p).legal(), fresh", "us", 1e6),
    ("again_us", "  the same positions loaded again", "us", 1e6),
    ("load_us", "from_position(p) alone", "us", 1e6),
    ("copy_us", "copy()", "us", 1e6),
    ("copy_play_us", "copy()+play() per legal action", "us", 1e6),
]


def random_game(game_cls: Any, seed: int, players: int, variant: str) -> tuple[float, list, int]:
    """Play one game; return its CPU time, turn starts of phase 2 and its length."""
    rng = random.Random(seed)
    game = game_cls.new(players, variant=variant, seed=seed)
    mid = []
    actions = 0
    start = _clock()
    while not game.over:
        game.play(rng.choice(game.legal()))
        actions += 1
        if game.phase == 2 and game.stage == "play" and game.ap == 5 and len(mid) < 4:
            mid.append(game.copy())
    return _clock() - start, mid, actions


def _batch(fn: Any, items: list, reps: int) -> float:
    """CPU seconds per item of ``fn(item)``, best of ``reps`` passes over ``items``."""
    best = float("inf")
    for _ in range(reps):
        gc.collect()
        gc.disable()  # as timeit does: thousands of live copies make collections dominate
        start = _clock()
        for it in items:
            fn(it)
        best = min(best, (_clock() - start) / len(items))
        gc.enable()
    return best


def _fresh(fn: Any, items: list, reps: int) -> float:
    """As ``_batch``, with the engine's tables by board (if it keeps any) emptied before
    each pass: every board is new to the engine, as in a game loaded from the store."""
    import importlib

    try:  # engines before the rule modules (engine/rules/) keep no tables by board
        common = importlib.import_module("engine.rules.common")
    except ImportError:
        common = None
    best = float("inf")
    for _ in range(reps):
        tables = getattr(common, "_TABLES", None)
        if tables is not None:
            tables.clear()
        gc.collect()
        gc.disable()  # as timeit does: thousands of live copies make collections dominate
        start = _clock()
        for it in items:
            fn(it)
        best = min(best, (_clock() - start) / len(items))
        gc.enable()
    return best


def measure(root: Path, games: int, players: int, variant: str) -> dict[str, Any]:
    """Every figure, for the engine found under ``root``."""
    sys.path.insert(0, str(root))
    from engine import Game

    times: list[float] = []
    lengths: list[int] = []
    mids: list[Any] = []
    for seed in range(games):
        t, mid, n = random_game(Game, seed, players, variant)
        times.append(t)
        lengths.append(n)
        mids.extend(mid)
    # before the many live copies below (the collector's passes would slow these games)
    again = [random_game(Game, seed, players, variant)[0] for seed in range(games)]

    # legal() just after an action: every legal action of every mid-game position, played
    # on a fresh copy each pass (so that nothing computed in an earlier pass is reused).
    pairs = [(g, m) for g in mids for m in g.legal()]

    def after_actions() -> list[Any]:
        out = []
        for g, m in pairs:
            c = g.copy()
            c.play(m)
            if not c.over:
                out.append(c)
        return out

    legal_us = min(_batch(lambda c: c.legal(), after_actions(), 1) for _ in range(3))

    positions = [g.position() for g in mids]
    return {
        "games": games,
        "actions": statistics.median(lengths),
        "positions": len(mids),
        "checksum": sum(lengths),
        "game_ms": statistics.median(times),
        "games_per_s": games / sum(times),
        "game_times": times,
        "again_game_ms": statistics.median(again),
        "again_times": again,
        "legal_us": legal_us,
        "load_legal_us": _fresh(lambda p: Game.from_position(p).legal(), positions, 5),
        "again_us": _batch(lambda p: Game.from_position(p).legal(), positions, 5),
        "load_us": _batch(Game.from_position, positions, 5),
        "copy_us": _batch(lambda g: g.copy(), mids * 50, 3),
        "copy_play_us": _batch(lambda gm: gm[0].copy().play(gm[1]), pairs, 3),
    }


def _run(root: Path, args: argparse.Namespace, engine: str | None = None) -> dict[str, Any]:
    """``measure`` in a fresh interpreter (so that both engines start equal); ``engine``:
    TORRES_ENGINE for it (None: as in this process)."""
    cmd = [sys.executable, __file__, "--json", "--root", str(root)]
    cmd += ["--games", str(args.games), "--players", str(args.players)]
    cmd += ["--variant", args.variant]
    env = dict(os.environ)
    if engine is not None:
        env["TORRES_ENGINE"] = engine
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def _engines(args: argparse.Namespace) -> None:
    """This tree's reference and compiled core, side by side."""
    head = f"{args.players}-player {args.variant}"
    probe = [sys.executable, "-c", "import engine; print(engine.ENGINE_NOTE)"]
    env = {**os.environ, "TORRES_ENGINE": "core"}
    core = subprocess.run(probe, capture_output=True, text=True, env=env, cwd=REPO)
    if core.returncode != 0:
        print(f"the compiled core is not built: the reference alone ({core.stderr.strip()[-200:]})")
        runs = [_run(REPO, args, "reference") for _ in range(args.rounds)]
        _report(head, [("reference", _best(runs))])
        return
    reference: list[dict[str, Any]] = []
    compiled: list[dict[str, Any]] = []
    for _ in range(args.rounds):
        reference.append(_run(REPO, args, "reference"))
        compiled.append(_run(REPO, args, "core"))
    _report(head, [("reference", _best(reference)), ("core", _best(compiled))])
    print("aims (issue 37): whole games >= 5x, fresh legal() >= 5x, legal() after an action >= 3x")


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure from the round least disturbed by other work; the whole-game figures
    from each game's least disturbed round (every round plays the same games in the
    same order in a fresh interpreter, so its caches stand as in the others)."""
    best = dict(runs[0])
    for key, _label, unit, _scale in FIGURES:
        if unit not in ("ms/game", "games/s"):  # the per-call figures
            best[key] = min(r[key] for r in runs)
    fastest = [min(ts) for ts in zip(*(r["game_times"] for r in runs), strict=True)]
    best["game_ms"] = statistics.median(fastest)
    best["games_per_s"] = len(fastest) / sum(fastest)
    again = [min(ts) for ts in zip(*(r["again_times"] for r in runs), strict=True)]
    best["again_game_ms"] = statistics.median(again)
    return best


def _fmt(key: str, value: float) -> str:
    scale = next(s for k, _l, _u, s in FIGURES if k == key)
    return f"{value * scale:10.3f}" if scale > 1 else f"{value:10.1f}"


def _report(head: str, results: list[tuple[str, dict[str, Any]]]) -> None:
    first = results[0][1]
    print(
        f"{head}: {first['games']} random games, median {first['actions']:.0f} actions each, "
        f"{first['positions']} mid-game positions"
    )
    labels = "".join(f"{name[:12]:>12}" for name, _r in results)
    speedup = "    speed-up" if len(results) == 2 else ""
    print(f"{'':38}{'unit':>9}{labels}{speedup}")
    for key, label, unit, _scale in FIGURES:
        row = "".join(f"{_fmt(key, r[key]):>12}" for _name, r in results)
        if len(results) == 2:
            old, new = results[0][1][key], results[1][1][key]
            ratio = new / old if unit == "games/s" else old / new
            row += f"{ratio:11.2f}x"
        print(f"{label:38}{unit:>9}{row}")
    if len(results) == 2 and results[0][1]["checksum"] != results[1][1]["checksum"]:
        print(
            "WARNING: the two engines play different games (total actions "
            f"{results[0][1]['checksum']} and {results[1][1]['checksum']}): a rule changed "
            "between them, or legal() lists actions in another order, so the whole-game "
            "figures compare different games of about the same length."
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="common")
    parser.add_argument("--baseline", metavar="REV", help="also measure this commit, side by side")
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs per engine")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.json:
        print(json.dumps(measure(args.root, args.games, args.players, args.variant)))
        return
    head = f"{args.players}-player {args.variant}"
    if not args.baseline:
        _engines(args)
        return
    rev = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", args.baseline],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="engine-bench-") as tmp:
        wt = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(wt), rev],
            check=True,
        )
        try:
            old: list[dict[str, Any]] = []
            new: list[dict[str, Any]] = []
            for _ in range(args.rounds):
                old.append(_run(wt, args))
                new.append(_run(REPO, args))
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(wt)], check=False
            )
    _report(head, [(rev, _best(old)), ("this tree", _best(new))])


if __name__ == "__main__":
    main()
