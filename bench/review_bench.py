"""How long ``/torres review`` takes: the expert's review of every player of whole games.

Plays ``--games`` games between heuristic players (2 and 4 players, common deck), then
reviews each player's decisions with ``engine.ai.review.review_game`` at the bot's
settings (``NODES`` evaluated positions per expert decision, ``SAMPLES`` sampled worlds),
in this process, one after another. Printed per player count: CPU seconds per player's
review (what one ``/torres review player:`` costs the worker processes), per decision,
and per whole game (every player reviewed).

    .venv/bin/python bench/review_bench.py            # 3 games of 2 and of 4 players
    .venv/bin/python bench/review_bench.py --games 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.ai.review import NODES, SAMPLES, review_game  # noqa: E402
from engine.record import Decision, Record  # noqa: E402
from renderer.replay import play_ai_game  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=3, help="games per player count (default 3)")
    args = p.parse_args(argv)
    print(f"review_bench: expert at {NODES} positions a decision, {SAMPLES} sampled worlds")
    for players in (2, 4):
        per_player: list[float] = []
        per_decision: list[float] = []
        per_game: list[float] = []
        for seed in range(1, args.games + 1):
            game, steps = play_ai_game(players, seed=seed, level="heuristic", seconds=0.05)
            record = Record(variant="common", seed=seed, players=tuple(game.players))
            record.decisions = [Decision(s.player or "", tuple(s.actions)) for s in steps[1:]]
            whole = 0.0
            for player in game.players:
                t0 = time.process_time()
                reviews = review_game(record, player, seed=seed)
                took = time.process_time() - t0
                whole += took
                per_player.append(took)
                per_decision.append(took / max(1, len(reviews)))
            per_game.append(whole)
        print(
            f"  {players} players, {args.games} games: per player's review "
            f"median {statistics.median(per_player):.1f} s, max {max(per_player):.1f} s; "
            f"per decision median {statistics.median(per_decision):.2f} s; "
            f"per game (every player) median {statistics.median(per_game):.1f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
