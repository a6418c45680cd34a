"""Where a computer player's points come from, next to its opponents'.

``ai_bench.py`` says who wins; this says how.  The games are the same as that bench's:
4 players, one of the first level against three of the second, seats rotating, the
same seeds for the decisions.  For each player it reports the mean per game of:

- the points of each scoring (castles, king, master card);
- the actions of each kind, and the cards played.

Run from the repository root::

    python bench/ai_breakdown.py --variant master --games 32 --seed 5001
    python bench/ai_breakdown.py --hero expert --other search --variant common

Long: about 10 s a game at 1 s a decision, spread over ``--workers`` processes.
The games are played by ``ai_bench.play_game``, which this script only watches.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import statistics
from typing import Any

from ai_bench import budgets, game_tasks, play_game

from engine.ai import LEVELS
from engine.rules.tables import VARIANTS


def play_one(task: tuple) -> dict[str, Any]:
    """One game of ``ai_bench``'s; each player's counts, and which seat was the hero's."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    def watch(player: str, actions: list[str], events: list) -> None:
        for a in actions:
            words = a.split()
            counts[player][words[0]] += 1
            if words[0] == "play":
                counts[player]["card " + words[1]] += 1
        for e in events:
            if e["type"] == "phase_scored":
                for q, points in e["points"].items():
                    for kind, v in points.items():
                        counts[q]["points " + kind] += v

    game, hero, _times = play_game(task, watch)
    knights = game.position().get("knights") or {}
    for p in game.players:
        counts[p]["knights at the end"] = len(knights.get(p, ()))
        counts[p]["final score"] = game.scores[p]
        counts[p]["won"] = int(p in game.winners)
    return {"hero": hero, "counts": {p: dict(c) for p, c in counts.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hero", default="expert", choices=LEVELS)
    parser.add_argument("--other", default="search", choices=LEVELS)
    parser.add_argument("--variant", default="master", choices=VARIANTS)
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--seed", type=int, default=5001, help="first game seed")
    parser.add_argument("--seconds", type=float, default=1.0, help="budget of search and expert")
    parser.add_argument("--heuristic-seconds", type=float, default=0.2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    budget = budgets(args.seconds, args.heuristic_seconds)
    tasks = game_tasks(args.hero, args.other, args.games, args.seed, (args.variant,), budget)
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        games = list(pool.imap_unordered(play_one, tasks))
    mine: dict[str, list[int]] = collections.defaultdict(list)
    theirs: dict[str, list[int]] = collections.defaultdict(list)
    keys = sorted({k for g in games for c in g["counts"].values() for k in c})
    for g in games:
        for p, c in g["counts"].items():
            side = mine if p == g["hero"] else theirs
            for k in keys:
                side[k].append(c.get(k, 0))
    print(
        f"{args.games} {args.variant} games, 1 {args.hero} vs 3 {args.other}, "
        f"seeds {args.seed}-{args.seed + args.games - 1}; means per player and game"
    )
    print(f"{'':24}{args.hero:>10}{args.other:>10}")
    for k in keys:
        print(f"{k:24}{statistics.fmean(mine[k]):10.2f}{statistics.fmean(theirs[k]):10.2f}")


if __name__ == "__main__":
    main()
