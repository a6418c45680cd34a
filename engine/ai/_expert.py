"""The "expert" level: evolution over whole turns, then Monte Carlo among the best.

A turn in Torres is a sequence of several actions (a few moves, builds, a card, score
steps), so the turn as a whole is what gets searched, as in Online Evolutionary
Planning (Justesen et al., "Playing Multi-Action Adversarial Games: Online
Evolutionary Planning versus Tree Search", IEEE TCIAIG 2017):

1. *Seeds.* The greedy turn of the heuristic level, then a beam (width 10) over the
   actions of the turn (``plan_turn``) on a smaller share of the budget than the
   ``search`` level gives it (``_BEAM_SHARE``).
2. *Genome.* A decision is a list of actions. It is decoded by playing the actions
   in order on a sampled world (``_hidden``: other hands and deck order dealt at
   random, never read from the real game); an action that is not legal at its point
   is *repaired* into a random legal one (actions drawn by kind first, so that the
   forty-odd card plays do not crowd out moves and builds), and once the genes run
   out the leftover action points go to score steps before ``end``. The decoded
   list is the genome from then on, so every genome is a legal decision. A decode
   costs one evaluation plus a quarter per action played and the legal lists its
   repairs read.
3. *Population.* The best seeds and random repairs of them; each generation keeps
   the best quarter and fills up with one-point crossovers of two tournament winners
   plus mutations (an action replaced by another legal one at that point, a tail cut
   off and re-grown, two actions swapped, one dropped). Fitness is the static
   evaluation (``_evaluate``) of the position at the end of the decision. Each end
   position is kept once: a reordering of the same actions is not a new turn, so
   the turns compared next are really different ones.
4. *Monte Carlo among near-equal turns*, with more of the budget than ``search``
   gives it (about half, against a fifth): the best distinct turns within
   ``_NEAR_TIE`` of the top value are played in freshly sampled worlds (the same
   worlds for every turn) against greedy replies that look at fewer actions than
   ``search``'s, so more samples fit; successive halving down to the last two, which
   are sampled for as long as the budget lasts.

Measured (2026-12-01, the project's 2-core VM shared with other work, Python
3.11; bench/ai_bench.py --pairings expert-search --variant all --seconds 0.5
--workers 1, run with the wall-clock deadline off so that every decision is
fixed by its seed and its node budget and two versions meet the same games; 25%
is even): the version before these changes won 4/28 on seeds 7000-7027 (14%, 95%
CI 6-31%, mean margin over the best opponent -19.4 points); this version 7/28
(25%, CI 13-43%, margin -16.9) on the same seeds. Within noise of each other.

Work is counted in evaluated positions (``Budget``) at the rate ``search`` gets,
so the same seed gives the same decision; the wall clock only cuts it short on a
much slower machine.
"""

from __future__ import annotations

import math
import random
from typing import Any

from engine.ai._evaluate import evaluate
from engine.ai._hidden import sample_game
from engine.ai._plan import (
    _MAX_TURN_ACTIONS,
    SINGLE_STAGES,
    Budget,
    _key,
    finish,
    greedy_decision,
    legal_cost,
    plan_turn,
    single_decision,
)
from engine.events import Event, Stage, decision_over

_BEAM_WIDTH = 10
_BEAM_SHARE = 0.4  # of the budget left after the greedy turn
_EVOLVE_SHARE = 0.2  # of what is left after the beam; the rest goes to the rollouts
_POPULATION = 16
_ELITE = 4
_TOURNAMENT = 3
_CROSSOVER = 0.5  # share of children made by crossover (then mutated lightly)
_STALL = 8  # generations without a better best: restart all but the elite
_CANDIDATES = 4
_NEAR_TIE = 1.0  # only turns this close to the best value go to the rollouts
_REPLY_MOST = 8  # actions the simulated replies consider per step
_REPLY_CARDS = 2


