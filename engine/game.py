"""The Torres rules: a mutable game state, its legal actions and their effects.

Squares are ints 0..63 (a1 = 0, b1 = 1, ..., h8 = 63) and players are seat
indices internally; names and square names appear only at the edges (notation,
positions, messages).  Undo keeps a stack of snapshots of the current turn, in
the manner of python-chess's ``push``/``pop``.
"""

from __future__ import annotations

import random
from typing import Any

from .board import DIAG, EDGE, MAIN_DIAGONALS, ORTH, SQUARE_NAMES, VAULTS, Castles, manhattan
from .cards import CARD_IDS, CARDS, MASTER_CARDS, MASTER_IDS
from .errors import IllegalAction, NotationError
from .notation import Action, format_action, parse_actions
from .rules import (
    ALLOTMENT,
    BASE_AP,
    DEFAULT_NAMES,
    KING_BONUS,
    MAX_DRAWS,
    MAX_KNIGHTS,
    MAX_STACK,
    ROUNDS,
    START_SQUARES,
    TOTAL_BLOCKS,
    VARIANTS,
)

EMPTY = -1
KING = 9  # occupant code of the king's square

_N = SQUARE_NAMES
_MOVE = [[f"move {_N[a]} {_N[b]}" for b in range(64)] for a in range(64)]
_BUILD = [f"build {_N[s]}" for s in range(64)]
_KNIGHT = [f"knight {_N[s]}" for s in range(64)]
_PAIR = [[f"{_N[a]} {_N[b]}" for b in range(64)] for a in range(64)]
_MOVEBLOCK = [[f"play moveblock {_N[a]} {_N[b]}" for b in range(64)] for a in range(64)]

_LEVEL_WORDS = {1: "one level", 2: "two levels", 3: "three levels"}


def _levels(d: int) -> str:
    return _LEVEL_WORDS.get(d, f"{d} levels")


