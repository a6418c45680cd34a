"""How strong and how fast are the computer players?

Plays four-player games in which one computer player (the "hero") of a level meets
three of a weaker level, rotating the hero's seat game by game, and prints the
hero's win rate with a 95% Wilson interval plus the time per decision.

    python bench/ai_bench.py                       # 100 games per pairing, 1 s search
    python bench/ai_bench.py --games 20 --seconds 0.3 --pairings search-random
    python bench/ai_bench.py --games 200 --pairings expert-search --variant all

``--seconds`` is the budget of the two searching levels (expert and search alike, so
a pairing between them is at equal time per decision). ``--variant all`` cycles the
common, personal and master variants game by game.

A win is a game the hero ends with the highest score (a shared top score counts
as a win and is reported as a tie). Games run in parallel (``--workers``). Besides
the win rate: the hero's mean score over the opponents' mean (0 for an even match,
where the margin over the best opponent is negative), wins by variant, and with
``--out FILE`` one JSON line per game, for comparing two versions seed by seed.

What the engine's speed buys (docs/engine-speed.md)::

    python bench/ai_bench.py --pairings expert-expert --engines core,reference \
        --games 200 --seconds 0.05

``--engines HERO,OTHERS`` makes each seat's decisions in a process of its own running
that engine (``TORRES_ENGINE``), the game itself going on in the worker. The two
engines are first timed on the same ``expert`` decisions at a fixed number of
evaluated positions (CPU time, alternating); each engine's player then gets the
positions per second its engine reaches (``engine.ai.NODES_PER_SECOND`` scaled by
that ratio for the faster one), so both levels take the same time per decision and
the faster engine's player looks at more positions (the wall clock cuts no decision
short: on a shared machine it would cut the player that does more work). The engines are equal list for
list (tests/engine/test_engines_equal.py): at an equal number of positions the two
would choose alike, so the difference in results is what the speed buys.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game  # noqa: E402
from engine.ai import NODES_PER_SECOND, choose_actions  # noqa: E402
from engine.rules.tables import VARIANTS  # noqa: E402

PAIRINGS = {
    "expert-expert": ("expert", "expert"),  # with --engines: the same level on two engines
    "expert-search": ("expert", "search"),
    "expert-random": ("expert", "random"),
    "expert-heuristic": ("expert", "heuristic"),
    "search-random": ("search", "random"),
    "search-heuristic": ("search", "heuristic"),
    "heuristic-random": ("heuristic", "random"),
}
NAMES = ["red", "blue", "green", "yellow"]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# ---------------------------------------------------------------- one engine per seat

ENGINES = ("core", "reference")
CALIBRATION_NODES = 2000  # evaluated positions per timed decision


class Decider:
    """A process running ``engine`` that makes the decisions it is sent (``--decider``)."""

    def __init__(self, engine: str) -> None:
        env = {**os.environ, "TORRES_ENGINE": engine}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--decider"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        running = self.ask({"hello": True})["engine"]
        if running != engine:
            raise RuntimeError(f"asked for the {engine} engine, the decider runs the {running}")

    def ask(self, request: dict) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the decider process ended")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


_DECIDERS: dict[str, Decider] = {}  # per worker process, by engine


def _decider(engine: str) -> Decider:
    if engine not in _DECIDERS:
        _DECIDERS[engine] = Decider(engine)
    return _DECIDERS[engine]


def _calibration_positions(n: int) -> list[Any]:
    """Turn starts of the second phase of random 4-player games (a fixed set)."""
    out = []
    seed = 0
    while len(out) < n:
        rng = random.Random(seed)
        game = Game.new(4, seed=seed)
        while not game.over and len(out) < n:
            game.play(rng.choice(game.legal()))
            if game.phase == 2 and game.stage == "play" and game.ap == 5:
                out.append(game.position())
                break
        seed += 1
    return out


def serve_decisions() -> None:
    """``--decider``: answer one JSON request a line (hello, calibrate, decide)."""
    import engine
    import engine.ai

    # Decisions stop on positions alone, never on the wall clock: a busy machine then
    # cuts neither player short, and equal time is the calibrated positions per second.
    engine.ai._SAFETY = 1e6
    for line in sys.stdin:
        req = json.loads(line)
        if "hello" in req:
            out: dict[str, Any] = {"engine": engine.ENGINE}
        elif "calibrate" in req:  # CPU seconds for the same decisions at a fixed node count
            positions = _calibration_positions(req["calibrate"])
            engine.ai.NODES_PER_SECOND = CALIBRATION_NODES // 1000  # 1000 s: no deadline
            c0 = time.process_time()
            for i, pos in enumerate(positions):
                choose_actions(Game.from_position(pos), 1000.0, level="expert", seed=i)
            out = {"cpu": time.process_time() - c0}
        else:
            engine.ai.NODES_PER_SECOND = req["nodes_per_second"]
            game = Game.from_position(req["position"])
            t0, c0 = time.perf_counter(), time.process_time()
            actions = choose_actions(game, req["seconds"], level=req["level"], seed=req["seed"])
            out = {
                "actions": actions,
                "wall": time.perf_counter() - t0,
                "cpu": time.process_time() - c0,
            }
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


def calibrate(engines: tuple[str, str], positions: int, rounds: int) -> dict[str, float]:
    """CPU seconds of each engine for the same expert decisions (best of ``rounds``,
    the engines alternating): the speed of the computer players on each engine."""
    deciders = {e: Decider(e) for e in set(engines)}
    best = dict.fromkeys(deciders, float("inf"))
    try:
        for _ in range(rounds):
            for e, d in deciders.items():
                best[e] = min(best[e], d.ask({"calibrate": positions})["cpu"])
    finally:
        for d in deciders.values():
            d.close()
    return best


def play_game(task: tuple, watch: Callable[[str, list[str], list], None] | None = None) -> tuple:
    """Play the game of ``task``; return it, the hero's name and the decision times.

    ``watch(player, actions, events)``, if given, sees every decision as it is played
    (``ai_breakdown.py`` counts from it); the decisions are the same either way.  A
    ninth item of ``task``, (hero's engine, others' engine, hero's nodes per second,
    others'), has each decision made by a process running the seat's engine."""
    hero_level, other_level, seat, seed, variant, seconds, other_seconds, players = task[:8]
    engines = task[8] if len(task) > 8 else None
    names = NAMES[:players]
    levels = {p: other_level for p in names}
    hero = names[seat]
    levels[hero] = hero_level
    game = Game.new(players=players, names=names, variant=variant, seed=seed)
    times: dict[str, list[float]] = {"hero": [], "others": [], "hero_cpu": []}
    n = 0
    while game.stage != "over":
        p = game.to_move
        budget = seconds if p == hero else other_seconds
        t0, c0 = time.perf_counter(), time.process_time()
        if engines is None:
            actions = choose_actions(game, budget, level=levels[p], seed=seed * 1000 + n)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        else:
            answer = _decider(engines[0] if p == hero else engines[1]).ask(
                {
                    "position": game.position(),
                    "seconds": budget,
                    "level": levels[p],
                    "seed": seed * 1000 + n,
                    "nodes_per_second": engines[2] if p == hero else engines[3],
                }
            )
            actions, wall, cpu = answer["actions"], answer["wall"], answer["cpu"]
            if p != hero:
                times.setdefault("others_cpu", []).append(cpu)
        times["hero" if p == hero else "others"].append(wall)
        if p == hero:
            times["hero_cpu"].append(cpu)
        events = game.play("; ".join(actions))
        if watch is not None:
            watch(p, actions, events)
        n += 1
    return game, hero, times


def play_one(task: tuple) -> dict:
    """One game; returns the hero's result and decision times per level."""
    game, hero, times = play_game(task)
    _hero_level, _other_level, seat, seed, variant = task[:5]
    top = max(game.scores.values())
    others = [s for q, s in game.scores.items() if q != hero]
    return {
        "seed": seed,
        "seat": seat,
        "variant": variant,
        "others_mean": statistics.fmean(others),
        "win": hero in game.winners,
        "tie": hero in game.winners and len(game.winners) > 1,
        "score": game.scores[hero],
        "margin": game.scores[hero] - max(s for q, s in game.scores.items() if q != hero),
        "top": top,
        "times": times,
    }


def budgets(seconds: float, heuristic_seconds: float) -> dict[str, float]:
    """Seconds per decision by level: the two searching levels at equal time."""
    return {"expert": seconds, "search": seconds, "heuristic": heuristic_seconds, "random": 0.05}


def game_tasks(
    hero: str,
    other: str,
    games: int,
    seed: int,
    variants: tuple[str, ...],
    budget: dict[str, float],
    players: int = 4,
    engines: tuple | None = None,
) -> list[tuple]:
    """The games of one pairing: the hero's seat rotating game by game, the variants
    in turn a round of seats at a time (so a seed's variant depends on its place in
    the run), for ``play_game``."""
    return [
        (
            hero,
            other,
            i % players,
            seed + i,
            variants[(i // players) % len(variants)],
            budget[hero],
            budget[other],
            players,
            *([engines] if engines is not None else []),
        )
        for i in range(games)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per pairing")
    parser.add_argument("--seconds", type=float, default=1.0, help="search budget per decision")
    parser.add_argument(
        "--heuristic-seconds", type=float, default=0.2, help="heuristic budget per decision"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--variant", default="common", choices=("common", "personal", "master", "all")
    )
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument(
        "--pairings", default=",".join(PAIRINGS), help=f"comma list of {', '.join(PAIRINGS)}"
    )
    parser.add_argument(
        "--out", help="also write one JSON line per game (seed, variant, seat, result) here"
    )
    parser.add_argument(
        "--engines",
        metavar="HERO,OTHERS",
        help="each seat's decisions on this engine (core or reference), at equal time",
    )
    parser.add_argument(
        "--calibration", type=int, default=12, help="decisions timed per engine (--engines)"
    )
    parser.add_argument("--decider", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.decider:
        serve_decisions()
        return 0
    chosen = [p.strip() for p in args.pairings.split(",") if p.strip()]
    for name in chosen:
        if name not in PAIRINGS:
            parser.error(f"unknown pairing {name!r}")
    budget = budgets(args.seconds, args.heuristic_seconds)
    variants = VARIANTS if args.variant == "all" else (args.variant,)
    engines = None
    if args.engines:
        pair = tuple(e.strip() for e in args.engines.split(","))
        if len(pair) != 2 or not set(pair) <= set(ENGINES):
            parser.error(f"--engines takes two of {', '.join(ENGINES)}, e.g. core,reference")
        cpu = calibrate((pair[0], pair[1]), args.calibration, rounds=2)
        nps = {e: NODES_PER_SECOND * max(cpu.values()) / c for e, c in cpu.items()}
        print(
            f"engines: hero {pair[0]}, others {pair[1]}; {args.calibration} expert decisions "
            f"of {CALIBRATION_NODES} positions: "
            + ", ".join(f"{e} {c:.2f} s CPU" for e, c in cpu.items())
            + "; positions per second: "
            + ", ".join(f"{e} {round(v)}" for e, v in nps.items())
        )
        engines = (pair[0], pair[1], round(nps[pair[0]]), round(nps[pair[1]]))
    print(
        f"{args.games} games per pairing, {args.players} players, variant {args.variant}, "
        f"search {args.seconds}s, heuristic {args.heuristic_seconds}s per decision, "
        f"{args.workers} workers"
    )
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for name in chosen:
            hero, other = PAIRINGS[name]
            tasks = game_tasks(
                hero, other, args.games, args.seed, variants, budget, args.players, engines
            )
            t0 = time.perf_counter()
            results = list(pool.imap_unordered(play_one, tasks))
            wall = time.perf_counter() - t0
            _report(name, hero, other, results, wall, budget[hero], args.players)
            if args.out:
                with open(args.out, "a", encoding="utf-8") as out:
                    for r in sorted(results, key=lambda r: r["seed"]):
                        row = {k: v for k, v in r.items() if k != "times"}
                        out.write(json.dumps({"pairing": name, **row}) + "\n")
    return 0


def _report(
    name: str, hero: str, other: str, results: list[dict], wall: float, sec: float, players: int
) -> None:
    n = len(results)
    wins = sum(r["win"] for r in results)
    ties = sum(r["tie"] for r in results)
    lo, hi = wilson(wins, n)
    hero_t = [t for r in results for t in r["times"]["hero"]]
    hero_cpu = [t for r in results for t in r["times"]["hero_cpu"]]
    other_t = [t for r in results for t in r["times"]["others"]]
    margins = [r["margin"] for r in results]

    def fmt(ts: list[float]) -> str:
        if not ts:
            return "-"
        ts = sorted(ts)
        p95 = ts[min(len(ts) - 1, int(0.95 * len(ts)))]
        return f"mean {statistics.fmean(ts) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {ts[-1] * 1000:.0f} ms"

    print(f"\n{name}: 1 {hero} vs {players - 1} {other}")
    print(f"  hero wins {wins}/{n} = {wins / n:.1%}  (95% CI {lo:.1%}-{hi:.1%}; {ties} shared)")
    print(f"  hero margin over best opponent: mean {statistics.fmean(margins):+.1f} points")
    # Over the opponents' mean (not the best of them): an even player is at 0 here.
    edge = [r["score"] - r["others_mean"] for r in results]
    print(
        f"  hero score {statistics.fmean(r['score'] for r in results):.1f}, "
        f"opponents' mean {statistics.fmean(r['others_mean'] for r in results):.1f} "
        f"(hero over their mean {statistics.fmean(edge):+.1f})"
    )
    by_variant = {}
    for r in results:
        by_variant.setdefault(r["variant"], []).append(r)
    if len(by_variant) > 1:
        parts = []
        for v in ("common", "personal", "master"):
            rs = by_variant.get(v, [])
            if rs:
                w = sum(r["win"] for r in rs)
                lo_v, hi_v = wilson(w, len(rs))
                parts.append(f"{v} {w}/{len(rs)} = {w / len(rs):.0%} ({lo_v:.0%}-{hi_v:.0%})")
        print("  by variant: " + ", ".join(parts))
    print(f"  {hero} per decision (budget {sec}s): {fmt(hero_t)}")
    over = sum(1 for t in hero_t if t > 1.1 * sec)
    print(f"  {hero} decisions over budget + 10%: {over}/{len(hero_t)}")
    print(f"  {hero} CPU per decision: {fmt(hero_cpu)} (less than wall time on a busy machine)")
    print(f"  {other} per decision: {fmt(other_t)}")
    other_cpu = [t for r in results for t in r["times"].get("others_cpu", [])]
    if other_cpu:
        print(f"  {other} CPU per decision: {fmt(other_cpu)}")
    print(f"  wall time {wall:.0f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
