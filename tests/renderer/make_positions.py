"""Regenerate the stored test positions from engine play.

    .venv/bin/python tests/renderer/make_positions.py

The positions are stored (not made at test time) so that the reference
pictures stay put when the engine's random details change. Play is random but
weighted towards building and adding knights, so the boards look like games.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import Game  # noqa: E402

OUT = Path(__file__).resolve().parent / "positions"

WEIGHTS = {
    "knight": 3.0,
    "build": 4.0,
    "move": 3.0,
    "play": 0.3,
    "draw": 1.5,
    "keep": 1.0,
    "stack": 0.5,
    "score": 0.3,
    "end": 1.2,
}


def choose(game: Game, rng: random.Random) -> str:
    """A random legal action: first a verb (weighted), then one of its actions."""
    by_verb: dict[str, list[str]] = {}
    for action in game.legal():
        by_verb.setdefault(action.split()[0], []).append(action)
    verbs = sorted(by_verb)
    verb = rng.choices(verbs, [WEIGHTS.get(v, 1.0) for v in verbs])[0]
    # Within a verb, favour high squares: taller castles, knights climbing.
    heights = game.position()["heights"]
    options = by_verb[verb]
    weights = [(heights.get(a.split()[-1], 0) + 1) ** 2 for a in options]
    return rng.choices(options, weights)[0]


def play_until(game: Game, rng: random.Random, done, limit: int = 20000) -> list[str]:
    """Play weighted random actions until ``done(game)``; return the actions of the
    last turn (what the bot would highlight)."""
    turn: list[str] = []
    for _ in range(limit):
        if done(game):
            return turn
        if game.stage == "over":
            break
        action = choose(game, rng)
        if not turn or turn[-1] == "end":
            turn = []
        game.play(action)
        turn.append(action)
    raise RuntimeError("the game did not reach the wanted point")


def touched(actions: list[str]) -> list[str]:
    """Squares named by a turn's actions: the squares it changed."""
    squares = []
    for action in actions:
        for word in action.split()[1:]:
            if len(word) == 2 and word[0] in "abcdefgh" and word[1] in "12345678":
                squares.append(word)
    return sorted(set(squares))


def save(name: str, position: dict[str, Any], highlight: list[str]) -> None:
    position = dict(position)
    data = {"position": position, "highlight": highlight}
    (OUT / f"{name}.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(name, position["stage"], position["phase"], position["round"], highlight)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    rng = random.Random(2026)

    game = Game.new(players=4, seed=11)
    turn = play_until(game, rng, lambda g: g.stage == "place" and len(_all_knights(g)) == 2)
    save("setup", game.position(), touched(turn))

    game = Game.new(players=4, seed=21)
    turn = play_until(
        game,
        rng,
        lambda g: (g.phase, g.round) == (2, 2) and g.stage == "play" and g.ap == 3,
    )
    save("midgame", game.position(), touched(turn))

    game = Game.new(players=4, seed=31)
    turn = play_until(
        game, rng, lambda g: (g.phase, g.round) == (3, 3) and g.stage == "play" and g.ap == 5
    )
    save("late", game.position(), touched(turn))
    turn = play_until(game, rng, lambda g: g.stage == "over")
    save("final", game.position(), touched(turn))

    game = Game.new(players=3, names=["ann", "bob", "cy"], variant="master", seed=41)
    turn = play_until(
        game, rng, lambda g: (g.phase, g.round) == (1, 3) and g.stage == "play" and g.ap == 5
    )
    save("master", game.position(), touched(turn))

    game = Game.new(players=2, names=["ann", "bob"], variant="personal", seed=51)
    turn = play_until(
        game, rng, lambda g: (g.phase, g.round) == (2, 2) and g.stage == "play" and g.ap <= 4
    )
    save("personal", game.position(), touched(turn))


def _all_knights(game: Game) -> list[str]:
    knights = game.position()["knights"]
    return [sq for squares in knights.values() for sq in squares]


if __name__ == "__main__":
    main()
