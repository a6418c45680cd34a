"""The mutable state of a game, and the frozen snapshot undo keeps of it.

Squares are ints 0..63 (a1 = 0, b1 = 1, ..., h8 = 63) and players are seat
indices; names and square names appear only at the edges (notation, positions,
messages).  The rule modules in ``engine.rules`` read and change a ``State``;
``engine.game.Game`` is the public face over one.
"""

from __future__ import annotations

from typing import NamedTuple

from .board import Castles
from .events import Stage

EMPTY = -1  # occupant of a square with no piece
KING = 9  # occupant of the king's square (seats are 0..3)
NOBODY = -1  # ``to_move`` once the game is over

DeckKey = str | int  # "common", or the seat owning a personal deck


class Snapshot(NamedTuple):
    """Everything an action may change, frozen: what ``undo`` goes back to."""

    stage: Stage
    phase: int
    round: int
    to_move: int
    phase_starter: int
    round_starter: int
    heights: list[int]  # shared: never changed in place (see State)
    occupant: list[int]
    pieces: int
    knights: tuple[tuple[int, ...], ...]
    king: int | None
    scores: tuple[int, ...]
    stacks: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[str, ...], ...]
    decks: tuple[tuple[DeckKey, tuple[str, ...]], ...]
    supply: int
    master: str | None
    ap: int
    turn_stack: int | None
    drawn: tuple[str, ...]
    played: bool
    revealed: tuple[str, ...]
    castles: Castles | None


# What an action that ``undo`` can take back may change: the board, the mover's
# knights, stacks and hand, the scores, the supply and the turn's fields (a plain
# tuple, made at C speed; ``State.turn_snapshot`` gives the order).  Much cheaper than
# a ``Snapshot``; ``end``, ``draw`` and ``keep`` (which change more) cannot be taken
# back, so the undo stack holds only these.  The knights, scores, stacks and hand are
# None when the action cannot change them: undo goes back last action first, so they
# are as they were already.
TurnSnapshot = tuple[
    int,  # ap
    int | None,  # turn_stack
    bool,  # played
    int,  # supply
    list[int],  # heights, shared: never changed in place (see State)
    list[int],  # occupant, ditto
    int,  # pieces
    tuple[int, ...] | None,  # the mover's knights
    tuple[int, ...] | None,  # scores
    tuple[int, ...] | None,  # the mover's stacks
    tuple[str, ...] | None,  # the mover's hand
    Castles | None,  # castles
]


