"""Engine speed: whole random 4-player games and legal() on mid-game positions.

Random players choose uniformly among ``legal()``.  Prints medians; nothing is asserted.
Run from the repository root: ``python bench/engine_bench.py [--games N] [--variant V]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game  # noqa: E402


def random_game(seed: int, players: int, variant: str) -> tuple[float, list[Game], int]:
    """Play one game; return its time, turn starts of phase 2 and the number of actions."""
    rng = random.Random(seed)
    game = Game.new(players, variant=variant, seed=seed)
    mid: list[Game] = []
    actions = 0
    start = time.perf_counter()
    while not game.over:
        moves = game.legal()
        game.play(rng.choice(moves))
        actions += 1
        if game.phase == 2 and game.stage == "play" and game.ap == 5 and len(mid) < 4:
            mid.append(game.copy())
    return time.perf_counter() - start, mid, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="common")
    args = parser.parse_args()

    times: list[float] = []
    lengths: list[int] = []
    mids: list[Game] = []
    for seed in range(args.games):
        t, mid, n = random_game(seed, args.players, args.variant)
        times.append(t)
        lengths.append(n)
        mids.extend(mid)

    # Cold legal(): a fresh copy with no cached castles or legal list, as after any action.
    legal_times: list[float] = []
    for g in mids:
        reps = []
        for _ in range(30):
            c = g.copy()
            c._st.castles = None  # noqa: SLF001 - a cold start, as after any action
            start = time.perf_counter()
            c.legal()
            reps.append(time.perf_counter() - start)
        legal_times.append(statistics.median(reps))

    play_times: list[float] = []
    for g in mids:
        moves = g.legal()
        start = time.perf_counter()
        for m in moves:
            c = g.copy()
            c.play(m)
        play_times.append((time.perf_counter() - start) / len(moves))

    copy_times: list[float] = []
    for g in mids:
        start = time.perf_counter()
        for _ in range(200):
            g.copy()
        copy_times.append((time.perf_counter() - start) / 200)

    print(
        f"{args.games} random {args.players}-player games ({args.variant}), "
        f"median {statistics.median(lengths):.0f} actions each"
    )
    print(
        f"whole game:      median {statistics.median(times) * 1e3:8.2f} ms  "
        f"(min {min(times) * 1e3:.2f}, max {max(times) * 1e3:.2f})"
    )
    print(
        f"legal() mid-game: median {statistics.median(legal_times) * 1e3:8.3f} ms "
        f"over {len(mids)} positions (max {max(legal_times) * 1e3:.3f})"
    )
    print(f"copy()+play():   median {statistics.median(play_times) * 1e3:8.3f} ms per legal action")
    print(f"copy():          median {statistics.median(copy_times) * 1e3:8.3f} ms")


if __name__ == "__main__":
    main()
