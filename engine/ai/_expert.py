"""The "expert" level: evolution over whole turns.

A turn in Torres is a sequence of several actions (a few moves, builds, a card, score
steps), so the turn as a whole is what gets searched, as in Online Evolutionary
Planning (Justesen et al., "Playing Multi-Action Adversarial Games: Online
Evolutionary Planning versus Tree Search", IEEE TCIAIG 2017):

1. *Genome.* A decision is a list of actions. It is decoded by playing the actions
   in order on a sampled world (``_hidden``: other hands and deck order dealt at
   random, never read from the real game); an action that is not legal at its point
   is *repaired* into a random legal one (actions drawn by kind first, so that the
   forty-odd card plays do not crowd out moves and builds), and once the genes run
   out the leftover action points go to score steps before ``end``. The decoded
   list is the genome from then on, so every genome is a legal decision.
2. *Population.* Seeded with the greedy turn, the beam's best turns (``_plan``) and
   random repairs of them; each generation keeps the best quarter, and fills up with
   one-point crossovers of two tournament winners plus mutations (an action
   replaced by another legal one at that point, a tail cut off and re-grown, two
   actions swapped). Fitness is the expert's static evaluation (``_expert_eval``:
   the shared ``_evaluate``, plus with the common deck an extra for each of a
   player's first three knights and more weight on the cards in hand) of the
   position at the end of the decision.
   Duplicate decisions are kept once. The same evaluation ranks the greedy and
   beam turns that seed it and the setup choices.
3. *The decision* is the best member of the last generation. The Monte Carlo among
   near-equal turns that ``search`` ends with (and the expert did until 2026-12-02)
   is left out: without it the expert was not weaker against three ``search``
   players, and its decisions took a quarter less time (docs/expert-experiments.md).

What was tried to make it stronger, with figures, is recorded in
docs/expert-experiments.md. Against three ``search`` players at 1 s it wins 40% of
4-player games (405/1000, 2026-12-03; README), where 25% is even.

Work is counted in evaluated positions (``Budget``), so the same seed gives the same
decision; the wall clock only cuts it short on a much slower machine.
"""

from __future__ import annotations

import random
from typing import Any

from engine.ai._expert_eval import evaluate_world
from engine.ai._hidden import sample_game
from engine.ai._plan import (
    _MAX_TURN_ACTIONS,
    SINGLE_STAGES,
    Budget,
    finish,
    legal_cost,
    plan_turn,
    single_decision,
)
from engine.events import Event, Stage, decision_over

_POPULATION = 24
_ELITE = 6
_TOURNAMENT = 3
_CROSSOVER = 0.5  # share of children made by crossover (then mutated lightly)
_SEED_SHARE = 0.6  # of the budget at most, for the greedy and beam turns that seed it
# Of what is left after seeding (as measured; the rest used to go to the rollouts, and
# more nodes have not made the expert stronger: docs/expert-experiments.md).
_EVOLVE_SHARE = 0.6
_STALL = 12  # generations without a better best: restart all but the elite


class _Individual:
    __slots__ = ("actions", "value")

    def __init__(self, actions: list[str], value: float) -> None:
        self.actions = actions
        self.value = value


def expert_decision(
    game: Any, me: str, view: dict[str, Any], rng: random.Random, budget: Budget
) -> list[str]:
    """The expert's decision for *me*; reads only *view* (``game`` for re-sampling)."""
    world = sample_game(game, me, rng, view)
    if world.stage in SINGLE_STAGES:
        return single_decision(world, me, rng, budget, value=evaluate_world)
    population = _seed(world, me, rng, budget)
    if not population:
        return finish(world, me, [], False)
    population = _evolve(world, me, rng, budget.share(_EVOLVE_SHARE), population)
    return population[0].actions


