"""What one engine does, written down so that two engines can be compared line by line.

``python tests/engine/engine_trace.py`` prints one JSON line per step, with whichever
engine ``TORRES_ENGINE`` selects (the line ``engine`` first says which ran): random
games of every variant for 2-4 players (each decision's legal list, position, views,
the game's properties, the events of the chosen action, undo, and refusals of actions
tried on a copy: texts, codes and parameters), then the rules suites' positions
(tests/engine/legal_sets, tests/renderer/positions and a few edge cases) with each of
their legal actions played on a copy, and random boards with the player to move holding
cards (every card's plays, which the core makes in C).  ``test_engines_equal.py`` runs it under both.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
import sys
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import engine  # noqa: E402
from engine import Game, IllegalAction, NotationError  # noqa: E402
from engine.cards import CARDS  # noqa: E402

# Tried at every decision on a copy, with actions listed elsewhere in the game: refusals
# of every kind (malformed, unknown, out of turn, too far, no AP, a bad card play).
PROBES = [
    "",
    "move",
    "move z9 a1",
    "move c3",
    "build a1 a1",
    "build h8",
    "knight a1",
    "stack 9",
    "stack 0",
    "score",
    "score 99",
    "king pass",
    "king a1",
    "place a1",
    "place e4",
    "draw",
    "keep jump top",
    "keep nothing",
    "end; end",
    "play",
    "play nocard",
    "play jump a1 a2",
    "play ap6",
    "play ap7",
    "play extra",
    "play lift a1",
    "play doorclimb a1 a2",
    "play diagonal a1 b2",
    "play moveblock a1 a2",
    "play relocate a1 b2",
    "play vault a1 c3",
    "move c3 d3; build e4",
    "undo",
    "MOVE C3 D3",
]
SEEDS = (1, 2)
VARIANTS = ("common", "personal", "master")


def _jsonable(x: Any) -> Any:
    return json.loads(json.dumps(x, default=str))


def _events(events: list[Any]) -> list[Any]:
    return [[type(e).__name__, _jsonable(dict(e))] for e in events]


def _aimed(game: Any, rng: random.Random) -> list[str]:
    """Actions aimed at the position: the mover's knights, cards and squares near them."""
    position = game.position()
    knights = position.get("knights", {}).get(game.to_move) or ["c3"]
    hand = position.get("hands", {}).get(game.to_move) or ["jump"]
    square = f"{rng.choice('abcdefgh')}{rng.randint(1, 8)}"
    k = rng.choice(knights)
    card = rng.choice([c for c in hand if isinstance(c, str)] or ["jump"])
    return [
        f"move {k} {square}",
        f"play {card} {k} {square}",
        f"play {card} {square}",
        f"build {square}",
        f"knight {square}",
    ]


def _try(game: Any, text: str) -> list[Any]:
    """``text`` played on a copy: its events and the position after, or the refusal."""
    g = game.copy()
    try:
        events = g.play(text)
    except IllegalAction as exc:
        return ["illegal", exc.code, exc.action, exc.reason, _jsonable(exc.params), str(exc)]
    except NotationError as exc:
        return ["notation", exc.code, _jsonable(exc.params), str(exc)]
    return ["ok", _events(events), g.position(), g.legal()]


def _state(game: Any) -> dict[str, Any]:
    """Everything the public interface reads of a game."""
    names = game.players
    return {
        "repr": repr(game),
        "legal": game.legal(),
        "position": game.position(),
        "views": [game.position(viewer=n) for n in names],
        "stage": str(game.stage),
        "over": game.over,
        "to_move": game.to_move,
        "phase": game.phase,
        "round": game.round,
        "scores": game.scores,
        "ap": game.ap,
        "winners": game.winners,
        "can_undo": game.can_undo,
        "hands": [game.hand(n) for n in names],
        "heights": [game.height(f"{f}{r}") for f in "abcdefgh" for r in range(1, 9)],
    }