class Game:
    """A game of Torres in progress.  Create one with :meth:`new` or :meth:`from_position`."""

    __slots__ = (
        "_names",
        "_n",
        "_variant",
        "_seed",
        "stage_",
        "phase_",
        "round_",
        "to_move_",
        "phase_starter",
        "round_starter",
        "h",
        "occ",
        "kn",
        "king",
        "scores_",
        "stacks",
        "hands",
        "decks",
        "supply",
        "master",
        "t_ap",
        "t_stack",
        "t_drawn",
        "t_played",
        "t_revealed",
        "cc",
        "_undo",
        "_legal",
    )

    # ------------------------------------------------------------------ creation

    def __init__(self, names: tuple[str, ...], variant: str, seed: int) -> None:
        """Use :meth:`new` or :meth:`from_position`; this makes an empty board."""
        self._names = names
        self._n = len(names)
        self._variant = variant
        self._seed = seed
        self.stage_ = "place"
        self.phase_ = 1
        self.round_ = 1
        self.to_move_: int | None = 0
        self.phase_starter = 0
        self.round_starter = 0
        self.h = [0] * 64
        self.occ = [EMPTY] * 64
        self.kn: list[list[int]] = [[] for _ in names]
        self.king: int | None = None
        self.scores_ = [0] * self._n
        self.stacks: list[list[int]] = [[] for _ in names]
        self.hands: list[list[str]] = [[] for _ in names]
        self.decks: dict[Any, list[str]] = {}
        self.supply = TOTAL_BLOCKS
        self.master: str | None = None
        self.t_ap = 0
        self.t_stack: int | None = None
        self.t_drawn: list[str] = []
        self.t_played = False
        self.t_revealed: list[str] = []
        self.cc: Castles | None = None
        self._undo: list[tuple] = []
        self._legal: list[str] | None = None

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
        if players is not None and (
            isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4
        ):
            raise NotationError("Torres is played by 2, 3 or 4 players.")
        if names is None:
            names = list(DEFAULT_NAMES[: players or 4])
        names_t = check_names(names)
        if players is not None and players != len(names_t):
            raise NotationError(
                f"{len(names_t)} names were given for a {players}-player game; give one name a player."
            )
        if not isinstance(variant, str) or variant not in VARIANTS:
            raise NotationError(f"'{variant}' is not a variant; choose common, personal or master.")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise NotationError("The seed must be a whole number.")
        if master_card is not None:
            if not isinstance(master_card, str) or master_card not in MASTER_CARDS:
                raise NotationError(
                    f"'{master_card}' is not a master card; they are {', '.join(MASTER_IDS)}."
                )
            if variant != "master":
                raise NotationError("A master card is only used in the master version.")
        g = cls(names_t, variant, seed)
        rng = random.Random(seed)
        g.turn_clear()
        if variant == "master":
            g.stage_ = "castles"
            g.hands = [list(CARD_IDS) for _ in names_t]
            g.master = master_card if master_card is not None else rng.choice(MASTER_IDS)
        else:
            for s in START_SQUARES:
                g.h[s] = 1
            g.supply = TOTAL_BLOCKS - len(START_SQUARES)
            g.decks = default_decks(g, rng)
        return g

    # ------------------------------------------------------------------ public reading

    @property
    def players(self) -> list[str]:
        return list(self._names)

    @property
    def variant(self) -> str:
        return self._variant

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def stage(self) -> str:
        return self.stage_

    @property
    def over(self) -> bool:
        return self.stage_ == "over"

    @property
    def to_move(self) -> str | None:
        return None if self.to_move_ is None else self._names[self.to_move_]

    @property
    def phase(self) -> int:
        return self.phase_

    @property
    def round(self) -> int:
        return self.round_

    @property
    def scores(self) -> dict[str, int]:
        return dict(zip(self._names, self.scores_, strict=True))

    @property
    def ap(self) -> int | None:
        """Action points left in the turn in progress, None outside a turn."""
        return self.t_ap if self.stage_ in ("play", "draw-keep") else None

    @property
    def winners(self) -> list[str]:
        if self.stage_ != "over":
            return []
        best = max(self.scores_)
        return [n for n, s in zip(self._names, self.scores_, strict=True) if s == best]

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    def hand(self, player: str) -> list[str]:
        """The cards in ``player``'s hand (hidden information: show only to that player)."""
        return list(self.hands[self._seat(player)])

    def knights(self, player: str) -> list[str]:
        return sorted(_N[s] for s in self.kn[self._seat(player)])

    def height(self, square: str) -> int:
        from .notation import parse_square

        return self.h[parse_square(square)]

    def _seat(self, player: str) -> int:
        try:
            return self._names.index(player)
        except ValueError:
            raise NotationError(f"'{player}' is not a player in this game.") from None

    def position(self, viewer: str | None = None) -> dict[str, Any]:
        """The position as a torres-position/1 dict; with ``viewer``, that player's view."""
        from .position import write_position

        return write_position(self, viewer)

    def public_position(self) -> dict[str, Any]:
        """A spectator's view: every hand, drawn card and deck hidden (extension)."""
        from .position import write_position

        return write_position(self, None, spectator=True)

    @classmethod
    def from_position(cls, d: Any) -> Game:
        """Read a torres-position/1 dict. :raises NotationError: if it is impossible."""
        from .position import read_position

        return read_position(cls, d)

    def copy(self) -> Game:
        """An independent copy (undo history included)."""
        g = Game.__new__(Game)
        g._names = self._names
        g._n = self._n
        g._variant = self._variant
        g._seed = self._seed
        g._load(self._save())
        g._undo = self._undo[:]
        return g

    def __repr__(self) -> str:
        return (
            f"<Game {self._variant} {','.join(self._names)} stage={self.stage_} "
            f"phase={self.phase_} round={self.round_} to_move={self.to_move}>"
        )

    # ------------------------------------------------------------------ snapshots

    def _save(self) -> tuple:
        return (
            self.stage_,
            self.phase_,
            self.round_,
            self.to_move_,
            self.phase_starter,
            self.round_starter,
            self.h[:],
            self.occ[:],
            [k[:] for k in self.kn],
            self.king,
            self.scores_[:],
            [s[:] for s in self.stacks],
            [x[:] for x in self.hands],
            dict(self.decks),  # deck lists are replaced, never mutated
            self.supply,
            self.master,
            self.t_ap,
            self.t_stack,
            self.t_drawn[:],
            self.t_played,
            self.t_revealed[:],
            self.cc,
        )

    def _load(self, s: tuple) -> None:
        (
            self.stage_,
            self.phase_,
            self.round_,
            self.to_move_,
            self.phase_starter,
            self.round_starter,
            h,
            occ,
            kn,
            self.king,
            scores,
            stacks,
            hands,
            decks,
            self.supply,
            self.master,
            self.t_ap,
            self.t_stack,
            drawn,
            self.t_played,
            revealed,
            self.cc,
        ) = s
        self._legal = None
        self.h = h[:]
        self.occ = occ[:]
        self.kn = [k[:] for k in kn]
        self.scores_ = scores[:]
        self.stacks = [x[:] for x in stacks]
        self.hands = [x[:] for x in hands]
        self.decks = dict(decks)
        self.t_drawn = drawn[:]
        self.t_revealed = revealed[:]

    # ------------------------------------------------------------------ playing

    def play(self, text: str) -> list[dict[str, Any]]:
        """Apply every action in ``text``, all or nothing; return the events they caused.

        :raises NotationError: if any clause is malformed (nothing is applied).
        :raises IllegalAction: if an action is illegal (nothing is applied).
        """
        actions = parse_actions(text)
        if not actions:
            raise NotationError("No action given; type one, for example 'move c3 d3' or 'end'.")
        self._legal = None
        events: list[dict[str, Any]] = []
        if len(actions) == 1 and actions[0][0] != "score":
            before = self._save()
            undo_len = len(self._undo)
            try:
                self._step(actions[0], events, before)
            except BaseException:
                self._load(before)
                del self._undo[undo_len:]
                raise
            return events
        before = self._save()
        undo_before = self._undo[:]
        try:
            for a in actions:
                if a[0] == "score":
                    for _ in range(a[1]):
                        self._step(("score", 1), events, None)
                else:
                    self._step(a, events, None)
        except BaseException:
            self._load(before)
            self._undo = undo_before
            raise
        return events

    def undo(self) -> bool:
        """Take back the last action of the current turn (RULES.md §9); False if there is none."""
        if not self._undo:
            return False
        self._load(self._undo.pop())
        return True

    def _step(self, a: Action, events: list, snap: tuple | None) -> None:
        stage = self.stage_
        kind = a[0]
        if stage == "play":
            if kind in ("castle", "place", "king", "keep"):
                self._wrong_stage(a)
            self._undo.append(snap if snap is not None else self._save())
            if kind == "move":
                self._do_move(a)
            elif kind == "build":
                self._do_build(a)
            elif kind == "score":
                self._do_score(a)
            elif kind == "end":
                self._do_end(events)
            elif kind == "play":
                self._do_card(a)
            elif kind == "knight":
                self._do_knight(a)
            elif kind == "stack":
                self._do_stack(a)
            elif kind == "draw":
                self._do_draw(a)
            return
        if stage == "draw-keep":
            if kind != "keep":
                self._wrong_stage(a)
            self._do_keep(a)
            return
        if stage == "castles" and kind == "castle":
            self._do_castle(a)
        elif stage == "place" and kind == "place":
            self._do_place(a)
        elif stage == "king" and kind == "king":
            self._do_king(a)
        else:
            self._wrong_stage(a)

    def _illegal(self, a: Action, reason: str) -> IllegalAction:
        return IllegalAction(format_action(a), reason)

    def _wrong_stage(self, a: Action) -> None:
        stage = self.stage_
        if stage == "over":
            reason = "The game is over."
        elif stage == "castles":
            reason = "It is the castle placement: place a starting block with 'castle SQ'."
        elif stage == "place":
            reason = "It is the setup: put your first knight on a starting castle with 'place SQ'."
        elif stage == "king":
            if self.king is None:
                reason = "The king must be placed first: put it on an empty castle with 'king SQ'."
            else:
                reason = "First decide about the king: move it with 'king SQ' or leave it with 'king pass'."
        elif stage == "draw-keep":
            reason = "First choose the card to keep: 'keep CARD top' or 'keep CARD bottom'."
        else:
            kind = a[0]
            if kind == "keep":
                reason = "There are no drawn cards waiting to be kept."
            elif kind == "king":
                reason = "The king moves only after a phase's scoring."
            else:
                reason = f"'{kind}' is an action of the setup, and the setup is over."
        raise self._illegal(a, reason)

    # ------------------------------------------------------------------ helpers

    def castles_(self) -> Castles:
        cc = self.cc
        if cc is None:
            cc = self.cc = Castles(self.h)
        return cc

    def _who(self, s: int) -> str:
        o = self.occ[s]
        if o == KING:
            return "the king"
        if o == self.to_move_:
            return "your knight"
        return f"{self._names[o]}'s knight"

    def _need_own(self, a: Action, s: int) -> None:
        o = self.occ[s]
        if o == self.to_move_:
            return
        name = _N[s]
        if o == EMPTY:
            raise self._illegal(a, f"You have no knight on {name}.")
        if o == KING:
            raise self._illegal(a, f"{name} holds the king, not one of your knights.")
        raise self._illegal(a, f"The knight on {name} is {self._names[o]}'s, not yours.")

    def _need_empty(self, a: Action, s: int) -> None:
        if self.occ[s] != EMPTY:
            raise self._illegal(a, f"{_N[s]} is not empty: {self._who(s)} stands there.")

    def _need_ap(self, a: Action, cost: int, what: str) -> None:
        if self.t_ap < cost:
            left = "no action points" if self.t_ap == 0 else f"only {self.t_ap} action point"
            raise self._illegal(
                a,
                f"{what} costs {cost} action point{'s' if cost > 1 else ''} and you have {left} left.",
            )

    def _added(self, s: int) -> None:
        """Update the castle tables after a block was added on s (never joining castles)."""
        cc = self.cc
        self.cc = None if cc is None else cc.with_block(self.h, s)

    def _put_piece(self, s: int, who: int) -> None:
        self.occ[s] = who
        if who != KING:
            self.kn[who].append(s)

    def _move_piece(self, a: int, b: int) -> None:
        who = self.occ[a]
        self.occ[a] = EMPTY
        self.occ[b] = who
        k = self.kn[who]
        k[k.index(a)] = b

    def _advance(self, p: int, steps: int) -> None:
        """Move p's marker ``steps`` spaces, on to the next free space if it lands on another."""
        if steps <= 0:
            return
        target = self.scores_[p] + steps
        taken = {s for q, s in enumerate(self.scores_) if q != p and s > 0}
        while target in taken:
            target += 1
        self.scores_[p] = target

    def turn_clear(self) -> None:
        self.t_ap = 0
        self.t_stack = None
        self.t_drawn = []
        self.t_played = False
        self.t_revealed = []

    def _fresh_turn(self) -> None:
        self.t_ap = BASE_AP
        self.t_stack = None
        self.t_drawn = []
        self.t_played = False
        self.t_revealed = []

    def _deal(self) -> None:
        """Give every player the phase's stacks from the supply (as far as it lasts)."""
        for p in range(self._n):
            got = []
            for size in ALLOTMENT[self._n][self.phase_ - 1]:
                take = min(size, self.supply)
                self.supply -= take
                got.append(take)
            self.stacks[p] = got

    # ------------------------------------------------------------------ setup actions

    def castle_targets(self) -> list[int]:
        h = self.h
        if self.supply <= 0:
            return []
        blocks = [s for s in range(64) if h[s] > 0]
        for gap in (3, 2):  # Ruling (docs/rules.md): relax to 2 only if no square is 3 away
            found = [
                s
                for s in range(64)
                if h[s] == 0
                and self.occ[s] == EMPTY
                and all(manhattan(s, b) >= gap for b in blocks)
            ]
            if found:
                return found
        return []

    def _do_castle(self, a: Action) -> None:
        s = a[1]
        if s not in self.castle_targets():
            if self.supply <= 0:
                raise self._illegal(a, "The common supply has no blocks left.")
            h = self.h
            if h[s] > 0:
                raise self._illegal(a, f"{_N[s]} already holds a starting block.")
            near = [b for b in range(64) if h[b] > 0 and manhattan(s, b) < 3]
            raise self._illegal(
                a,
                f"{_N[s]} is too close to the block on {_N[near[0]]}; starting blocks must be "
                "at least three steps apart (two empty squares between them orthogonally).",
            )
        self.h[s] = 1
        self._added(s)
        self.supply -= 1
        self._undo.clear()
        if sum(1 for x in self.h if x > 0) >= len(START_SQUARES):
            self.stage_ = "place"
            self.to_move_ = 0
        else:
            self.to_move_ = (self.to_move_ + 1) % self._n

    def place_targets(self) -> list[int]:
        if len(self.kn[self.to_move_]) >= MAX_KNIGHTS:
            return []
        cc = self.castles_()
        taken = {cc.comp[s] for s in range(64) if 0 <= self.occ[s] < KING and cc.comp[s] >= 0}
        return [
            s
            for s in range(64)
            if self.h[s] > 0 and self.occ[s] == EMPTY and cc.comp[s] not in taken
        ]

    def _do_place(self, a: Action) -> None:
        s = a[1]
        if s not in self.place_targets():
            if len(self.kn[self.to_move_]) >= MAX_KNIGHTS:
                raise self._illegal(a, "All 6 of your knights are already on the board.")
            if self.h[s] == 0:
                raise self._illegal(
                    a, f"{_N[s]} is not a starting castle; place your knight on one."
                )
            self._need_empty(a, s)
            raise self._illegal(a, f"The castle on {_N[s]} already holds a knight.")
        p = self.to_move_
        self._put_piece(s, p)
        self._undo.clear()
        rest = [q for q in range(self._n) if not self.kn[q]]
        if not rest:
            self.stage_ = "king"
            return
        after = [q for q in rest if q > p]
        self.to_move_ = after[0] if after else rest[0]

    def king_targets(self) -> list[int]:
        """Squares the king may go to now (setup: an empty castle; later: any empty castle square)."""
        if self.king is None:
            cc = self.castles_()
            taken = {cc.comp[s] for s in range(64) if 0 <= self.occ[s] < KING and cc.comp[s] >= 0}
            return [
                s
                for s in range(64)
                if self.h[s] > 0 and self.occ[s] == EMPTY and cc.comp[s] not in taken
            ]
        return [s for s in range(64) if self.h[s] > 0 and self.occ[s] == EMPTY]

    def _do_king(self, a: Action) -> None:
        s = a[1]
        setup = self.king is None
        if s < 0:
            if setup:
                raise self._illegal(
                    a, "The king must be placed now: put it on an empty castle with 'king SQ'."
                )
        elif s not in self.king_targets():
            if self.h[s] == 0:
                raise self._illegal(
                    a, f"{_N[s]} is not part of a castle; the king stands on a castle."
                )
            self._need_empty(a, s)
            raise self._illegal(
                a, f"The castle on {_N[s]} holds a knight; the king starts on an empty castle."
            )
        self._undo.clear()
        if s >= 0:
            if self.king is not None:
                self.occ[self.king] = EMPTY
            self.king = s
            self.occ[s] = KING
        if setup:
            self._deal()
            self.stage_ = "play"
            self.to_move_ = self.round_starter
            self._fresh_turn()
            return
        self._start_phase()

    def _start_phase(self) -> None:
        """After the king decision: deal the next phase and give its first turn."""
        self.phase_ += 1
        self.round_ = 1
        starter = self._leader(self.round_starter) if self._variant == "master" else self.to_move_
        self.phase_starter = self.round_starter = self.to_move_ = starter
        self._deal()
        self.stage_ = "play"
        self._fresh_turn()

    def _leader(self, fallback: int) -> int:
        best = max(self.scores_)
        if best <= 0:
            return fallback
        return self.scores_.index(best)

    # ------------------------------------------------------------------ turn actions

    def move_targets(self, a: int) -> set[int]:
        """Squares the knight on ``a`` reaches with one step or one door passage."""
        h, occ = self.h, self.occ
        level = h[a]
        res = {t for t in ORTH[a] if occ[t] == EMPTY and h[t] <= level + 1}
        cc = self.cc or self.castles_()
        comp = cc.comp
        entered = {comp[t] for t in ORTH[a] if h[t] > level}
        for c in entered:
            for v, _m in cc.doors[c]:
                if h[v] <= level and occ[v] == EMPTY and v != a:
                    res.add(v)
        return res

    def _do_move(self, a: Action) -> None:
        src, dst = a[1], a[2]
        self._need_own(a, src)
        self._need_ap(a, 1, "A move")
        if dst not in self.move_targets(src):
            self._need_empty(a, dst)
            self._explain_move(a, src, dst)
        self._move_piece(src, dst)
        self.t_ap -= 1

    def _explain_move(self, a: Action, src: int, dst: int) -> None:
        h = self.h
        level = h[src]
        if dst == src:
            raise self._illegal(a, "A move must go to another square.")
        if dst in ORTH[src]:
            raise self._illegal(
                a,
                f"{_N[dst]} is {_levels(h[dst] - level)} above your knight on {_N[src]}; "
                "a step climbs at most one level.",
            )
        if h[dst] > level:
            raise self._illegal(
                a,
                f"{_N[dst]} is not next to {_N[src]}, and a door passage never ends higher than "
                f"it starts ({_N[dst]} is level {h[dst]}, your knight level {level}).",
            )
        if not any(h[t] > level for t in ORTH[src]):
            raise self._illegal(
                a,
                f"{_N[dst]} is not next to {_N[src]}, and no castle wall next to {_N[src]} "
                f"rises above your knight's level {level}, so there is no door to go through.",
            )
        raise self._illegal(
            a,
            f"{_N[dst]} is not next to {_N[src]}, and no door of a castle your knight can enter "
            f"there leads out onto {_N[dst]} (it must be next to a higher square of that castle).",
        )

    def build_ok(self) -> list[int]:
        """Squares where a block may go by the building rules, pieces aside (cached per board)."""
        cc = self.castles_()
        ok = cc_build_cache(cc, self.h)
        return ok

    def _build_targets(self) -> list[int]:
        occ = self.occ
        return [s for s in self.build_ok() if occ[s] == EMPTY]

    def _explain_build(self, a: Action, s: int) -> None:
        self._need_empty(a, s)
        cc = self.castles_()
        h = self.h
        if h[s] > 0:
            c = cc.comp[s]
            raise self._illegal(
                a,
                f"A block on {_N[s]} would make it level {h[s] + 1} on a castle of area "
                f"{cc.area[c]}; a castle may not be taller than its area.",
            )
        touching = cc.adj[s]
        if not touching:
            raise self._illegal(
                a,
                f"{_N[s]} touches no castle; a block on the bare board must extend exactly one castle.",
            )
        if len(touching) > 1:
            names = [_N[t] for t in ORTH[s] if cc.comp[t] >= 0]
            raise self._illegal(
                a,
                f"A block on {_N[s]} would join the castles on {' and '.join(sorted(names))}; "
                "castles may touch only diagonally.",
            )
        c = touching[0]
        raise self._illegal(
            a,
            f"A block on {_N[s]} would leave its castle taller ({cc.height[c]}) than its area "
            f"({cc.area[c] + 1}).",
        )

    def _do_build(self, a: Action) -> None:
        self._need_ap(a, 1, "Placing a block")
        p = self.to_move_
        stacks = self.stacks[p]
        if self.t_stack is None:
            if not stacks:
                raise self._illegal(a, "You have no stack to build from.")
            if max(stacks) == 0:
                raise self._illegal(a, "All your stacks are empty, so you have no block to place.")
        elif self.t_stack == 0:
            raise self._illegal(a, "This turn's stack has no blocks left.")
        s = a[1]
        if s not in self.build_ok() or self.occ[s] != EMPTY:
            self._explain_build(a, s)
        if self.t_stack is None:
            i = stacks.index(max(stacks))
            self.t_stack = stacks.pop(i)
        self.t_stack -= 1
        self.h[s] += 1
        self._added(s)
        self.t_ap -= 1

    def add_targets(self, p: int) -> set[int]:
        h, occ = self.h, self.occ
        res: set[int] = set()
        for k in self.kn[p]:
            level = h[k]
            for t in ORTH[k]:
                if occ[t] == EMPTY and h[t] <= level:
                    res.add(t)
        return res

    def _do_knight(self, a: Action) -> None:
        p = self.to_move_
        s = a[1]
        if len(self.kn[p]) >= MAX_KNIGHTS:
            raise self._illegal(a, "All 6 of your knights are already on the board.")
        self._need_ap(a, 2, "Adding a knight")
        if s not in self.add_targets(p):
            self._need_empty(a, s)
            if not any(self.occ[t] == p for t in ORTH[s]):
                raise self._illegal(a, f"{_N[s]} is not orthogonally next to one of your knights.")
            raise self._illegal(
                a,
                f"{_N[s]} is level {self.h[s]}, higher than your knights next to it; a new "
                "knight goes on the same level or lower.",
            )
        self._put_piece(s, p)
        self.t_ap -= 2

    def _do_stack(self, a: Action) -> None:
        p = self.to_move_
        if self.t_stack is not None:
            raise self._illegal(
                a, f"You already use a stack this turn ({self.t_stack} blocks left in it)."
            )
        k = a[1]
        stacks = self.stacks[p]
        if k not in stacks:
            have = ", ".join(map(str, stacks)) if stacks else "none"
            raise self._illegal(a, f"You have no stack of {k} blocks (your stacks: {have}).")
        stacks.remove(k)
        self.t_stack = k

    def _deck_key(self, p: int) -> Any:
        return "common" if self._variant == "common" else p

    def _can_draw(self, p: int) -> bool:
        return (
            self._variant != "master"
            and len(self.t_drawn) < MAX_DRAWS
            and bool(self.decks.get(self._deck_key(p)))
        )

    def _do_draw(self, a: Action) -> None:
        p = self.to_move_
        if self._variant == "master":
            raise self._illegal(a, "There is no drawing in the master version.")
        if len(self.t_drawn) >= MAX_DRAWS:
            raise self._illegal(a, "You have already drawn two cards this turn.")
        self._need_ap(a, 1, "Drawing a card")
        key = self._deck_key(p)
        deck = self.decks.get(key) or []
        if not deck:
            raise self._illegal(
                a, "The deck is empty." if key == "common" else "Your deck is empty."
            )
        self.t_ap -= 1
        self._undo.clear()
        if self._variant == "common":
            card = deck[0]
            self.decks[key] = deck[1:]
            self.hands[p].append(card)
            self.t_drawn.append(card)
        else:
            self.t_revealed = deck[:3]
            self.decks[key] = deck[3:]
            self.stage_ = "draw-keep"

    def _do_keep(self, a: Action) -> None:
        card, where = a[1], a[2]
        revealed = self.t_revealed
        if card not in revealed:
            raise self._illegal(
                a, f"{card} is not among the cards you drew ({', '.join(revealed)})."
            )
        p = self.to_move_
        rest = revealed[:]
        rest.remove(card)
        key = self._deck_key(p)
        deck = self.decks.get(key) or []
        self.decks[key] = rest + deck if where == "top" else deck + rest
        self.hands[p].append(card)
        self.t_drawn.append(card)
        self.t_revealed = []
        self.stage_ = "play"
        self._undo.clear()

    def _do_score(self, a: Action) -> None:
        self._need_ap(a, 1, "Moving your scoring marker")
        self.t_ap -= 1
        self._advance(self.to_move_, 1)

    # ------------------------------------------------------------------ end of turn, phases

    def _do_end(self, events: list) -> None:
        p = self.to_move_
        stacks = self.stacks[p]
        if self.t_stack is None and stacks:
            self.t_stack = stacks.pop(stacks.index(max(stacks)))
        for _ in range(self.t_stack or 0):
            best = -1
            for i, s in enumerate(stacks):
                if s < MAX_STACK and (best < 0 or s < stacks[best]):
                    best = i
            if best < 0:
                self.supply += 1
            else:
                stacks[best] += 1
        self._undo.clear()
        self.turn_clear()
        events.append({"type": "turn_end", "player": self._names[p]})
        nxt = (p + 1) % self._n
        if nxt != self.round_starter:
            self.to_move_ = nxt
            self._fresh_turn()
            return
        if self.round_ < ROUNDS[self._n][self.phase_ - 1]:
            self.round_ += 1
            if self._variant == "master":
                self.round_starter = self._leader(self.round_starter)
            self.to_move_ = self.round_starter
            self._fresh_turn()
            return
        self._score_phase(events)

    def _score_phase(self, events: list) -> None:
        n = self._n
        order = [(self.phase_starter + i) % n for i in range(n)]
        cc = self.castles_()
        h = self.h
        points = {name: {"castles": 0, "king": 0, "master": 0} for name in self._names}
        for p in order:
            best: dict[int, int] = {}
            for k in self.kn[p]:
                lv = h[k]
                c = cc.comp[k]
                if lv >= 1 and lv > best.get(c, 0):
                    best[c] = lv
            pts = sum(cc.area[c] * lv for c, lv in best.items())
            points[self._names[p]]["castles"] = pts
            self._advance(p, pts)
        king = self.king
        if king is not None and h[king] > 0:
            kc = cc.comp[king]
            for p in order:
                if any(cc.comp[k] == kc and h[k] == self.phase_ for k in self.kn[p]):
                    bonus = KING_BONUS[self.phase_ - 1]
                    points[self._names[p]]["king"] = bonus
                    self._advance(p, bonus)
        if self.master is not None:
            earned = master_points(self, cc)
            for p in order:
                points[self._names[p]]["master"] = earned[p]
                self._advance(p, earned[p])
        for p in range(n):
            self.supply += sum(self.stacks[p])
            self.stacks[p] = []
        self.turn_clear()
        events.append(
            {
                "type": "phase_scored",
                "phase": self.phase_,
                "points": points,
                "scores": self.scores,
            }
        )
        if self.phase_ >= 3:
            self.stage_ = "over"
            self.to_move_ = None
            events.append({"type": "game_over", "scores": self.scores, "winners": self.winners})
            return
        lowest = min(order, key=lambda q: self.scores_[q])
        self.stage_ = "king"
        self.to_move_ = lowest

    # ------------------------------------------------------------------ cards

    def playable_cards(self) -> list[str]:
        """Distinct cards the player to move may play now (not yet played, not drawn this turn)."""
        if self.t_played or self.stage_ != "play":
            return []
        hand = self.hands[self.to_move_]
        drawn = self.t_drawn
        out = []
        for c in set(hand):
            if not drawn or hand.count(c) > drawn.count(c):
                out.append(c)
        return out

    def _lift_source(self, a: Action) -> Any:
        """Resolve ``play lift A`` to its stack; raise if no block is available."""
        p = self.to_move_
        if self.t_stack:
            return "turn"
        stacks = self.stacks[p]
        if stacks and max(stacks) > 0:
            return max(stacks)
        raise self._illegal(a, "None of your stacks holds a block to put under your knight.")

    def lift_ok(self, s: int) -> bool:
        """Whether a block may go under the piece on s by the lift card's castle rules."""
        cc = self.castles_()
        hs = self.h[s]
        if hs > 0:
            c = cc.comp[s]
            return max(cc.height[c], hs + 1) <= cc.area[c]
        t = cc.adj[s]
        if not t:
            return True
        if len(t) > 1:
            return False
        c = t[0]
        return cc.height[c] <= cc.area[c] + 1

    def lift_sources(self) -> list[Any]:
        out: list[Any] = []
        if self.t_stack:
            out.append("turn")
        out.extend(sorted({k for k in self.stacks[self.to_move_] if k > 0}))
        return out

    def jump_targets(self, s: int) -> list[int]:
        """Jump: exactly two levels up (English "e.g. from level 1 to level 3")."""
        h, occ = self.h, self.occ
        top = h[s] + 2
        return [t for t in ORTH[s] if occ[t] == EMPTY and h[t] == top]

    def diagonal_targets(self, s: int) -> list[int]:
        h, occ = self.h, self.occ
        top = h[s] + 1
        return [t for t in DIAG[s] if occ[t] == EMPTY and h[t] <= top]

    def doorclimb_targets(self, a: int) -> set[int]:
        h, occ = self.h, self.occ
        level = h[a]
        cc = self.castles_()
        res: set[int] = set()
        for c in {cc.comp[t] for t in ORTH[a] if h[t] > level}:
            for v, _m in cc.doors[c]:
                if occ[v] == EMPTY and v != a:
                    res.add(v)
        return res

    def relocate_targets(self, a: int) -> set[int]:
        h, occ = self.h, self.occ
        res: set[int] = set()
        for k in self.kn[self.to_move_]:
            if k == a:
                continue
            level = h[k]
            for t in ORTH[k]:
                if occ[t] == EMPTY and h[t] <= level:
                    res.add(t)
        return res

    def vault_targets(self, a: int) -> list[int]:
        h, occ = self.h, self.occ
        top = h[a] + 1
        return [
            land
            for over, land in VAULTS[a]
            if 0 <= occ[over] < KING and occ[land] == EMPTY and h[land] <= top
        ]

    def moveblock_targets(self) -> dict[int, list[int]]:
        """Every legal ``play moveblock A B`` as {A: [B, ...]} (RULES.md §6).

        Works on the current castle labels: taking a block off a square changes only
        that square's castle (and the bare squares next to it, if it becomes bare), so
        destinations are grouped by the castle they land on or extend.
        """
        h, occ = self.h, self.occ
        cc = self.castles_()
        key = tuple(occ)
        if cc.moveblock is not None and cc.moveblock[0] == key:
            return cc.moveblock[1]
        comp, area, height, members, adj = cc.comp, cc.area, cc.height, cc.members, cc.adj
        n_before = len(area)
        bad_base = {c for c in range(n_before) if height[c] > area[c]}
        groups: dict[int, list[int]] = {}  # castle -> destinations fine while it is unchanged
        related: dict[int, list[int]] = {}  # castle -> every destination on or next to it
        fresh: list[int] = []  # bare squares touching no castle
        for b in range(64):
            if occ[b] != EMPTY:
                continue
            hb = h[b]
            if hb > 0:
                c = comp[b]
                ok = max(height[c], hb + 1) <= area[c]
            else:
                t = adj[b]
                if not t:
                    fresh.append(b)
                    continue
                if len(t) > 1:
                    continue
                c = t[0]
                ok = height[c] <= area[c] + 1
            related.setdefault(c, []).append(b)
            if ok:
                groups.setdefault(c, []).append(b)
        out: dict[int, list[int]] = {}
        for a in range(64):
            ha = h[a]
            if ha == 0 or occ[a] != EMPTY:
                continue
            ca = comp[a]
            if ha >= 2:
                area_a = area[ca]
                height_a = max(h[s] - (s == a) for s in members[ca])
                n2 = n_before
                gone = False
            else:
                area_a = area[ca] - 1
                if area_a > 0 and _is_cut(a, members[ca], comp):
                    continue
                height_a = max((h[s] for s in members[ca] if s != a), default=0)
                n2 = n_before if area_a > 0 else n_before - 1
                gone = True
            bad = bad_base - {ca}
            if height_a > area_a:
                bad.add(ca)
            if len(bad) > 1 or n2 < 5:
                continue
            bad_c = next(iter(bad)) if bad else -1
            targets: list[int] = []
            if n2 >= 6:
                if bad_c < 0:
                    for c, lst in groups.items():
                        if c != ca:
                            targets.extend(lst)
                elif bad_c != ca:
                    targets.extend(groups.get(bad_c, ()))
                if bad_c < 0 or bad_c == ca:
                    for b in related.get(ca, ()):
                        if b == a:
                            continue
                        hb = h[b]
                        if hb > 0:
                            if max(height_a, hb + 1) <= area_a:
                                targets.append(b)
                        elif height_a <= area_a + 1:
                            targets.append(b)
            if bad_c < 0:
                targets.extend(fresh)
            if gone:
                near = [b for b in ORTH[a] if h[b] == 0 and occ[b] == EMPTY]
                if near:
                    targets = [b for b in targets if b not in near]
                    for b in near:
                        touch = {comp[t] for t in ORTH[b] if t != a and comp[t] >= 0}
                        if not touch:
                            if bad_c < 0:
                                targets.append(b)
                        elif len(touch) == 1 and n2 >= 6:
                            (c,) = touch
                            if bad_c >= 0 and bad_c != c:
                                continue
                            if c == ca:
                                if height_a <= area_a + 1:
                                    targets.append(b)
                            elif height[c] <= area[c] + 1:
                                targets.append(b)
            if targets:
                out[a] = targets
        cc.moveblock = (key, out)
        return out

    def _do_card(self, a: Action) -> None:
        p = self.to_move_
        card = a[1]
        unresolved = card == "lift" and a[3] is None
        if unresolved and (self.t_stack or any(self.stacks[p])):
            a = ("play", "lift", a[2], self._lift_source(a))
            unresolved = False
        if self.t_played:
            raise self._illegal(a, "You have already played a card this turn.")
        hand = self.hands[p]
        if card not in hand:
            raise self._illegal(a, f"You have no {card} card ({CARDS[card]}) in your hand.")
        if hand.count(card) <= self.t_drawn.count(card):
            raise self._illegal(
                a,
                f"You drew your {card} card this turn; a card cannot be played on the turn it is drawn.",
            )
        if unresolved:
            self._lift_source(a)
        getattr(self, "_card_" + card)(a)
        hand.remove(card)
        self.t_played = True

    def _card_ap6(self, a: Action) -> None:
        self.t_ap += 1

    def _card_ap7(self, a: Action) -> None:
        self.t_ap += 2

    def _card_jump(self, a: Action) -> None:
        src, dst = a[2], a[3]
        self._need_own(a, src)
        if dst not in ORTH[src]:
            raise self._illegal(a, f"{_N[dst]} is not orthogonally next to {_N[src]}.")
        self._need_empty(a, dst)
        if self.h[dst] != self.h[src] + 2:
            raise self._illegal(
                a,
                f"{_N[dst]} is level {self.h[dst]} and your knight on {_N[src]} is level "
                f"{self.h[src]}; a jump goes exactly two levels up (to level {self.h[src] + 2}).",
            )
        self._move_piece(src, dst)

    def _card_diagonal(self, a: Action) -> None:
        self._card_move(a, DIAG, "diagonally", 1, "a diagonal move climbs at most one level")

    def _card_move(self, a: Action, targets: Any, direction: str, climb: int, limit: str) -> None:
        """A card's one-square move to a *direction*-adjacent empty square, up to *climb*."""
        src, dst = a[2], a[3]
        self._need_own(a, src)
        if dst not in targets[src]:
            raise self._illegal(a, f"{_N[dst]} is not {direction} next to {_N[src]}.")
        self._need_empty(a, dst)
        if self.h[dst] > self.h[src] + climb:
            raise self._illegal(
                a,
                f"{_N[dst]} is {_levels(self.h[dst] - self.h[src])} above your knight on "
                f"{_N[src]}; {limit}.",
            )
        self._move_piece(src, dst)

    def _card_vault(self, a: Action) -> None:
        src, dst = a[2], a[3]
        self._need_own(a, src)
        over = next((o for o, land in VAULTS[src] if land == dst), None)
        if over is None:
            raise self._illegal(
                a, f"{_N[dst]} is not two squares from {_N[src]} in a straight orthogonal line."
            )
        if self.occ[over] == KING:
            raise self._illegal(a, f"A knight may not jump over the king on {_N[over]}.")
        if self.occ[over] == EMPTY:
            raise self._illegal(a, f"There is no knight on {_N[over]} to jump over.")
        self._need_empty(a, dst)
        if self.h[dst] > self.h[src] + 1:
            raise self._illegal(
                a,
                f"{_N[dst]} is {_levels(self.h[dst] - self.h[src])} above your knight on "
                f"{_N[src]}; a vault lands at most one level higher.",
            )
        self._move_piece(src, dst)

    def _card_doorclimb(self, a: Action) -> None:
        src, dst = a[2], a[3]
        self._need_own(a, src)
        if dst not in self.doorclimb_targets(src):
            self._need_empty(a, dst)
            if dst == src:
                raise self._illegal(a, "A door climb must end on another square.")
            level = self.h[src]
            if not any(self.h[t] > level for t in ORTH[src]):
                raise self._illegal(
                    a,
                    f"No castle wall next to {_N[src]} rises above your knight's level {level}, "
                    "so there is no door to go through.",
                )
            raise self._illegal(
                a,
                f"No door of a castle your knight can enter from {_N[src]} leads onto {_N[dst]} "
                "(it must be next to a higher square of that castle).",
            )
        self._move_piece(src, dst)

    def _card_relocate(self, a: Action) -> None:
        src, dst = a[2], a[3]
        self._need_own(a, src)
        if dst not in self.relocate_targets(src):
            self._need_empty(a, dst)
            p = self.to_move_
            if not any(self.occ[t] == p and t != src for t in ORTH[dst]):
                raise self._illegal(
                    a, f"{_N[dst]} is not orthogonally next to another of your knights."
                )
            raise self._illegal(
                a,
                f"{_N[dst]} is level {self.h[dst]}, higher than your other knights next to it; "
                "a relocated knight goes on the same level or lower.",
            )
        self._move_piece(src, dst)

    def _card_lift(self, a: Action) -> None:
        s, src = a[2], a[3]
        p = self.to_move_
        self._need_own(a, s)
        if src == "turn":
            if self.t_stack is None:
                raise self._illegal(
                    a,
                    "You have not chosen this turn's stack yet; name a stack by its size, "
                    f"for example 'play lift {_N[s]} {max(self.stacks[p] or [2])}'.",
                )
            if self.t_stack == 0:
                raise self._illegal(a, "This turn's stack has no blocks left.")
        elif src == 0:
            raise self._illegal(a, "A stack of 0 blocks has no block to give.")
        elif src not in self.stacks[p]:
            have = ", ".join(map(str, self.stacks[p])) if self.stacks[p] else "none"
            raise self._illegal(a, f"You have no stack of {src} blocks (your stacks: {have}).")
        if not self.lift_ok(s):
            cc = self.castles_()
            hs = self.h[s]
            if hs > 0:
                c = cc.comp[s]
                raise self._illegal(
                    a,
                    f"A block under your knight on {_N[s]} would make it level {hs + 1} on a "
                    f"castle of area {cc.area[c]}; a castle may not be taller than its area.",
                )
            names = sorted(_N[t] for t in ORTH[s] if cc.comp[t] >= 0)
            raise self._illegal(
                a,
                f"A block on {_N[s]} would join the castles on {' and '.join(names)}; "
                "castles may touch only diagonally.",
            )
        if src == "turn":
            self.t_stack -= 1
        else:
            st = self.stacks[p]
            st[st.index(src)] -= 1
        self.h[s] += 1
        self._added(s)

    def _card_extra(self, a: Action) -> None:
        s = a[2]
        if self.supply <= 0:
            raise self._illegal(a, "The common supply has no blocks left.")
        if s not in self.build_ok() or self.occ[s] != EMPTY:
            self._explain_build(a, s)
        self.h[s] += 1
        self._added(s)
        self.supply -= 1

    def _card_moveblock(self, a: Action) -> None:
        src, dst = a[2], a[3]
        h = self.h
        if h[src] == 0:
            raise self._illegal(a, f"{_N[src]} has no block to move.")
        if self.occ[src] != EMPTY:
            raise self._illegal(
                a,
                f"{self._who(src).capitalize()} stands on {_N[src]}; only a block with nothing on it can be moved.",
            )
        if dst == src:
            raise self._illegal(a, "The block must go to another square.")
        self._need_empty(a, dst)
        if dst not in self.moveblock_targets().get(src, ()):
            self._explain_moveblock(a, src, dst)
        h[src] -= 1
        h[dst] += 1
        self.cc = None

    def _explain_moveblock(self, a: Action, src: int, dst: int) -> None:
        h = self.h[:]
        cc = self.castles_()
        n_before = len(cc.area)
        h[src] -= 1
        comp2, area2, height2 = labels(h)
        if h[src] == 0 and len(area2) > (n_before if cc.area[cc.comp[src]] > 1 else n_before - 1):
            raise self._illegal(
                a, f"Taking the block from {_N[src]} would split its castle in two."
            )
        if h[dst] == 0:
            touch = {comp2[t] for t in ORTH[dst] if comp2[t] >= 0}
            if len(touch) > 1:
                raise self._illegal(
                    a,
                    f"A block on {_N[dst]} would join two castles; castles may touch only diagonally.",
                )
        h[dst] += 1
        comp3, area3, height3 = labels(h)
        if len(area3) < 6:
            raise self._illegal(
                a,
                f"Moving this block would leave only {len(area3)} castles; there must be at least 6.",
            )
        for c in range(len(area3)):
            if height3[c] > area3[c]:
                sq = next(s for s in range(64) if comp3[s] == c and h[s] == height3[c])
                raise self._illegal(
                    a,
                    f"Afterwards the castle with {_N[sq]} would be {height3[c]} high on an area of "
                    f"{area3[c]}; a castle may not be taller than its area.",
                )
        raise self._illegal(a, f"The block on {_N[src]} cannot be moved to {_N[dst]}.")

    # ------------------------------------------------------------------ legal actions

    def legal(self) -> list[str]:
        """Every legal single action of the player to move, canonical and sorted."""
        cached = self._legal
        if cached is None:
            cached = self._legal = self._generate()
        return cached[:]

    def _generate(self) -> list[str]:
        stage = self.stage_
        if stage == "play":
            return sorted(self._legal_play())
        if stage == "draw-keep":
            cards = sorted(set(self.t_revealed))
            return sorted([f"keep {c} {w}" for c in cards for w in ("bottom", "top")])
        if stage == "castles":
            return sorted(f"castle {_N[s]}" for s in self.castle_targets())
        if stage == "place":
            return sorted(f"place {_N[s]}" for s in self.place_targets())
        if stage == "king":
            out = [f"king {_N[s]}" for s in self.king_targets()]
            if self.king is not None:
                out.append("king pass")
            return sorted(out)
        return []

    def _legal_play(self) -> list[str]:
        p = self.to_move_
        out = ["end"]
        ap = self.t_ap
        mine = self.kn[p]
        stacks = self.stacks[p]
        if self.t_stack is None:
            out.extend(f"stack {k}" for k in set(stacks))
        if ap >= 1:
            out.append("score")
            if self._can_draw(p):
                out.append("draw")
            if self.t_stack or (self.t_stack is None and stacks and max(stacks) > 0):
                occ = self.occ
                out.extend(_BUILD[s] for s in self.build_ok() if occ[s] == EMPTY)
            for a in mine:
                row = _MOVE[a]
                out.extend(row[b] for b in self.move_targets(a))
            if ap >= 2 and len(mine) < MAX_KNIGHTS:
                out.extend(_KNIGHT[s] for s in self.add_targets(p))
        if not self.t_played:
            for card in self.playable_cards():
                out.extend(self._card_actions(card))
        return out

    def _card_actions(self, card: str) -> list[str]:
        mine = self.kn[self.to_move_]
        if card in ("ap6", "ap7"):
            return [f"play {card}"]
        if card == "jump":
            return [f"play jump {_PAIR[a][b]}" for a in mine for b in self.jump_targets(a)]
        if card == "diagonal":
            return [f"play diagonal {_PAIR[a][b]}" for a in mine for b in self.diagonal_targets(a)]
        if card == "vault":
            return [f"play vault {_PAIR[a][b]}" for a in mine for b in self.vault_targets(a)]
        if card == "doorclimb":
            return [
                f"play doorclimb {_PAIR[a][b]}" for a in mine for b in self.doorclimb_targets(a)
            ]
        if card == "relocate":
            return [f"play relocate {_PAIR[a][b]}" for a in mine for b in self.relocate_targets(a)]
        if card == "lift":
            sources = self.lift_sources()
            if not sources:
                return []
            return [f"play lift {_N[a]} {src}" for a in mine if self.lift_ok(a) for src in sources]
        if card == "extra":
            if self.supply <= 0:
                return []
            occ = self.occ
            return [f"play extra {_N[s]}" for s in self.build_ok() if occ[s] == EMPTY]
        if card == "moveblock":
            return [_MOVEBLOCK[a][b] for a, bs in self.moveblock_targets().items() for b in bs]
        return []