def _seed(world: Any, me: str, rng: random.Random, budget: Budget) -> list[_Individual]:
    """The first population: greedy and beam turns, then random variations of them.

    The greedy and beam turns get ``_SEED_SHARE`` of *budget*; the decoding of the
    population stops once *budget* (the whole decision's) is spent.
    """
    share = budget.share(_SEED_SHARE)
    # The greedy turn first (by the expert's own evaluation) with most of this share,
    # so that even a small budget starts from a complete, sensible turn.
    planned = plan_turn(
        world, me, rng, share.share(0.5), width=1, most=60, cards=10, value=evaluate_world
    )
    if not share.exhausted:
        planned += plan_turn(
            world, me, rng, share, width=10, most=90, cards=30, value=evaluate_world
        )
    planned.sort(key=lambda r: -r[0])
    population: list[_Individual] = []
    seen: set[tuple[str, ...]] = set()
    for _, actions, final in planned:
        if len(population) >= _POPULATION // 2 or (population and budget.exhausted):
            break
        genes = finish(world, me, actions, final)
        ind = _decode(world, me, genes, rng, budget)
        if ind is not None and tuple(ind.actions) not in seen:
            seen.add(tuple(ind.actions))
            population.append(ind)
    if not population:
        ind = _decode(world, me, [], rng, budget)
        if ind is None:
            return []
        population.append(ind)
        seen.add(tuple(ind.actions))
    tries = 0
    while len(population) < _POPULATION and tries < 2 * _POPULATION and not budget.exhausted:
        tries += 1
        parent = population[tries % len(population)]
        child = _mutate(world, me, parent.actions, rng, budget)
        if child is not None and tuple(child.actions) not in seen:
            seen.add(tuple(child.actions))
            population.append(child)
    population.sort(key=lambda i: -i.value)
    return population


def _evolve(
    world: Any,
    me: str,
    rng: random.Random,
    budget: Budget,
    population: list[_Individual],
) -> list[_Individual]:
    """Generations until the budget is spent; returns the population, best first."""
    seen = {tuple(i.actions) for i in population}
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
                child = _decode(world, me, genes, rng, budget)
                if child is not None and rng.random() < 0.3:
                    child = _mutate(world, me, child.actions, rng, budget)
            else:
                child = _mutate(world, me, a.actions, rng, budget)
            if child is None:
                continue
            key = tuple(child.actions)
            if key in seen:
                continue
            seen.add(key)
            children.append(child)
        population = sorted(elite + children, key=lambda i: -i.value)[:_POPULATION]
        if population[0].value > best + 1e-9:
            best = population[0].value
            stall = 0
        else:
            stall += 1
            if stall >= _STALL:
                # Converged: keep the elite and grow fresh turns from random repairs.
                stall = 0
                fresh = [
                    _decode(
                        world,
                        me,
                        elite[0].actions[: rng.randrange(1 + len(elite[0].actions))],
                        rng,
                        budget,
                    )
                    for _ in range(_POPULATION - _ELITE)
                    if not budget.exhausted
                ]
                population = sorted(
                    elite + [f for f in fresh if f is not None], key=lambda i: -i.value
                )
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
    world: Any, me: str, actions: list[str], rng: random.Random, budget: Budget
) -> _Individual | None:
    body = _body(actions)
    kind = rng.random()
    if not body or kind < 0.45:
        # Replace one action (or add one at the end) by a random legal one there.
        at = rng.randrange(len(body) + 1)
        return _decode(world, me, body, rng, budget, mutate_at=at)
    if kind < 0.75:
        # Cut the tail and let the decoder grow a new one.
        at = rng.randrange(len(body))
        return _decode(world, me, body[:at], rng, budget, grow=True)
    if kind < 0.9 and len(body) > 1:
        i, j = rng.sample(range(len(body)), 2)
        body[i], body[j] = body[j], body[i]
        return _decode(world, me, body, rng, budget)
    # Drop one action (its action points go elsewhere).
    del body[rng.randrange(len(body))]
    return _decode(world, me, body, rng, budget)


def _decode(
    world: Any,
    me: str,
    genes: list[str],
    rng: random.Random,
    budget: Budget,
    *,
    mutate_at: int = -1,
    grow: bool = False,
) -> _Individual | None:
    """Play *genes* on a copy of *world*, repairing illegal ones; evaluate the result.

    ``mutate_at``: the gene at that index (or a new one there) is drawn at random.
    ``grow``: once the genes run out, keep adding random actions (up to the action
    points) before the closing score steps, instead of closing at once.
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
    budget.spend()
    return _Individual(out, evaluate_world(game, me))


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