class _Individual:
    __slots__ = ("actions", "key", "value")

    def __init__(self, actions: list[str], value: float, key: tuple[Any, ...]) -> None:
        self.actions = actions
        self.value = value
        self.key = key


def expert_decision(
    game: Any, me: str, view: dict[str, Any], rng: random.Random, budget: Budget
) -> list[str]:
    """The expert's decision for *me*; reads only *view* (``game`` for re-sampling)."""
    world = sample_game(game, me, rng, view)
    if world.stage in SINGLE_STAGES:
        return single_decision(world, me, rng, budget)
    # The greedy turn first (what the heuristic level plays), so that even a tiny
    # budget gives a complete, sensible turn; then a wider beam.
    planned = plan_turn(world, me, rng, budget.share(0.5), width=1, most=60, cards=10)
    if not budget.exhausted:
        planned += plan_turn(
            world, me, rng, budget.share(_BEAM_SHARE), width=_BEAM_WIDTH, most=90, cards=30
        )
    planned.sort(key=lambda r: -r[0])
    seen: dict[tuple[Any, ...], float] = {}
    population = _seed(world, me, planned, rng, budget, seen)
    if not population:
        return finish(world, me, [], False)
    population = _evolve(world, me, rng, budget.share(_EVOLVE_SHARE), population, seen)
    candidates = [population[0].actions]
    statics = [population[0].value]
    for ind in population[1:]:
        if len(candidates) >= _CANDIDATES or ind.value < statics[0] - _NEAR_TIE:
            break
        candidates.append(ind.actions)
        statics.append(ind.value)
    return _pick_by_rollouts(game, me, view, candidates, statics, rng, budget)


def _seed(
    world: Any,
    me: str,
    planned: list[tuple[float, list[str], bool]],
    rng: random.Random,
    budget: Budget,
    seen: dict[tuple[Any, ...], float],
) -> list[_Individual]:
    """The first population: the greedy and beam turns, then variations of them."""
    population: list[_Individual] = []
    for _, actions, final in planned:
        if len(population) >= _POPULATION // 2:
            break
        ind = _decode(world, me, finish(world, me, actions, final), rng, budget, seen)
        if ind is not None:
            population.append(ind)
    if not population:
        ind = _decode(world, me, [], rng, budget, seen)
        if ind is None:
            return []
        population.append(ind)
    tries = 0
    while len(population) < _POPULATION and tries < 2 * _POPULATION and not budget.exhausted:
        tries += 1
        child = _mutate(world, me, population[tries % len(population)].actions, rng, budget, seen)
        if child is not None:
            population.append(child)
    population.sort(key=lambda i: -i.value)
    return population


def _evolve(
    world: Any,
    me: str,
    rng: random.Random,
    budget: Budget,
    population: list[_Individual],
    seen: dict[tuple[Any, ...], float],
) -> list[_Individual]:
    """Generations until the budget is spent; returns the population, best first."""
    best = population[0].value
    stall = 0
    while not budget.exhausted:
        elite = population[:_ELITE]
        children: list[_Individual] = []
        attempts = 0
        while len(children) < _POPULATION - _ELITE and attempts < 3 * _POPULATION:
            attempts += 1
            if budget.exhausted:
                break
            a = _tournament(population, rng)
            if rng.random() < _CROSSOVER and len(population) > 1:
                b = _tournament(population, rng)
                genes = _crossover(a.actions, b.actions, rng)
                if rng.random() < 0.3:
                    child = _mutate(world, me, genes, rng, budget, seen)
                else:
                    child = _decode(world, me, genes, rng, budget, seen)
            else:
                child = _mutate(world, me, a.actions, rng, budget, seen)
            if child is not None:
                children.append(child)
        population = sorted(elite + children, key=lambda i: -i.value)[:_POPULATION]
        if population[0].value > best + 1e-9:
            best = population[0].value
            stall = 0
            continue
        stall += 1
        if stall >= _STALL:
            # Converged: keep the elite and grow fresh turns from cut-off prefixes.
            stall = 0
            fresh = []
            for _ in range(_POPULATION - _ELITE):
                if budget.exhausted:
                    break
                body = _body(elite[rng.randrange(len(elite))].actions)
                cut = body[: rng.randrange(len(body) + 1)]
                ind = _decode(world, me, cut, rng, budget, seen, grow=True)
                if ind is not None:
                    fresh.append(ind)
            population = sorted(elite + fresh, key=lambda i: -i.value)
    return population


