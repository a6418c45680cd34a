"""The "expert" level: evolution over whole turns, then Monte Carlo among the best.

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
   player's first three knights) of the position at the end of the decision.
   Duplicate decisions are kept once. The same evaluation ranks the greedy and
   beam turns that seed it, the rollouts' end positions and the setup choices.
3. *Monte Carlo among near-equal turns* (shared with ``search``): the best distinct
   turns within ``_NEAR_TIE`` of the top value are played in freshly sampled worlds
   against quick greedy replies, compared by successive halving.

Measured (bench/ai_bench.py --pairings expert-search --variant all --seconds 0.3,
24 games a run, a busy 2-core machine, 2026-12-01): 3/24 = 12.5% against three
``search`` players (95% CI 4-31%; 25% is even) on the engine as it was; 9/24 = 37.5%
(CI 21-57%) once the engine core was made faster (castle tables shared per board,
doors and reach kept across blocks). At 1 s, 100 games: 29% (CI 21-39%; README).
The issue's bar is 40% over 200 games at 1 s a decision.

Later the same day (2-core VM shared with other work, Python 3.11; ai_bench.py
--pairings expert-search --variant all --seconds 0.5 --workers 1, run with the
wall-clock deadline off so that each decision is fixed by its seed and node budget
and two versions meet the same games; reruns of seeds reproduced them exactly):

- this version (before the budget fix below), seeds 7000-7047: 11/48 = 23% (95% CI 13-37%), mean margin over the
  best opponent -14.2 points;
- each end position kept once in the population, decodes charged a quarter node
  per action, the beam at 0.4 of the budget and evolution at 0.2 of the rest, about
  half the budget to the Monte Carlo with cheaper replies (8 actions a step, 2
  cards) and the last two candidates sampled while the budget lasted: 13/48 = 27%
  (CI 17-41%), margin -20.5 on the same seeds (paired margin difference -6.2 ±
  7.3), and 2/18 on seeds 7048-7065: not better, not kept;
- the same, with rollouts in which the others end their turns at once and I play a
  greedy turn of my own before the evaluation (a two-turn look, ~9 samples a
  decision instead of ~2): 4/28 on seeds 7000-7027 against 4/28 for this version
  (margins -23.2 and -19.4): not better, not kept.

Offline, on 14 four-player positions at 2,800 nodes, the best end-of-turn static
value the evolution reaches (seeded by the greedy turn and a smaller beam) was 0.6
to 1.2 points below what ``search``'s wider beam finds among its near-ties: per node,
evolution with random repairs is a weaker optimiser of the static value than the
beam (a decode costs ~12 nodes, mostly the legal lists its repairs read).

The seeding stops decoding once the decision's whole budget is spent; before, it
went on regardless (40 nodes allowed, up to 1,812 used). That matters only when
the seeding alone uses up the budget (below about 0.2 s a decision), so the figures
above still hold.

Tried next, an evaluation of the expert's own (same bench, seeds 7000-7047, 0.5 s,
deadline off, 2026-12-01; three of this version's games rerun came out identical;
margins paired game by game with this version's, ± one standard error). The weights
came from least squares of the points each player gained from a position to the end
of the game, over 50 four-player games between ``heuristic`` players (seeds
90000-90049, all variants; 2,400 / 1,800 / 1,800 player-positions in phases 1-3).
The one clear finding: beyond the shared value, the first three knights on the board
are worth ~24 points each in phase 1 and ~6 in phase 2 (nothing in phase 3 or beyond
three knights), in each variant (14-30 in phase 1); players that ended phase 1 with
one or two knights finished with 83 and 120 points on average, with three or more
172-182. None of the versions below was better, so none was kept:

- fitted weights throughout (castle points 3.7 / 1.8 / 1.0 by phase, first three
  knights 26 / 10 / 0.6, king's bonus, climb, intercepts per turns left; cards and
  master card as shared), with the beam given as much budget as ``search``'s and
  evolution 0.4 of the rest: 12/48 = 25% (CI 15-39%), margin -20.7 (paired -6.4 ±
  4.9);
- the shared value plus 20 / 5 / 0 points per first-three knight, same budget
  split: 14/48 = 29% (CI 18-43%), margin -17.5 (paired -3.3 ± 5.5);
- that evaluation alone in this version (beam, evolution, rollouts and setup
  choices): 10/48 = 21% (CI 12-34%), margin -22.6 (paired -8.4 ± 6.4). By variant,
  each of the three versions gained with the common deck and lost ground, by margin,
  in the other two (this one: common 7/16 against this version's 3/16, margin -2.9
  against -20.7; master 3/16 against 4/16, -37.8 against -6.6; personal 0/16 against
  4/16, -27.2 against -15.4). On fresh common-deck games (seeds 8000-8023, same
  settings) it won 8/24 = 33% (CI 18-53%) against this version's 5/24 = 21% (CI
  9-40%), margin -10.5 against -15.0 (paired +4.5 ± 6.8): a lead for the common deck
  only, not yet shown.

Kept, after a confirmation on fresh seeds (2026-12-02, same bench settings: 0.5 s,
deadline off, one worker, each game played by this version and by the one before
it, paired by seed): that evaluation with the common deck only (the shared value
plus 20 / 5 / 0 points per first-three knight by pending phase; with personal decks
and in the master version the shared value as before, so those games are unchanged).
On 64 fresh common-deck games against three ``search`` players (the common games of
seeds 9000-9047, and seeds 9100-9147 all with the common deck, seats rotating) it
won 16/64 = 25% (95% CI 16-37%) against the version before's 6/64 = 9% (CI 4-19%):
14 games won only by this version, 4 only by the one before (exact McNemar p =
0.03); mean margin over the best opponent -15.1 against -19.5 (paired +4.4 ± 3.7,
within about one standard error). With the earlier fresh games 8000-8023: 24/88
against 11/88 (p = 0.02), paired margin +4.4 ± 3.3. What it changes: it adds two
knights in its first turn (three knights after the first turn on average, against
1.9) rather than building first; after phase 1 it has as many knights as before
(3.9 against 3.8). In the records of the version before (74 games, seeds 9000-9147)
it cashed more action points as score steps than its ``search`` opponents, and they
more than the winners (phase 1: 1.6, 1.3 and 1.1 steps a player; phase 2: 4.9, 4.4
and 3.9): early points on the track are dearer than they look to the evaluation.
Against three ``search`` players the expert is now about even in common-deck games
(25%), still short of the issue's 40%.
On all 48 games of seeds 9000-9047 (all three variants) this version wins 10/48 = 21%
(95% CI 12-34%), the one before 8/48 = 17% (CI 9-30%); margin -17.7 against -19.3.

Tried with it and not kept: a smaller extra with personal decks and in the master
version (10 / 3 / 0 points per first-three knight). On the 32 personal and master
games of seeds 9000-9047 it won 4/32 = 12% (CI 5-28%) against 6/32 = 19% (CI 9-35%)
without it, margin -33.5 against -21.8 (paired -11.7 ± 7.1; personal -5.1 ± 6.4,
master -18.2 ± 12.7): in those variants even a smaller knight extra loses ground.

Tried next for personal decks and the master version (2026-12-02, same settings: 0.5
s, deadline off, one worker a version, seeds 11000-11095, the 64 personal and master
games among them, each played by this version and by the change; paired by seed).
In the records of this version's 32 personal and master games of seeds 9000-9047 it
differed from its ``search`` opponents most in three ways: it drew about twice as
often with personal decks (2.6 / 2.4 / 2.2 draws a phase against 1.2 / 1.7 / 1.3;
in the fresh games below, 21 second draws right after a keep against 5 an
opponent), cashed more action points as score steps early (phase 1: 1.6 against
1.0 personal, 4.7 against 3.6 master; phase 2: 5.9 against 4.6 and 9.9 against
8.8), and had fewer knights after phase 2 (4.4 against 5.1 and 4.9 against 5.4);
across all players of those games more knights went with lower, not higher, final scores. On the fresh seeds
this version won 15/64 = 23% (95% CI 15-35%), margin -20.8, its final score equal
to its opponents' mean (229 against 230): about even there, unlike the 6/32 of
seeds 9000-9047. None of the changes below was shown better, so none was kept:

- a charge on my own actions beyond the end position's value, also taken off the
  rollout means: 0.5 / 0.3 / 0 points a score step by phase, and 0.4 a draw with
  personal decks: 13/64 = 20% (CI 12-32%) against 15/64, margin -20.9 against
  -20.8 (paired -0.1 ± 3.8; 4 games won only by it, 6 only by this version,
  McNemar p = 0.75; personal -2.5 ± 4.5, master +2.2 ± 6.2). It did what it was
  meant to (score steps a phase 2.5 / 6.5 -> 2.1 / 5.7, knights after phase 2 5.2 ->
  5.4) without winning more; the draws did not drop (1.5 / 1.2 / 1.4 -> 1.3 / 1.6 /
  1.1);
- a charge of 1 point a draw with personal decks only: draws a phase 3.1 / 2.4 / 2.8
  -> 1.8 / 1.5 / 1.8 (its opponents 1.3 / 1.8 / 1.4), yet 9/32 against 8/32 on the 32
  personal games, margin -18.8 against -15.7 (paired -3.1 ± 5.2; 6 won only by it,
  5 only by this version, p = 1.0). Drawing more than the others is not what costs
  the expert its games.
- valuing my worth against the best other at 0.75 and the others' mean at 0.25
  (rather than 0.5 and 0.5; end-of-game values as before) with personal decks and in
  the master version: 15/64 against 15/64, margin -21.6 against -20.8 (paired -0.8 ±
  4.2; 6 and 6 games won only by one, p = 1.0; personal +4.1 ± 3.7, master -5.7 ±
  7.6). The personal games alone were then played again on fresh seeds
  (11096-11191, the 32 personal games): 7/32 against 5/32, margin -12.7 against
  -18.6 (paired +5.9 ± 5.0; 5 won only by it, 3 only by this version, p = 0.73);
  over all 64 personal games 16 against 13 (25% and 20%), paired +5.0 ± 3.1, p =
  0.61. A lead with personal decks only, picked from a split of the first run and
  not shown (1.6 standard errors): not kept.

More nodes, same strength (2026-12-02): once the players evaluated game states
instead of written positions, a node cost about half as much, and the budget went
from 7,000 to 18,000 nodes a second of decision (``NODES_PER_SECOND``; an expert
decision takes as long as before, ``search`` stops before using it all). Against
three ``search`` players at 1 s (ai_bench.py, all variants, 2 workers, quiet
machine): 66/200 = 33% (95% CI 27-40%), mean margin -14.7, against 47/144 = 33% on
seeds 1-144 at 7,000.

Work is counted in evaluated positions (``Budget``), so the same seed gives the same
decision; the wall clock only cuts it short on a much slower machine.
"""