# ---------------------------------------------------------------------- module helpers


def check_names(names: Any) -> tuple[str, ...]:
    if not isinstance(names, (list, tuple)) or not all(isinstance(x, str) for x in names):
        raise NotationError("Players must be a list of names.")
    if not 2 <= len(names) <= 4:
        raise NotationError("Torres is played by 2, 3 or 4 players.")
    if any(not x.strip() for x in names):
        raise NotationError("A player name may not be empty.")
    if len(set(names)) != len(names):
        raise NotationError("Player names must be different from each other.")
    return tuple(names)


def default_decks(g: Game, rng: random.Random) -> dict[Any, list[str]]:
    """The cards not in any hand, shuffled: one common deck or one per player."""
    if g._variant == "master":
        return {}
    held = [list(hand) for hand in g.hands]  # cards awaiting 'keep' are out of the deck too
    if g.to_move_ is not None:
        held[g.to_move_] += g.t_revealed
    if g._variant == "common":
        deck = [c for c in CARD_IDS for _ in range(4)]
        for hand in held:
            for c in hand:
                if c in deck:
                    deck.remove(c)
        rng.shuffle(deck)
        return {"common": deck}
    decks: dict[Any, list[str]] = {}
    for p in range(g._n):
        deck = list(CARD_IDS)
        for c in held[p]:
            if c in deck:
                deck.remove(c)
        rng.shuffle(deck)
        decks[p] = deck
    return decks