def _tournament(population: list[_Individual], rng: random.Random) -> _Individual:
    picks = [population[rng.randrange(len(population))] for _ in range(_TOURNAMENT)]
    return max(picks, key=lambda i: i.value)


def _crossover(a: list[str], b: list[str], rng: random.Random) -> list[str]:
    """One-point crossover of two action lists (repair happens in the decoding)."""
    body_a, body_b = _body(a), _body(b)
    if not body_a or not body_b:
        return list(body_a or body_b)
    i = rng.randrange(len(body_a) + 1)
    j = rng.randrange(len(body_b) + 1) if rng.random() < 0.5 else min(i, len(body_b))
    return body_a[:i] + body_b[j:]


def _body(actions: list[str]) -> list[str]:
    """The actions without the trailing score steps and ``end`` the decoder adds."""
    out = list(actions)
    while out and out[-1] in ("end", "score"):
        out.pop()
    return out


def _mutate(
    world: Any,
    me: str,
    actions: list[str],
    rng: random.Random,
    budget: Budget,
    seen: dict[tuple[Any, ...], float],
) -> _Individual | None:
    body = _body(actions)
    kind = rng.random()
    if not body or kind < 0.45:
        # Replace one action (or add one at the end) by a random legal one there.
        at = rng.randrange(len(body) + 1)
        return _decode(world, me, body, rng, budget, seen, mutate_at=at)
    if kind < 0.75:
        # Cut the tail and let the decoder grow a new one.
        at = rng.randrange(len(body))
        return _decode(world, me, body[:at], rng, budget, seen, grow=True)
    if kind < 0.9 and len(body) > 1:
        i, j = rng.sample(range(len(body)), 2)
        body[i], body[j] = body[j], body[i]
        return _decode(world, me, body, rng, budget, seen)
    # Drop one action (its action points go elsewhere).
    del body[rng.randrange(len(body))]
    return _decode(world, me, body, rng, budget, seen)


