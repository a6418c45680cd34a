"""Computer players for Torres.

``choose_actions(game, seconds, level=..., seed=...)`` returns the canonical actions
of the next *decision* of the player to move:

- in setup (``castles``, ``place``, ``king``) and for the king move after a phase's
  scoring: one action;
- in a turn: every remaining action of the turn, ending with ``end`` — except that
  in the personal-deck variant a planned ``draw`` ends the decision (the three cards
  it reveals are unknown until then); call again in the ``draw-keep`` stage for the
  ``keep`` and the rest of the turn.

A caller therefore loops: ``while game.to_move is a computer player: game.play("; ".join(
choose_actions(game)))``.

The players only ever read ``game.position(viewer=player)``: what they cannot see
(other hands, deck order) is sampled afresh (see ``_hidden``), so their choices never
depend on hidden information. ``game`` itself is never changed.

Levels:

- ``"random"``: uniformly random legal actions until ``end`` (forced after 40).
- ``"heuristic"``: a quick greedy turn builder; each step takes the action whose
  result evaluates best (current score + the castle points and king's bonus the
  position would score now, weighted by the scorings left, + half the gain of the
  best step up within reach + knights, cards and action points; see
  ``_evaluate``), then leftover action points go to score steps.
- ``"search"``: a beam search over whole turns (seeded with the greedy turn)
  proposes candidate turns; among those the evaluation finds nearly equal,
  turn-level Monte Carlo with sampled hidden information and greedy replies by the
  other players picks (see ``_search``).

- ``"expert"`` (experimental): evolution over whole turns (Online Evolutionary
  Planning: a population of complete turns, repaired to legality, improved by
  crossover and mutation under a static evaluation of its own that weighs the
  others' worth twice and, with the common deck, values a player's first three
  knights and the cards in hand more); it plays the best turn found (see
  ``_expert``). It wins 40% of 4-player games against three ``search`` players at
  equal time (25% is even; figures in docs/expert-experiments.md); ``search`` is
  still the default level.

Deterministic for a given ``seed`` (default: derived from the player's view of the
position): work is counted in evaluated positions, and the wall clock only cuts a
decision short on a machine much slower than the one the rate was measured on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
from typing import Any

from engine.ai._expert import expert_decision
from engine.ai._hidden import sample_game
from engine.ai._plan import (
    SINGLE_STAGES,
    Budget,
    greedy_decision,
    random_decision,
)
from engine.ai._search import search_decision

__all__ = ["LEVELS", "NODES_PER_SECOND", "choose_actions", "random_decision"]

LEVELS: tuple[str, ...] = ("random", "heuristic", "search", "expert")

NODES_PER_SECOND = 18000
"""Evaluated positions a decision may use per second of its budget. Chosen on
2026-12-02, once the players evaluated game states instead of written positions
(a node became about twice as cheap), so that an ``expert`` decision takes as long
as it did at 7,000 before: on the 2-core VM the bench/ai_bench.py figures come from,
CPU time per decision at a 1 s budget (37 positions of heuristic games, deadline
off), mean / 95th percentile, ``expert`` 0.48 / 0.80 s before and 0.46 / 0.76 s now;
``search`` 0.58 / 1.12 s before and 0.34 / 0.62 s now (its beam and rollouts stop
before such a budget runs out). So the deadline (80% of the budget) stops only the
longest decisions, and the others stay reproducible for a seed."""

_HEURISTIC_NODES = 1500  # the greedy builder rarely needs more; small budgets cut it
_SAFETY = 0.8  # fraction of *seconds* the planning may use; the rest is margin

_log = logging.getLogger(__name__)


def choose_actions(
    game: Any,
    seconds: float = 1.0,
    *,
    level: str = "search",
    seed: int | None = None,
) -> list[str]:
    """The canonical actions of the player to move's next decision (see the module doc).

    :param game: an ``engine.Game``; it is not modified.
    :param seconds: time budget; the decision takes about this long at most (search)
        or much less (random, heuristic).
    :param level: ``"random"``, ``"heuristic"``, ``"search"`` or ``"expert"``.
    :param seed: makes the choice reproducible; default: derived from the position
        as the player sees it.
    :raises ValueError: for an unknown level, a negative budget, or a finished game.
    """
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; choose one of {', '.join(LEVELS)}.")
    if seconds < 0:
        raise ValueError("The time budget must not be negative.")
    me = game.to_move
    if me is None or game.stage == "over":
        raise ValueError("The game is over; there is no decision to make.")
    start = time.perf_counter()
    view = game.position(viewer=me)
    rng = random.Random(seed if seed is not None else _seed_of(view))
    deadline = start + max(0.01, seconds * _SAFETY)
    if level == "random":
        actions = random_decision(sample_game(game, me, rng, view), rng)
    elif level == "heuristic":
        budget = Budget(min(_HEURISTIC_NODES, max(30, int(seconds * NODES_PER_SECOND))), deadline)
        actions = greedy_decision(sample_game(game, me, rng, view), me, rng, budget)
    else:
        budget = Budget(max(30, int(seconds * NODES_PER_SECOND)), deadline)
        decide = expert_decision if level == "expert" else search_decision
        actions = decide(game, me, view, rng, budget)
    return _checked(game, me, view, actions, rng)


def _seed_of(view: dict[str, Any]) -> int:
    blob = json.dumps(view, sort_keys=True, separators=(",", ":")).encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "big")


def _checked(
    game: Any, me: str, view: dict[str, Any], actions: list[str], rng: random.Random
) -> list[str]:
    """Make sure the decision is legal in the real game (it always should be).

    Only a failure changes anything, so this reveals nothing to the choice itself.
    """
    trial = game.copy()
    try:
        trial.play("; ".join(actions))
        return actions
    except ValueError as exc:  # IllegalAction and NotationError are ValueErrors
        _log.error("computer player planned an illegal decision %r: %s", actions, exc)
    for _ in range(5):
        fallback = random_decision(sample_game(game, me, rng, view), rng)
        trial = game.copy()
        try:
            trial.play("; ".join(fallback))
            return fallback
        except ValueError:
            continue
    if game.stage in SINGLE_STAGES:
        return [game.legal()[0]]
    return ["end"]