def labels(h: list[int]) -> tuple[list[int], list[int], list[int]]:
    """Castle labels of a height array: (comp per square, area per castle, height per castle)."""
    comp = [-1] * 64
    area: list[int] = []
    height: list[int] = []
    for start in range(64):
        if h[start] <= 0 or comp[start] >= 0:
            continue
        c = len(area)
        comp[start] = c
        todo = [start]
        n = 0
        top = 0
        while todo:
            s = todo.pop()
            n += 1
            if h[s] > top:
                top = h[s]
            for t in ORTH[s]:
                if h[t] > 0 and comp[t] < 0:
                    comp[t] = c
                    todo.append(t)
        area.append(n)
        height.append(top)
    return comp, area, height


def cc_build_cache(cc: Castles, h: list[int]) -> list[int]:
    """Squares where a block fits by the building rules, ignoring pieces; computed once per board."""
    cached = cc.build
    if cached is not None:
        return cached
    comp, area, height, adj = cc.comp, cc.area, cc.height, cc.adj
    res = []
    for s in range(64):
        hs = h[s]
        if hs:
            c = comp[s]
            if max(height[c], hs + 1) <= area[c]:
                res.append(s)
        else:
            t = adj[s]
            if len(t) == 1 and height[t[0]] <= area[t[0]] + 1:
                res.append(s)
    cc.build = res
    return res