from __future__ import annotations

import random
from typing import Any

from engine.ai._expert_eval import evaluate_world as evaluate
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
from engine.ai._search import pick_by_rollouts
from engine.events import Event, Stage, decision_over

_POPULATION = 24
_ELITE = 6
_TOURNAMENT = 3
_CROSSOVER = 0.5  # share of children made by crossover (then mutated lightly)
_SEED_SHARE = 0.6  # of the budget at most, for the greedy and beam turns that seed it
_EVOLVE_SHARE = 0.6  # of what is left after seeding; the rest goes to the rollouts
_CANDIDATES = 4
_NEAR_TIE = 1.0
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
        return single_decision(world, me, rng, budget, value=evaluate)
    population = _seed(world, me, rng, budget)
    if not population:
        return finish(world, me, [], False)
    population = _evolve(world, me, rng, budget.share(_EVOLVE_SHARE), population)
    candidates: list[list[str]] = []
    statics: list[float] = []
    for ind in population:
        if candidates and ind.value < statics[0] - _NEAR_TIE:
            break
        if ind.actions not in candidates:
            candidates.append(ind.actions)
            statics.append(ind.value)
        if len(candidates) >= _CANDIDATES:
            break
    return pick_by_rollouts(game, me, view, candidates, statics, rng, budget, evaluate)


def _seed(world: Any, me: str, rng: random.Random, budget: Budget) -> list[_Individual]:
    """The first population: greedy and beam turns, then random variations of them.

    The greedy and beam turns get ``_SEED_SHARE`` of *budget*; the decoding of the
    population stops once *budget* (the whole decision's) is spent.
    """
    share = budget.share(_SEED_SHARE)
    # The greedy turn first (by the expert's own evaluation) with most of this share,
    # so that even a small budget starts from a complete, sensible turn.
    planned = plan_turn(
        world, me, rng, share.share(0.5), width=1, most=60, cards=10, value=evaluate
    )
    if not share.exhausted:
        planned += plan_turn(world, me, rng, share, width=10, most=90, cards=30, value=evaluate)
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
    return _Individual(out, evaluate(game, me))


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