def random_games() -> Iterator[dict[str, Any]]:
    for variant in VARIANTS:
        for players in (2, 3, 4):
            for seed in SEEDS:
                rng = random.Random(f"{variant}{players}{seed}")
                game = Game.new(players, variant=variant, seed=seed)
                seen: list[str] = []
                step = 0
                while not game.over:
                    case = f"{variant} {players}p seed {seed} step {step}"
                    legal = game.legal()
                    yield {"case": case, **_state(game)}
                    tries = rng.sample(PROBES, 3) + rng.sample(seen, min(3, len(seen)))
                    tries += rng.sample(_aimed(game, rng), 3)
                    yield {"case": case, "tries": [[t, _try(game, t)] for t in tries]}
                    seen.extend(rng.sample(legal, min(2, len(legal))))
                    del seen[:-200]
                    action = rng.choice(legal)
                    if rng.random() < 0.15:  # two at once, all or nothing
                        action = f"{action}; {rng.choice(PROBES[4:] + legal)}"
                    try:
                        played = ["ok", _events(game.play(action))]
                    except (IllegalAction, NotationError) as exc:
                        played = ["refused", type(exc).__name__, exc.code, str(exc)]
                        game.play(rng.choice(legal))
                    if rng.random() < 0.05:  # as the bot sends a game to a worker process
                        game = pickle.loads(pickle.dumps(game))
                    elif rng.random() < 0.05:
                        game = copy.copy(game) if rng.random() < 0.5 else copy.deepcopy(game)
                    if game.can_undo and rng.random() < 0.1:
                        before = game.position()
                        undone = game.undo()
                        played += [undone, game.position(), game.legal()]
                        game = Game.from_position(before)  # as a stored game is read
                    yield {"case": case, "action": action, "played": played}
                    step += 1
                yield {"case": f"{variant} {players}p seed {seed} end", **_state(game)}


def _legal_set_positions() -> Iterator[tuple[str, dict[str, Any], str]]:
    for path in sorted((HERE / "legal_sets").glob("*.txt")):
        position: list[str] = []
        actions: list[str] = []
        section = None
        for line in path.read_text().splitlines():
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
            elif section == "position":
                position.append(line)
            elif section == "actions" and line.strip() and not line.startswith("#"):
                actions.append(line.strip())
        yield path.name, json.loads("\n".join(position)), "; ".join(actions)


def _edge_positions() -> Iterator[tuple[str, dict[str, Any], str]]:
    base = {"format": "torres-position/1", "players": ["a", "b"], "decks": {"common": []}}
    turn = {"ap": 5, "stack": None, "drawn": [], "played": False, "revealed": []}
    heights = {"c3": 1, "c4": 2, "d4": 3, "e5": 1, "f5": 7}
    knights = {"a": ["c3", "h8"], "b": ["e5", "a1"]}
    stacks = {"a": [3, 3], "b": [2, 2]}
    usual = {**base, "heights": heights, "knights": knights, "stacks": stacks, "turn": turn}
    yield "usual", usual, ""
    yield "tall tower", {**usual, "heights": {**heights, "f5": 1500}}, ""
    yield "tower of 64", {**usual, "heights": {**heights, "f5": 64}}, ""
    # the core's C kernels leave boards above 62 (the turn's actions) and above 1,024
    # (the castle tables) to the Python code: either side of each limit
    for tall in (62, 63, 1024, 1025):
        yield f"tower of {tall}", {**usual, "heights": {**heights, "e6": 1, "e7": tall}}, ""
    yield "high corner", {**usual, "heights": {"h8": 3, "g8": 2, "h7": 1}}, ""
    # moveblock: a castle taller than its area with two squares as tall (one block off
    # one of them leaves it as tall), five more castles
    two_tall = {"c3": 3, "c4": 3, "a1": 1, "a8": 1, "h1": 1, "h8": 1, "f6": 1}
    hands = {"a": ["moveblock", "lift"], "b": []}
    yield "two as tall", {**usual, "heights": two_tall, "hands": hands}, ""
    yield "not a dict", [], ""  # type: ignore[misc]
    yield "no players", {**usual, "players": []}, ""
    yield "bad height", {**usual, "heights": {"c3": -1}}, ""
    yield "bad square", {**usual, "heights": {"z9": 1}}, ""
    # the core's C reader of positions (engine/_native_position.c) and what it leaves to
    # Python: fields missing, of the wrong type or size, unknown names, extra keys
    no_decks = {k: v for k, v in usual.items() if k != "decks"}
    yield "no decks", no_decks, ""
    yield "personal, one deck", {**usual, "variant": "personal", "decks": {"b": ["jump"]}}, ""
    yield "personal, no decks", {**no_decks, "variant": "personal"}, ""
    yield "master", {**usual, "variant": "master", "decks": {}, "master_card": "moat"}, ""
    yield "huge ints", {**usual, "seed": 10**40, "scores": {"a": 10**30}, "supply": 10**30}, ""
    huge = {"a": [10**25], "b": [2**62, 2**62]}  # over: no stack to choose from
    yield "huge stacks", {**usual, "stage": "over", "stacks": huge, "supply": None}, ""
    yield "bool seed", {**usual, "seed": True}, ""
    yield "blank name", {**base, "players": ["a", " \u2003"]}, ""
    yield "same names", {**base, "players": ["a", "a"]}, ""
    yield "unknown player", {**usual, "scores": {"a": 1, "c": 2}}, ""
    yield "extra keys", {**usual, "extra": [1], "turn": {**turn, "x": None}}, ""
    yield "defaults", {"format": "torres-position/1", "players": ["a", "b", "c"]}, ""
    yield "over", {**usual, "stage": "over", "to_move": "b", "king": "d4"}, ""
    yield (
        "draw-keep",
        {
            **usual,
            "variant": "personal",
            "stage": "draw-keep",
            "decks": {},
            "turn": {**turn, "revealed": ["jump", "lift"]},
        },
        "",
    )