def master_points(g: Game, cc: Castles) -> list[int]:
    """Points each seat earns from the master card at this scoring (RULES.md §8)."""
    card = g.master
    phase = g.phase_
    n = g._n
    h = g.h
    pts = [0] * n
    per_phase = (2, 5, 10)[phase - 1]
    if card in ("border", "diagonal"):
        zone = EDGE if card == "border" else MAIN_DIAGONALS
        counts = [sum(1 for k in g.kn[p] if k in zone) for p in range(n)]
        for p in range(n):
            pts[p] = counts[p] * per_phase
        best = max(counts)
        if best > 0 and counts.count(best) == 1:
            pts[counts.index(best)] += per_phase
        return pts
    if card == "castles":
        need = (4, 5, 6)[phase - 1]
        gain = (5, 15, 30)[phase - 1]
        for p in range(n):
            held = {cc.comp[k] for k in g.kn[p] if h[k] >= 1}
            if len(held) == need:
                pts[p] = gain
        return pts
    if phase != 3:
        return pts
    for p in range(n):
        ks = g.kn[p]
        if card == "square":
            if len(ks) >= 4 and _has_square(ks):
                pts[p] = 50
            continue
        if len(ks) < 2:
            continue
        if card == "levels":
            levels = [h[k] for k in ks]
            if len(set(levels)) == len(levels):
                pts[p] = 40
        elif card == "same-level":
            if len({h[k] for k in ks}) == 1:
                pts[p] = 50
        elif card == "row":
            if len({k % 8 for k in ks}) == 1 or len({k // 8 for k in ks}) == 1:
                pts[p] = 50
        elif card == "neighbors":
            group = set(ks)
            seen = {ks[0]}
            todo = [ks[0]]
            while todo:
                s = todo.pop()
                for t in ORTH[s]:
                    if t in group and t not in seen:
                        seen.add(t)
                        todo.append(t)
            if len(seen) == len(group):
                pts[p] = 40
    return pts


def _is_cut(a: int, castle: list[int], comp: list[int]) -> bool:
    """Whether the castle ``castle`` (which holds a) falls apart without square a."""
    c = comp[a]
    near = [t for t in ORTH[a] if comp[t] == c]
    if len(near) <= 1:
        return False
    seen = {a, near[0]}
    todo = [near[0]]
    while todo:
        s = todo.pop()
        for t in ORTH[s]:
            if comp[t] == c and t not in seen:
                seen.add(t)
                todo.append(t)
    return len(seen) < len(castle)


def _has_square(ks: list[int]) -> bool:
    """Whether four of the squares ``ks`` are the corners of a square, tilted ones included."""
    have = {(s % 8, s // 8) for s in ks}
    for f, r in have:
        for g, q in have:
            dx, dy = g - f, q - r
            if (dx, dy) <= (0, 0):
                continue  # each side once, in one direction
            if (f - dy, r + dx) in have and (g - dy, q + dx) in have:
                return True
    return False
