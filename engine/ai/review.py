"""A review of one player's decisions by the ``expert`` level, for ``/torres review``.

For each decision the player made, ``review_game`` asks what the expert thinks of it:
the position's worth for that player before and after the decision by the expert's
own evaluation (``_expert_eval.expert_values``: the points scored plus what the board,
the knights and the cards promise), and the expert's own decision at that point with
the worth it leads to. A decision whose worth falls well short of the expert's
(``MUCH`` points or more) is a *swing*; the largest ones are worth looking at first.

Hidden information is respected by construction: a decision is reviewed from the
player's view alone, ``position(viewer=player)`` before it and after it (their own
hand and the cards they drew, never another hand or the order of a deck). What a
view hides is sampled (``_hidden``) with a random generator seeded from the review's
seed and the decision's number, and the worth is the mean over ``samples`` such
worlds; the expert plans on the first of them. So the same views and seed give the
same review, whatever the hidden cards really were, and whichever process runs it.
Where the expert's decision draws from a personal deck, the suggestion stops at the
draw (the cards it reveals in the sampled world are made up), and its worth is the
expert's continuation after the draw in every sampled world, averaged.

Work is counted in evaluated positions (``nodes`` per expert decision) with no
deadline: a busy machine makes a review slower, never different.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import Any

from engine.ai import NODES_PER_SECOND
from engine.ai._expert import expert_decision
from engine.ai._expert_eval import expert_values
from engine.ai._hidden import sample_game
from engine.ai._plan import Budget
from engine.events import decision_over
from engine.record import Record

__all__ = [
    "MUCH",
    "NODES",
    "DecisionReview",
    "player_views",
    "review_decision",
    "review_game",
    "shown",
    "swings",
]

NODES = NODES_PER_SECOND
"""Evaluated positions per expert decision: the ``expert`` level's work in a decision
of 1 s (``engine.ai.NODES_PER_SECOND``), the bot's default time for a computer move
(``TORRES_AI_SECONDS``): the review's expert plays as the bot's does."""
SAMPLES = 3
MUCH = 5.0
"""Points of worth a decision must fall short of the expert's to count as a swing."""
_MAX_PARTS = 4  # expert calls a decision may take (a personal deck's draw splits one)


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """The expert's view of one decision of the reviewed player."""

    number: int  # the decision's number in the game's record (1 is the first)
    stage: str  # what was decided: castles, place, king or play (a turn)
    phase: int
    round: int
    played: tuple[str, ...]
    before: float  # the position's worth for the player before the decision
    after: float  # ... after it
    # The expert's own decision (empty if it found none), up to a personal deck's
    # first draw: what it reveals is not known, so only the draw is advice (``_cut``).
    suggested: tuple[str, ...]
    # The worth the expert's decision leads to: the mean over the sampled worlds, the
    # expert continuing after a personal draw in each with the cards drawn there.
    suggested_after: float
    position: dict[str, Any]  # after the decision played, as the player saw it
    # After the expert's (before its personal draw), in a sampled world.
    suggested_position: dict[str, Any] | None
    world: dict[str, Any]  # the sampled world the expert planned in (its hidden cards made up)

    @property
    def loss(self) -> int:
        """How much worth the decision gave away against the expert's (0 if none), as
        the two worths shown differ (``shown``): a swing is what the reader sees."""
        return max(0, shown(self.suggested_after) - shown(self.after))

    @property
    def swing(self) -> bool:
        """Whether the decision lost ``MUCH`` or more against the expert's."""
        return self.loss >= MUCH and self.suggested != self.played


def review_game(
    record: Record,
    player: str,
    *,
    seed: int = 0,
    nodes: int = NODES,
    samples: int = SAMPLES,
) -> list[DecisionReview]:
    """Every decision of *player* in *record*, reviewed (see the module doc).

    The record is replayed by the engine; each decision is reviewed from *player*'s
    views before and after it only (``review_decision``).

    :raises ValueError: *player* is not in the game, or the record does not replay.
    """
    return [
        review_decision(
            before, after, played, player, number=n, seed=seed, nodes=nodes, samples=samples
        )
        for n, before, after, played in player_views(record, player)
    ]


View = tuple[int, dict[str, Any], dict[str, Any], tuple[str, ...]]
"""A decision's number, the player's views before and after it, and its actions."""


def player_views(record: Record, player: str) -> list[View]:
    """*player*'s views before and after each of their decisions: all a review reads.

    Hidden information stays hidden here, once for every caller (``review_game``, the
    bot's workers): ``position(viewer=player)`` shows their own hand and draws only.

    :raises ValueError: *player* is not in the game, or the record does not replay.
    """
    if player not in record.players:
        raise ValueError(f"{player!r} does not play in this game.")
    game = record.new_game()
    out: list[View] = []
    for n, decision in enumerate(record.decisions, start=1):
        before = game.position(viewer=player) if decision.player == player else None
        game.play("; ".join(decision.actions))
        if before is not None:
            out.append((n, before, game.position(viewer=player), tuple(decision.actions)))
    return out