CARD_IDS = sorted(CARDS)  # the ten action cards


def _random_heights(rng: random.Random) -> dict[str, int]:
    """Castles of random shapes, mostly no taller than their area, now and then a tower
    on either side of the C kernels' limit (62)."""
    h: dict[str, int] = {}
    for _ in range(rng.randint(3, 11)):
        f, r = rng.randrange(8), rng.randrange(8)
        for _ in range(rng.choice((1, 1, 2, 3, 4, 6))):
            h[f"{'abcdefgh'[f]}{r + 1}"] = rng.choice((1, 1, 1, 2, 2, 3, 4))
            df, dr = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0)))
            f, r = min(7, max(0, f + df)), min(7, max(0, r + dr))
    if rng.random() < 0.05:
        h[rng.choice(sorted(h))] = rng.choice((62, 63))
    return h


def card_positions() -> Iterator[dict[str, Any]]:
    """Random boards with the player to move holding cards (all ten, often): every
    card's plays in the legal list (the core makes them in C, engine/_native_cards.c),
    with stacks of ten blocks or more, an empty supply or turn's stack, drawn cards."""
    rng = random.Random(3737)
    squares = [f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)]
    for i in range(400):
        players = ["a", "b", "c"][: rng.randint(2, 3)]
        h = _random_heights(rng)
        taken = rng.sample(squares, 10)
        knights = {"a": taken[: rng.randint(1, 6)], "b": taken[6 : rng.randint(6, 9)], "c": []}
        hand = CARD_IDS if rng.random() < 0.5 else rng.sample(CARD_IDS * 2, rng.randint(1, 6))
        drawn = rng.sample(hand, min(len(hand), rng.randint(0, 2))) if rng.random() < 0.3 else []
        stacks = [rng.choice((0, 1, 2, 3, 9, 10, 11, 12, 25)) for _ in range(rng.randint(0, 4))]
        position = {
            "format": "torres-position/1",
            "players": players,
            "heights": h,
            "knights": {p: knights[p] for p in players},
            "king": taken[9] if rng.random() < 0.8 else None,
            "hands": {p: hand if p == "a" else [] for p in players},
            "stacks": {p: stacks if p == "a" else [3] for p in players},
            "decks": {"common": []},
            "supply": rng.choice((0, 0, 1, 20)),
            "turn": {
                "ap": rng.randint(0, 5),
                "stack": rng.choice((None, None, 0, 1, 2)),
                "drawn": drawn,
                "played": False,
                "revealed": [],
            },
        }
        try:
            game = Game.from_position(position)
        except NotationError as exc:
            yield {"case": f"cards {i}", "refused": [exc.code, str(exc)]}
            continue
        legal = game.legal()
        plays = [a for a in legal if a.startswith("play ")]
        tries = rng.sample(plays, min(3, len(plays)))
        # the turn's other actions on these boards (towers of 62 and 63 among them, left
        # to Python by the C checks of a block, a move and a new knight), and aimed ones
        others = [a for a in legal if not a.startswith("play ")]
        tries += rng.sample(others, min(3, len(others)))
        k = rng.choice(knights["a"])
        tries += [f"{verb} {rng.choice(squares)}" for verb in ("build", "knight")]
        tries += [f"move {k} {rng.choice(squares)}", "end"]
        # a block moved anywhere: the core checks ``play moveblock`` in C (mostly refusals)
        blocks = sorted(s for s, v in h.items() if v > 0)
        if blocks and "moveblock" in hand:
            tries += [
                f"play moveblock {rng.choice(blocks)} {rng.choice(squares)}" for _ in range(4)
            ]
        yield {"case": f"cards {i}", "legal": legal, "tries": [[t, _try(game, t)] for t in tries]}


