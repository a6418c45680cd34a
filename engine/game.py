"""``Game``: the public face of the engine (docs/notation.md, "Python interface").

A facade over one ``engine.state.State``; the rules themselves live in
``engine.rules`` (one module per part of the rules).  Undo keeps a stack of
frozen snapshots (``TurnSnapshot``) of the current turn, in the manner of python-chess's
``push``/``pop``.
"""

from __future__ import annotations

import secrets
from typing import Any

from .errors import notation_error
from .events import Event, Stage
from .notation import parse_actions, parse_square
from .position import read_position, write_position
from .rules.actions import TURN_ACTIONS, legal, step
from .rules.setup import new_state
from .rules.turn import do_build, do_end, do_move
from .state import State

SEED_BITS = 128
"""The width of a fresh seed (docs/rules.md, "Seeds and hidden cards")."""


def new_seed() -> int:
    """A fresh seed for a new game, from ``secrets``: every hidden card is shuffled from
    the seed, so it must be too wide to find by trying seeds against the cards a player
    has seen (2**31 seeds took a few core-hours)."""
    return secrets.randbits(SEED_BITS)


# Single actions of a turn that undo can take back (``score`` of one step included).
_UNDOABLE = frozenset(("move", "build", "play", "knight", "stack"))
_ONE_STEP = ("score", 1)
# Stage members as plain globals: attribute lookups on an enum class are slow.
_PLAY, _DRAW_KEEP, _OVER = Stage.PLAY, Stage.DRAW_KEEP, Stage.OVER


class Game:
    """A game of Torres in progress.  Create one with :meth:`new` or :meth:`from_position`."""

    __slots__ = ("_st", "_legal")

    def __init__(self, state: State) -> None:
        """Use :meth:`new` or :meth:`from_position`."""
        self._st = state
        self._legal: list[str] | None = None

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(
        cls,
        players: int | None = None,
        *,
        names: list[str] | None = None,
        variant: str = "common",
        seed: int = 0,
        master_card: str | None = None,
    ) -> Game:
        """Start a game at its first setup decision; all randomness comes from ``seed``.

        ``players`` defaults to 4, or to the number of ``names``.

        :raises NotationError: for an unknown variant or master card, bad player names,
            or ``players`` disagreeing with ``names``.
        """
        return cls(new_state(players, names, variant, seed, master_card))

    @classmethod
    def from_position(cls, d: Any) -> Game:
        """Read a torres-position/1 dict. :raises NotationError: if it is impossible."""
        return cls(read_position(d))

    def position(self, viewer: str | None = None) -> dict[str, Any]:
        """The position as a torres-position/1 dict; with ``viewer``, that player's view."""
        return write_position(self._st, viewer)

    def copy(self) -> Game:
        """An independent copy (undo history included)."""
        return Game(self._st.copy())

    # ------------------------------------------------------------------ reading

    @property
    def players(self) -> list[str]:
        return list(self._st.names)

    @property
    def variant(self) -> str:
        return self._st.variant

    @property
    def seed(self) -> int:
        return self._st.seed

    @property
    def stage(self) -> Stage:
        return self._st.stage

    @property
    def over(self) -> bool:
        return self._st.stage is _OVER

    @property
    def to_move(self) -> str | None:
        st = self._st
        return None if st.stage is _OVER else st.names[st.to_move]

    @property
    def phase(self) -> int:
        return self._st.phase

    @property
    def round(self) -> int:
        return self._st.round

    @property
    def scores(self) -> dict[str, int]:
        return dict(zip(self._st.names, self._st.scores, strict=True))

    @property
    def ap(self) -> int | None:
        """Action points left in the turn in progress, None outside a turn."""
        st = self._st
        return st.ap if st.stage is _PLAY or st.stage is _DRAW_KEEP else None

    @property
    def winners(self) -> list[str]:
        st = self._st
        if st.stage is not _OVER:
            return []
        best = max(st.scores)
        return [n for n, s in zip(st.names, st.scores, strict=True) if s == best]

    @property
    def can_undo(self) -> bool:
        return bool(self._st.undo)

    def hand(self, player: str) -> list[str]:
        """The cards in ``player``'s hand (hidden information: show only to that player)."""
        st = self._st
        if player not in st.names:
            raise notation_error("not_a_player", player=str(player))
        return list(st.hands[st.names.index(player)])

    def height(self, square: str) -> int:
        """How many blocks stand on ``square`` (its level), e.g. for naming a move
        "one level up" without building the whole position.

        :raises NotationError: ``square`` is not a square name.
        """
        return self._st.heights[parse_square(square)]

    def __repr__(self) -> str:
        st = self._st
        return (
            f"<Game {st.variant} {','.join(st.names)} stage={st.stage} "
            f"phase={st.phase} round={st.round} to_move={self.to_move}>"
        )

    # ------------------------------------------------------------------ playing

    def legal(self) -> list[str]:
        """Every legal single action of the player to move, canonical and sorted."""
        cached = self._legal
        if cached is None:
            cached = self._legal = legal(self._st)
        return cached[:]

    def play(self, text: str) -> list[Event]:
        """Apply every action in ``text``, all or nothing; return the events they caused.

        Events are typed (``engine.events``) and read like the dicts of the contract.

        :raises NotationError: if any clause is malformed (nothing is applied).
        :raises IllegalAction: if an action is illegal (nothing is applied).
        """
        actions = parse_actions(text)
        if not actions:
            raise notation_error("no_action")
        st = self._st
        listed = self._legal
        self._legal = None
        events: list[Event] = []
        if len(actions) == 1:
            a = actions[0]
            if st.stage is _PLAY and (a[0] in _UNDOABLE or a == _ONE_STEP):
                # One action that undo can take back: its snapshot is all it may change.
                snap = st.turn_snapshot(a[0])
                undo = st.undo
                undo_len = len(undo)
                try:  # step(st, a, events, snap), the stage and kind known
                    undo.append(snap)
                    kind: str = a[0]
                    if kind == "move":  # the most played: called directly (compiled, a C call)
                        do_move(st, a)
                    elif kind == "build":
                        do_build(st, a)
                    else:
                        TURN_ACTIONS[kind](st, a)
                except BaseException:
                    st.restore_turn(snap)
                    del st.undo[undo_len:]
                    raise
                return events
            if a[0] == "end" and st.stage is _PLAY:
                # Ending a turn cannot be refused: nothing to roll back (step(st, a,
                # events, None), the stage and kind known).
                do_end(st, events)
                return events
            if listed is not None and a[0] != "score" and text in listed:
                # In the legal list: it cannot be refused, so there is nothing to roll back.
                step(st, a, events, None)
                return events
        before = st.snapshot()
        if len(actions) == 1 and actions[0][0] != "score":
            undo_len = len(st.undo)  # one action: it can only push, or clear and succeed
            try:
                step(st, actions[0], events, None)
            except BaseException:
                st.restore(before)
                del st.undo[undo_len:]
                raise
            return events
        undo_before = st.undo[:]
        try:
            for a in actions:
                if a[0] == "score":
                    for _ in range(a[1]):
                        step(st, ("score", 1), events, None)
                else:
                    step(st, a, events, None)
        except BaseException:
            st.restore(before)
            st.undo = undo_before
            raise
        return events

    def undo(self) -> bool:
        """Take back the last action of the current turn (docs/rules.md §9); False if none."""
        st = self._st
        if not st.undo:
            return False
        self._legal = None
        st.restore_turn(st.undo.pop())
        return True
