"""The expert's own static evaluation: the shared one, plus what it misses most.

``_evaluate`` (shared by the heuristic and search levels) values a player's position
with hand-set weights. Fitted against how games ended, it misses one thing above all:
how much the first three knights on the board are worth early on. Least squares of
the points a player gained from a position to the end of the game, on the shared
value and the knight counts (2,400 / 1,800 / 1,800 player-positions in phases 1 / 2 / 3
of 50 four-player games between heuristic players, all three variants, seeds
90000-90049; one intercept per turns left in the phase), put 25 points (phase 1) and
6 (phase 2) on each of the first three knights beyond what the shared value gives
them, in each variant alike (19-24 in phase 1), and nothing on knights beyond three
or in phase 3. Players that ended phase 1 with one or two knights finished with 83
and 120 points on average, those with three or more with 172-182.

The extra is used with the common deck only: there it made the expert win more
often against three ``search`` players on fresh seeds (16/64 against 6/64; figures
in docs/expert-experiments.md), while with personal decks and in the master version
the same extra lost ground on the tuning seeds (7000-7047: 0/16 against 4/16 and
3/16 against 4/16).

The shared value compares a player's worth with half the best other's and half the
others' mean; the expert weighs that part twice (``_OTHERS``), in every variant, until
the game is over: a turn that hands points to the others costs it more. Against three
``search`` players (bench/ai_bench.py, 1 s, seeds 1-400) it won 144/400 games with
weight 2, 128/400 with 1.5 and 122/400 with the shared weight 1, ahead on both halves
of the seeds each time; weight 0.5 lost clearly (39/200). Figures in
docs/expert-experiments.md.

With the common deck the expert also weighs the cards in hand 1.5 times what the
shared value gives them (``_CARDS``; every player's hand alike). In common games
it drew and played fewer cards than ``search`` (2.6 draws and 1.9 plays a game
against 3.6 and 2.4, 80 games), while with personal decks, where it won most, it
drew and played far more. With the weight, against three ``search`` players (1 s,
seeds 1-400) it won 61 of the 136 common games against 50 of the same 136
without, and 164/400 in all.
"""

from __future__ import annotations

from typing import Any

from engine.ai._evaluate import (
    _OVER,
    pending_phase,
    player_values,
    relative_value,
    world_values,
)
from engine.rules.scoring import pending_phase as _pending_phase

# Extra worth of each of a player's first three knights, by pending phase.
_FIRST_KNIGHTS = {1: 20.0, 2: 5.0, 3: 0.0}
_FIRST = 3
_VARIANTS = ("common",)  # where the extra was measured to help (see the module doc)
_OTHERS = 2.0  # weight of the others' part of the relative value (see the module doc)
# Weight of the cards in hand, by variant (see the module doc); 1 where not listed.
_CARDS = {"common": 1.5}


def expert_values(pos: dict[str, Any]) -> dict[str, float]:
    """Each player's worth in points: the shared value plus the first knights' extra
    (common deck only; in the other variants the shared value as it is)."""
    knights = pos.get("knights") or {}
    variant = pos.get("variant", "common")
    return _with_extra(
        player_values(pos, _CARDS.get(variant, 1.0)),
        pending_phase(pos),
        variant,
        [len(knights.get(p, ())) for p in pos["players"]],
    )


def _with_extra(
    vals: dict[str, float], q: int | None, variant: str, counts: list[int]
) -> dict[str, float]:
    """*vals* (by player, in seat order) with the first knights' extra added."""
    extra = 0.0
    if q is not None and variant in _VARIANTS:
        extra = _FIRST_KNIGHTS.get(q, 0.0)
    if extra:
        for p, n in zip(vals, counts, strict=True):
            vals[p] += extra * min(_FIRST, n)
    return vals


def evaluate(pos: dict[str, Any], me: str) -> float:
    """The position's value for *me*, as ``_evaluate.evaluate`` but on ``expert_values``."""
    return relative_value(expert_values(pos), pos.get("stage") == "over", me, _OTHERS)


def evaluate_world(game: Any, me: str) -> float:
    """``evaluate(game.position(), me)``, without writing the position."""
    st = game._st  # the computer players are part of the engine
    q = _pending_phase(st.stage, st.phase, st.king is not None, st.round)
    cards = _CARDS.get(st.variant, 1.0)
    vals = _with_extra(world_values(game, cards), q, st.variant, [len(k) for k in st.knights])
    return relative_value(vals, st.stage is _OVER, me, _OTHERS)
