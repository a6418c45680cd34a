"""Decision builders shared by the levels: random turns, setup choices, turn beam search.

Everything here works on a *sampled* game (see ``_hidden``), never on the game the
caller holds. A "decision" is what one call of ``choose_actions`` returns: one setup
or king action, or the actions of a turn up to ``end`` (cut right after a personal
``draw``, whose outcome the player cannot know in advance).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.ai._evaluate import evaluate_world
from engine.events import SETUP_STAGES, Stage, decision_over
from engine.rules.tables import BASE_AP

SINGLE_STAGES = SETUP_STAGES
Evaluation = Callable[[Any, str], float]  # (game, player): see _evaluate.evaluate_world
_MAX_TURN_ACTIONS = 200  # a turn never gets near this; it guards against endless loops


class Budget:
    """Work allowance in evaluated positions ("nodes"), plus a wall-clock deadline.

    Stopping on nodes keeps a decision deterministic for a seed; the deadline only
    guards the time budget on a machine much slower than expected.
    """

    def __init__(self, nodes: int, deadline: float) -> None:
        self.nodes = nodes
        self.used = 0
        self.deadline = deadline

    def spend(self, n: int = 1) -> None:
        self.used += n

    @property
    def exhausted(self) -> bool:
        return self.used >= self.nodes or time.perf_counter() >= self.deadline

    def share(self, fraction: float) -> Budget:
        """A sub-budget of *fraction* of what is left, counted against this one too."""
        sub = _SubBudget(self, int(max(0, self.nodes - self.used) * fraction))
        return sub


class _SubBudget(Budget):
    def __init__(self, parent: Budget, nodes: int) -> None:
        super().__init__(nodes, parent.deadline)
        self.parent = parent

    def spend(self, n: int = 1) -> None:
        self.used += n
        self.parent.spend(n)

    @property
    def exhausted(self) -> bool:
        return self.used >= self.nodes or self.parent.exhausted


def random_decision(
    game: Any,
    rng: random.Random,
    *,
    cap: int = 40,
    end_chance: float | None = None,
    through_draw: bool = False,
) -> list[str]:
    """Random legal actions for the player to move until the decision is over (``game``
    is left unchanged).  The engine says when a decision is over (``decision_over``).

    Without ``end_chance``: uniform among all legal actions, ``end`` forced after *cap*
    actions (the ``random`` level).  With it: ``end`` at that chance each step, any
    other action otherwise, ``end`` after *cap* (the bot's safety net).  A personal
    ``draw`` ends the decision unless ``through_draw`` (a player on a sampled world
    cannot know what the draw reveals).
    """
    world = game.copy()
    actions: list[str] = []
    while len(actions) < _MAX_TURN_ACTIONS:
        stage = world.stage
        legal = world.legal()
        if not legal:
            break
        if len(actions) >= cap and "end" in legal:
            action = "end"
        elif end_chance is None:
            action = rng.choice(legal)
        else:
            others = [a for a in legal if a != "end"]
            if "end" in legal and (not others or rng.random() < end_chance):
                action = "end"
            else:
                action = rng.choice(others or legal)
        events = world.play(action)
        actions.append(action)
        if decision_over(stage, events):
            return actions
        if action == "draw" and world.stage == Stage.DRAW_KEEP and not through_draw:
            return actions
    raise RuntimeError("a random turn did not end; the engine offered no way out")


def single_decision(
    world: Any,
    me: str,
    rng: random.Random,
    budget: Budget,
    noise: float = 0.0,
    *,
    value: Evaluation = evaluate_world,
) -> list[str]:
    """Setup or king decision: the legal action whose result evaluates best for *me*
    (by *value*, the shared static evaluation unless a level brings its own)."""
    legal = world.legal()
    budget.spend(legal_cost(legal))
    order = list(legal)
    rng.shuffle(order)  # ties (and a spent budget) resolve at random, reproducibly
    best, best_value = order[0], float("-inf")
    for action in order:
        if budget.exhausted:
            break
        child = world.copy()
        child.play(action)
        budget.spend()
        v = value(child, me) + (rng.random() * noise if noise else 0.0)
        if v > best_value:
            best, best_value = action, v
    return [best]


@dataclass
class _Node:
    value: float
    actions: list[str]
    game: Any = None
    parent: _Node | None = None
    final: bool = False  # the decision ended here (cut after a personal draw)
    key: tuple[Any, ...] = field(default=(), repr=False)


def _key(game: Any, me: str) -> tuple[Any, ...]:
    """What distinguishes two positions reached within one turn (for transpositions):
    what ``game.position()`` shows of the board, the scores and *me*'s cards and turn."""
    st = game._st  # the computer players are part of the engine
    seat = st.names.index(me)
    stage = st.stage
    if stage is _PLAY or stage is _DRAW_KEEP:
        turn = (st.ap, st.turn_stack, st.played, tuple(st.revealed))
    else:  # no turn in progress: the position shows a fresh turn
        turn = _NO_TURN
    return (
        tuple(st.heights),
        tuple(map(tuple, map(sorted, st.knights))),
        st.king,
        tuple(st.scores),
        tuple(sorted(st.hands[seat])),
        tuple(st.stacks[seat]),
        turn,
        stage,
        st.supply,
    )


_PLAY, _DRAW_KEEP = Stage.PLAY, Stage.DRAW_KEEP
_NO_TURN = (BASE_AP, None, False, ())


def legal_cost(legal: list[str]) -> int:
    """Budget charged for generating *legal*: long lists (card moves) take long."""
    return 1 + len(legal) // 8


def _limit(legal: list[str], rng: random.Random, most: int, cards: int) -> list[str]:
    """At most *most* actions, of which at most *cards* card plays (random picks)."""
    plays = [a for a in legal if a.startswith("play ")]
    rest = [a for a in legal if not a.startswith("play ") and a != "end"]
    if len(plays) > cards:
        plays = rng.sample(plays, cards)
    if len(rest) + len(plays) > most:
        rest = rng.sample(rest, max(0, most - len(plays)))
    return rest + plays


def _replay(root: Any, actions: list[str]) -> Any:
    game = root.copy()
    for a in actions:
        game.play(a)
    return game


def plan_turn(
    world: Any,
    me: str,
    rng: random.Random,
    budget: Budget,
    *,
    width: int,
    most: int,
    cards: int,
    max_depth: int = 16,
    value: Evaluation = evaluate_world,
) -> list[tuple[float, list[str], bool]]:
    """Beam search over the actions of *me*'s turn in *world* (left unchanged), ranked
    by *value* (the shared static evaluation unless a level brings its own).

    Returns the turn prefixes where the decision may stop, best first, as
    ``(value, actions, final)``; ``final`` means the decision is already over (cut
    after a personal draw), otherwise the caller completes it with ``finish``.
    """
    root = world.copy()
    budget.spend()
    start = _Node(value(root, me), [], root, key=_key(root, me))
    seen = {start.key}
    results: list[_Node] = []
    if root.stage == "play" and root.to_move == me:
        results.append(start)
    beam = [start]
    depth = 0
    while beam and depth < max_depth and not budget.exhausted:
        depth += 1
        children: list[_Node] = []
        for node in beam:
            game = node.game
            legal = game.legal()
            budget.spend(legal_cost(legal))
            for action in _limit(legal, rng, most, cards):
                if budget.exhausted:
                    break
                if action == "draw" or action.startswith("keep"):
                    child_game = after = game.copy()
                    child_game.play(action)
                else:
                    child_game = None
                    game.play(action)
                    after = game
                budget.spend()
                key = _key(after, me)
                fresh = key not in seen
                if fresh:
                    seen.add(key)
                    stage, to_move = after.stage, after.to_move
                    child = _Node(
                        value(after, me),
                        node.actions + [action],
                        child_game,
                        node,
                        final=not (stage == "play" and to_move == me),
                        key=key,
                    )
                    children.append(child)
                    if child.final:
                        if stage == "draw-keep" and to_move == me and action == "draw":
                            results.append(child)
                    else:
                        results.append(child)
                if child_game is None and not game.undo():
                    # The engine refused to take the action back: rebuild the parent.
                    game = node.game = _replay(world, node.actions)
        # Keep the best few that can go on; build their games now.
        go_on = sorted((c for c in children if not c.final), key=lambda c: -c.value)[:width]
        for child in go_on:
            if child.game is None:
                assert child.parent is not None and child.parent.game is not None
                child.game = child.parent.game.copy()
                child.game.play(child.actions[-1])
        beam = go_on
    results.sort(key=lambda n: -n.value)
    return [(n.value, n.actions, n.final) for n in results]


def finish(world: Any, me: str, actions: list[str], final: bool) -> list[str]:
    """Complete a planned prefix: spend leftover action points on score steps, then end."""
    if final:
        return list(actions)
    game = _replay(world, actions)
    out = list(actions)
    while (game.ap or 0) > 0 and len(out) < _MAX_TURN_ACTIONS:
        if "score" not in game.legal():
            break
        game.play("score")
        out.append("score")
    out.append("end")
    return out


def greedy_decision(
    world: Any,
    me: str,
    rng: random.Random,
    budget: Budget,
    *,
    width: int = 1,
    most: int = 60,
    cards: int = 10,
) -> list[str]:
    """The best decision the beam finds (width 1: greedy, one action at a time)."""
    if world.stage in SINGLE_STAGES:
        return single_decision(world, me, rng, budget)
    results = plan_turn(world, me, rng, budget, width=width, most=most, cards=cards)
    if not results:
        return random_decision(world, rng)
    _, actions, final = results[0]
    return finish(world, me, actions, final)