def review_decision(
    before: dict[str, Any],
    after: dict[str, Any],
    played: tuple[str, ...] | list[str],
    player: str,
    *,
    number: int,
    seed: int = 0,
    nodes: int = NODES,
    samples: int = SAMPLES,
) -> DecisionReview:
    """One decision, from *player*'s views *before* and *after* it (``position(viewer=)``).

    Reads nothing else: what the views hide is sampled, seeded by *seed* and *number*.
    """
    rng = random.Random(_seed(seed, number, player))
    worlds = [_world(before, player, rng) for _ in range(max(1, samples))]
    worth_before = _mean([_worth(w, player) for w in worlds])
    worth_after = _mean(
        [_worth(_world(after, player, rng), player) for _ in range(max(1, samples))]
    )
    suggested, planned = _expert(worlds[0], player, rng, nodes)
    suggested_after = worth_after
    suggested_position = None
    if planned is not None:
        cut = _cut(suggested)
        values = [_worth(planned, player)]
        for w in worlds[1:]:
            trial = w.copy()
            try:
                trial.play("; ".join(cut))
            except ValueError:  # never expected: the views agree on what was planned with
                continue
            if len(cut) < len(suggested):  # what the draw reveals differs: ask again
                trial = _expert(trial, player, rng, nodes)[1]
                if trial is None:
                    continue
            values.append(_worth(trial, player))
        suggested_after = _mean(values)
        shown = worlds[0].copy()
        shown.play("; ".join(cut[:-1] if len(cut) < len(suggested) else cut))
        suggested_position = shown.position(viewer=player)
        suggested = cut
    return DecisionReview(
        number=number,
        stage=str(before.get("stage")),
        phase=int(before.get("phase", 1)),
        round=int(before.get("round", 1)),
        played=tuple(played),
        before=worth_before,
        after=worth_after,
        suggested=tuple(suggested),
        suggested_after=suggested_after,
        position=after,
        suggested_position=suggested_position,
        world=worlds[0].position(),
    )


def shown(worth: float) -> int:
    """A worth as a review shows it: rounded half up (never banker's rounding).

    >>> shown(2.5), shown(3.5), shown(-0.5)
    (3, 4, 0)
    """
    return math.floor(worth + 0.5)


def swings(reviews: list[DecisionReview], n: int = 3) -> list[DecisionReview]:
    """The *n* decisions that lost most against the expert's, largest first."""
    found = [r for r in reviews if r.swing]
    return sorted(found, key=lambda r: (-r.loss, r.number))[:n]


def _expert(world: Any, me: str, rng: random.Random, nodes: int) -> tuple[list[str], Any]:
    """The expert's whole decision in *world*, and the world after it (None: none found).

    A personal deck's ``draw`` ends an expert decision (what it reveals is unknown);
    the expert is asked again for the rest, as a player would be.
    """
    game = world.copy()
    actions: list[str] = []
    for _ in range(_MAX_PARTS):
        view = game.position(viewer=me)
        part = expert_decision(game, me, view, rng, Budget(nodes, math.inf))
        for action in part:
            stage = game.stage
            try:
                events = game.play(action)
            except ValueError:  # never expected: the expert plans legal decisions only
                return [], None
            actions.append(action)
            if decision_over(stage, events):
                return actions, game
    return [], None


def _cut(actions: list[str]) -> list[str]:
    """*actions* up to a personal deck's first ``draw`` (the cards a ``keep`` after it
    names were made up by the sample the expert planned in: only the draw is advice).

    >>> _cut(["move a1 a2", "draw", "keep lift top", "end"])
    ['move a1 a2', 'draw']
    >>> _cut(["draw", "end"])
    ['draw', 'end']
    """
    for i, action in enumerate(actions):
        if action == "draw" and any(a.startswith("keep ") for a in actions[i + 1 :]):
            return actions[: i + 1]
    return actions


def _world(view: dict[str, Any], me: str, rng: random.Random) -> Any:
    """A world consistent with *view* (read from the view alone, never a real game)."""
    return sample_game(None, me, rng, view)


def _worth(world: Any, me: str) -> float:
    """What the position is worth in points for *me* by the expert's evaluation."""
    return expert_values(world.position())[me]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _seed(seed: int, number: int, player: str) -> int:
    blob = f"{seed}:{number}:{player}".encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "big")