def _decode(
    world: Any,
    me: str,
    genes: list[str],
    rng: random.Random,
    budget: Budget,
    seen: dict[tuple[Any, ...], float],
    *,
    mutate_at: int = -1,
    grow: bool = False,
) -> _Individual | None:
    """Play *genes* on a copy of *world*, repairing illegal ones; evaluate the result.

    ``mutate_at``: the gene at that index (or a new one there) is drawn at random.
    ``grow``: once the genes run out, keep adding random actions (up to the action
    points) before the closing score steps, instead of closing at once.
    Returns None for a decision whose end position was already seen (a different
    order of the same actions, most often): it would add nothing.
    """
    game = world.copy()
    out: list[str] = []
    i = 0
    grown = 0
    while len(out) < _MAX_TURN_ACTIONS:
        gene = genes[i] if i < len(genes) else None
        action: str | None = None
        stage = game.stage
        events: list[Event] = []
        if gene is not None and i != mutate_at:
            try:
                events = game.play(gene)
                action = gene
            except ValueError:  # IllegalAction / NotationError: repair below
                action = None
        if action is None:
            legal = game.legal()
            budget.spend(legal_cost(legal))
            if not legal:
                return None
            if gene is None and i != mutate_at and not (grow and grown < 6):
                action = "score" if "score" in legal and (game.ap or 0) > 0 else "end"
                if action not in legal:
                    action = legal[0]
            else:
                action = _random_action(game, legal, rng)
                if gene is None:
                    grown += 1
            events = game.play(action)
        out.append(action)
        i += 1
        if decision_over(stage, events) or (action == "draw" and game.stage == Stage.DRAW_KEEP):
            break  # the turn is over, or a personal draw reveals what cannot be planned
    else:
        return None
    # A decoded turn plays several actions where the beam plays one per evaluation.
    budget.spend(1 + len(out) // 4)
    pos = game.position()
    key = _key(pos, me)
    if key in seen:
        return None
    value = seen[key] = evaluate(pos, me)
    return _Individual(out, value, key)


def _random_action(game: Any, legal: list[str], rng: random.Random) -> str:
    """A random legal action, by kind first (move, build, play, ...), then uniformly.

    ``end`` is left out while action points remain and anything else is legal: an
    unused action point is a point thrown away.
    """
    kinds: dict[str, list[str]] = {}
    for a in legal:
        if a == "end" and (game.ap or 0) > 0 and len(legal) > 1:
            continue
        kinds.setdefault(a.split(" ", 1)[0], []).append(a)
    if not kinds:
        return legal[0]
    group = kinds[rng.choice(sorted(kinds))]
    return rng.choice(group)


def _pick_by_rollouts(
    game: Any,
    me: str,
    view: dict[str, Any],
    candidates: list[list[str]],
    statics: list[float],
    rng: random.Random,
    budget: Budget,
) -> list[str]:
    """The candidate turn with the best mean after replies in sampled worlds.

    *candidates* come best first by their static values *statics*; the static order
    decides unless every candidate was tried in the same sampled worlds (common
    random numbers), whittled down by successive halving.
    """
    if len(candidates) == 1:
        return candidates[0]
    totals = [0.0] * len(candidates)
    counts = [0] * len(candidates)
    active = list(range(len(candidates)))
    per_round = 1
    rounds = 0
    while len(active) > 1 and not budget.exhausted:
        seeds = [rng.randrange(2**32) for _ in range(per_round)]
        finished = True
        for i in active:
            for s in seeds:
                rolled = _rollout(game, me, view, candidates[i], random.Random(s), budget)
                if rolled is None:
                    finished = False
                    break
                totals[i] += rolled
                counts[i] += 1
            if not finished:
                break
        if not finished:
            break
        rounds += 1
        active.sort(key=lambda i: -totals[i] / counts[i])
        # Halve, but keep the last two sampling while the budget lasts.
        active = active[: max(2, math.ceil(len(active) / 2))]
        per_round = min(2 * per_round, 4)
    most = max(counts)
    if rounds == 0 or most == 0:
        return candidates[0]
    best = max(
        (i for i in range(len(candidates)) if counts[i] == most),
        key=lambda i: (totals[i] / counts[i], statics[i]),
    )
    return candidates[best]


def _rollout(
    game: Any,
    me: str,
    view: dict[str, Any],
    turn: list[str],
    rng: random.Random,
    budget: Budget,
) -> float | None:
    """Play *turn* in a sampled world, let the others reply, evaluate for *me*.

    The replies are greedy turns that look at fewer actions per step than the
    ``search`` level's (``_REPLY_MOST``, ``_REPLY_CARDS``), so that more samples fit
    in the budget. Returns None when the budget ran out before the sample was complete.
    """
    world = sample_game(game, me, rng, view)
    world.play("; ".join(turn))
    budget.spend(3)
    steps = 0
    while world.stage != "over" and steps < 12:
        steps += 1
        player = world.to_move
        if player == me and world.stage != "draw-keep":
            break
        if budget.exhausted:
            return None
        reply = greedy_decision(
            world, player, rng, budget, width=1, most=_REPLY_MOST, cards=_REPLY_CARDS
        )
        world.play("; ".join(reply))
    return evaluate(world.position(), me)