def _files() -> Iterator[tuple[str, dict[str, Any], str]]:
    yield from _legal_set_positions()
    renderer = HERE.parent / "renderer" / "positions"
    for path in sorted(renderer.glob("*.json")):
        yield path.name, json.loads(path.read_text())["position"], ""
    yield from _edge_positions()


ODD = [None, 5, -1, True, 2.5, "x", "C3", "c3", [], [5], [{"x": 1}], {}, {"x": 1}]


def _mutants(position: Any, rng: random.Random) -> Iterator[Any]:
    """``position`` with one value somewhere (a key, an item, a nested one) made odd."""
    if not isinstance(position, dict):
        return
    for key in sorted(position):
        for odd in rng.sample(ODD, 3):
            yield {**position, key: odd}
        inner = position[key]
        if isinstance(inner, dict) and inner:
            k = rng.choice(sorted(inner))
            yield {**position, key: {**inner, k: rng.choice(ODD)}}
            if isinstance(inner[k], list) and inner[k]:
                items = list(inner[k])
                items[rng.randrange(len(items))] = rng.choice(ODD)
                yield {**position, key: {**inner, k: items}}
        yield {k: v for k, v in position.items() if k != key}


def _read(position: Any) -> list[Any]:
    try:
        game = Game.from_position(position)
    except NotationError as exc:
        return ["notation", exc.code, _jsonable(exc.params), str(exc)]
    return ["ok", game.position(), game.legal()]


def suite_positions() -> Iterator[dict[str, Any]]:
    rng = random.Random(37)
    for name, position, actions in _files():
        yield {"case": name, "mutants": [_read(m) for m in _mutants(position, rng)]}
        try:
            game = Game.from_position(position)
            if actions:
                game.play(actions)
        except (IllegalAction, NotationError) as exc:
            yield {"case": name, "refused": [type(exc).__name__, exc.code, str(exc)]}
            continue
        yield {"case": name, **_state(game)}
        yield {"case": name, "each": [[a, _try(game, a)] for a in game.legal()]}
        yield {"case": name, "tries": [[t, _try(game, t)] for t in PROBES]}


def _outcome(call: Any) -> list[Any]:
    try:
        return ["ok", _jsonable(call())]
    except NotationError as exc:
        return ["notation", exc.code, _jsonable(exc.params), str(exc)]
    except Exception as exc:  # noqa: BLE001  # misuse: the same kind of error either way
        return [type(exc).__name__]


def api_misuse() -> Iterator[dict[str, Any]]:
    """The public interface called with values of the wrong type (engine.Game's
    methods, split_actions, castles, changed_squares): the same refusal either way."""
    game = Game.new(3, seed=1)
    start = game.position()
    odd = [None, 5, 2.5, True, "x", "", ["a", "b"], ("a", "b"), [1, 2], {"a": 1}, "3"]
    for value in odd:
        calls = {
            "players": lambda: repr(Game.new(value)),  # noqa: B023  # called at once
            "names": lambda: repr(Game.new(names=value)),  # noqa: B023
            "variant": lambda: repr(Game.new(3, variant=value)),  # noqa: B023
            "seed": lambda: repr(Game.new(3, seed=value)),  # noqa: B023
            "master": lambda: repr(Game.new(3, variant="master", master_card=value)),  # noqa: B023
            "play": lambda: [dict(e) for e in game.copy().play(value)],  # noqa: B023
            "hand": lambda: game.hand(value),  # noqa: B023
            "height": lambda: game.height(value),  # noqa: B023
            "position": lambda: game.position(value),  # noqa: B023
            "split_actions": lambda: engine.split_actions(value),  # noqa: B023
            "castles": lambda: sorted(map(sorted, engine.castles({value: 1}))),  # noqa: B023
            "castles height": lambda: sorted(map(sorted, engine.castles({"c3": value}))),  # noqa: B023
            "changed_squares": lambda: engine.changed_squares(game.position(), value),  # noqa: B023
            # a position's objects keyed by what JSON cannot make (a Python caller can)
            **{
                f"position {key} keyed": lambda key=key, value=value: Game.from_position(
                    {**start, key: {value: 1 if key in ("heights", "scores") else []}}
                ).position()
                for key in ("heights", "knights", "scores", "stacks", "hands")
            },
        }
        yield {"case": f"misuse {value!r}", "calls": {k: _outcome(c) for k, c in calls.items()}}


def main() -> None:
    out = sys.stdout
    out.write(json.dumps({"engine": engine.ENGINE}) + "\n")
    for record in chain(random_games(), suite_positions(), card_positions(), api_misuse()):
        out.write(json.dumps(record, sort_keys=True, default=str) + "\n")


if __name__ == "__main__":
    main()