class State:
    """One game's state; rule functions take it as their first argument.

    The per-turn fields (``ap``, ``turn_stack``, ``drawn``, ``played``, ``revealed``)
    are those of NOTATION's ``turn`` object.  ``heights`` and ``occupant`` are never
    changed in place once the state is made: a rule replaces the list by a changed
    copy, so copies of the state and undo snapshots share them without copying.  ``castles`` caches the castle tables of
    ``heights`` (None: not computed since the last change).
    """

    __slots__ = (
        "names",
        "variant",
        "seed",
        "stage",
        "phase",
        "round",
        "to_move",
        "phase_starter",
        "round_starter",
        "heights",
        "occupant",
        "pieces",
        "knights",
        "king",
        "scores",
        "stacks",
        "hands",
        "decks",
        "supply",
        "master",
        "ap",
        "turn_stack",
        "drawn",
        "played",
        "revealed",
        "castles",
        "undo",
    )

    def __init__(self, names: tuple[str, ...], variant: str, seed: int) -> None:
        n = len(names)
        self.names = names
        self.variant = variant
        self.seed = seed
        self.stage = Stage.PLACE
        self.phase = 1
        self.round = 1
        self.to_move = 0
        self.phase_starter = 0
        self.round_starter = 0
        self.heights = [0] * 64
        self.occupant = [EMPTY] * 64
        self.pieces = 0  # the mask (board.BIT) of the squares with a piece
        self.knights: list[list[int]] = [[] for _ in range(n)]
        self.king: int | None = None
        self.scores = [0] * n
        self.stacks: list[list[int]] = [[] for _ in range(n)]
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.decks: dict[DeckKey, tuple[str, ...]] = {}
        self.supply = 0
        self.master: str | None = None
        self.ap = 0
        self.turn_stack: int | None = None
        self.drawn: list[str] = []
        self.played = False
        self.revealed: list[str] = []
        self.castles: Castles | None = None
        self.undo: list[TurnSnapshot] = []

    @property
    def seats(self) -> int:
        return len(self.names)

    @property
    def placing_king(self) -> bool:
        """The setup's king placement: the king stage of phase 1, round 1, before the
        king is on the board. Any other king stage is the king move after a scoring,
        also when a position read from JSON put no king on the board."""
        return (
            self.stage == Stage.KING and self.king is None and self.phase == 1 and self.round == 1
        )

    def clear_turn(self, ap: int = 0) -> None:
        """Reset the per-turn fields: a fresh turn with ``ap`` points, or no turn (0)."""
        self.ap = ap
        self.turn_stack = None
        self.drawn = []
        self.played = False
        self.revealed = []

    def deck_key(self, seat: int) -> DeckKey:
        return "common" if self.variant == "common" else seat

    def snapshot(self) -> Snapshot:
        return Snapshot(
            self.stage,
            self.phase,
            self.round,
            self.to_move,
            self.phase_starter,
            self.round_starter,
            self.heights,
            self.occupant,
            self.pieces,
            tuple([tuple(k) for k in self.knights]),
            self.king,
            tuple(self.scores),
            tuple([tuple(s) for s in self.stacks]),
            tuple([tuple(x) for x in self.hands]),
            tuple(self.decks.items()),
            self.supply,
            self.master,
            self.ap,
            self.turn_stack,
            tuple(self.drawn),
            self.played,
            tuple(self.revealed),
            self.castles,
        )

    def restore(self, s: Snapshot) -> None:
        self.stage = s.stage
        self.phase = s.phase
        self.round = s.round
        self.to_move = s.to_move
        self.phase_starter = s.phase_starter
        self.round_starter = s.round_starter
        self.heights = s.heights
        self.occupant = s.occupant
        self.pieces = s.pieces
        self.knights = [list(k) for k in s.knights]
        self.king = s.king
        self.scores = list(s.scores)
        self.stacks = [list(x) for x in s.stacks]
        self.hands = [list(x) for x in s.hands]
        self.decks = dict(s.decks)
        self.supply = s.supply
        self.master = s.master
        self.ap = s.ap
        self.turn_stack = s.turn_stack
        self.drawn = list(s.drawn)
        self.played = s.played
        self.revealed = list(s.revealed)
        self.castles = s.castles

    def turn_snapshot(self, kind: str = "play") -> TurnSnapshot:
        """The snapshot undo needs to take back an action of ``kind`` ("move", "build",
        "score", ...; "play", a card, may change anything a turn can)."""
        p = self.to_move
        knights = scores = stacks = hand = None
        if kind == "move" or kind == "knight":
            knights = tuple(self.knights[p])
        elif kind == "build" or kind == "stack":
            stacks = tuple(self.stacks[p])
        elif kind == "score":
            scores = tuple(self.scores)
        else:
            knights = tuple(self.knights[p])
            scores = tuple(self.scores)
            stacks = tuple(self.stacks[p])
            hand = tuple(self.hands[p])
        return (
            self.ap,
            self.turn_stack,
            self.played,
            self.supply,
            self.heights,
            self.occupant,
            self.pieces,
            knights,
            scores,
            stacks,
            hand,
            self.castles,
        )

    def restore_turn(self, s: TurnSnapshot) -> None:
        """Go back to ``s``, taken earlier in the same turn of the same player (every
        later snapshot restored already)."""
        p = self.to_move
        (
            self.ap,
            self.turn_stack,
            self.played,
            self.supply,
            self.heights,
            self.occupant,
            self.pieces,
            knights,
            scores,
            stacks,
            hand,
            self.castles,
        ) = s
        if knights is not None:
            self.knights[p] = list(knights)
        if scores is not None:
            self.scores = list(scores)
        if stacks is not None:
            self.stacks[p] = list(stacks)
        if hand is not None:
            self.hands[p] = list(hand)

    def copy(self) -> State:
        """An independent copy, undo history included (snapshots are immutable)."""
        new = State.__new__(State)
        new.names = self.names
        new.variant = self.variant
        new.seed = self.seed
        new.stage = self.stage
        new.phase = self.phase
        new.round = self.round
        new.to_move = self.to_move
        new.phase_starter = self.phase_starter
        new.round_starter = self.round_starter
        new.heights = self.heights  # shared: never changed in place
        new.occupant = self.occupant
        new.pieces = self.pieces
        new.knights = [k[:] for k in self.knights]
        new.king = self.king
        new.scores = self.scores[:]
        new.stacks = [x[:] for x in self.stacks]
        new.hands = [x[:] for x in self.hands]
        new.decks = self.decks.copy()  # its values are tuples
        new.supply = self.supply
        new.master = self.master
        new.ap = self.ap
        new.turn_stack = self.turn_stack
        new.drawn = self.drawn[:]
        new.played = self.played
        new.revealed = self.revealed[:]
        new.castles = self.castles
        new.undo = self.undo[:]
        return new
