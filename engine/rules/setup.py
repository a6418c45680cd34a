"""Setup (docs/rules.md §2) and what happens between phases (§7.5): a new game,
castle placement, the first knights, the king, and dealing the stacks."""

from __future__ import annotations

import random
from typing import Any

from ..board import ALL, BIT, manhattan, squares_of
from ..cards import CARD_IDS, MASTER_CARDS, MASTER_IDS
from ..errors import notation_error
from ..events import Stage
from ..notation import Action
from ..state import EMPTY, KING, DeckKey, State
from .common import N, add_block, castles, illegal, need_empty, put_piece
from .tables import (
    ALLOTMENT,
    BASE_AP,
    DEFAULT_NAMES,
    MAX_KNIGHTS,
    START_SQUARES,
    TOTAL_BLOCKS,
    VARIANTS,
)

_ONLY_STR = frozenset((str,))


def check_names(names: Any) -> tuple[str, ...]:
    if (  # the usual case at C speed; the checks below say what is wrong otherwise
        type(names) is list
        and 2 <= len(names) <= 4
        and _ONLY_STR.issuperset(map(type, names))
        and all(map(str.strip, names))
        and len(set(names)) == len(names)
    ):
        return tuple(names)
    if not isinstance(names, (list, tuple)) or not all(isinstance(x, str) for x in names):
        raise notation_error("players_not_list")
    if not 2 <= len(names) <= 4:
        raise notation_error("player_count")
    if any(not x.strip() for x in names):
        raise notation_error("player_name_empty")
    if len(set(names)) != len(names):
        raise notation_error("player_names_same")
    return tuple(names)


def new_state(
    players: int | None,
    names: list[str] | None,
    variant: str,
    seed: int,
    master_card: str | None,
) -> State:
    """The state at a new game's first setup decision; all randomness comes from ``seed``."""
    if players is not None and (
        isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4
    ):
        raise notation_error("player_count")
    if names is None:
        names = list(DEFAULT_NAMES[: players or 4])
    names_t = check_names(names)
    if players is not None and players != len(names_t):
        raise notation_error("names_count", names=len(names_t), players=players)
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise notation_error("bad_variant", value=str(variant))
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise notation_error("bad_seed")
    if master_card is not None:
        if not isinstance(master_card, str) or master_card not in MASTER_CARDS:
            raise notation_error(
                "bad_master_card", value=str(master_card), cards=", ".join(MASTER_IDS)
            )
        if variant != "master":
            raise notation_error("master_card_not_master")
    st = State(names_t, variant, seed)
    rng = random.Random(seed)
    if variant == "master":
        st.stage = Stage.CASTLES
        st.hands = [list(CARD_IDS) for _ in names_t]
        st.master = master_card if master_card is not None else rng.choice(MASTER_IDS)
        st.supply = TOTAL_BLOCKS
    else:
        st.heights = st.heights[:]  # copied, never changed in place (see State)
        for s in START_SQUARES:
            st.heights[s] = 1
        st.supply = TOTAL_BLOCKS - len(START_SQUARES)
        st.decks = default_decks(st, rng)
    return st


def default_decks(st: State, rng: random.Random) -> dict[DeckKey, tuple[str, ...]]:
    """The cards not in any hand, shuffled: one common deck or one per player."""
    if st.variant == "master":
        return {}
    held = [list(hand) for hand in st.hands]  # cards awaiting 'keep' are out of the deck too
    if st.stage in (Stage.PLAY, Stage.DRAW_KEEP):
        held[st.to_move] += st.revealed
    if st.variant == "common":
        deck = [c for c in CARD_IDS for _ in range(4)]
        for hand in held:
            for c in hand:
                if c in deck:
                    deck.remove(c)
        rng.shuffle(deck)
        return {"common": tuple(deck)}
    decks: dict[DeckKey, tuple[str, ...]] = {}
    for p in range(st.seats):
        own = list(CARD_IDS)
        for c in held[p]:
            if c in own:
                own.remove(c)
        rng.shuffle(own)
        decks[p] = tuple(own)
    return decks


def deal(st: State) -> None:
    """Give every player the phase's stacks from the supply (as far as it lasts)."""
    n = st.seats
    for p in range(n):
        got = []
        for size in ALLOTMENT[n][st.phase - 1]:
            take = min(size, st.supply)
            st.supply -= take
            got.append(take)
        st.stacks[p] = got


# ---------------------------------------------------------------------- castles (master)


# _CLOSER[gap][s]: the squares less than ``gap`` away from s (Manhattan distance), for
# the master castle placement's gaps 3 and 2
_CLOSER: dict[int, tuple[int, ...]] = {
    gap: tuple(sum(BIT[t] for t in range(64) if manhattan(s, t) < gap) for s in range(64))
    for gap in (3, 2)
}


def castle_targets(st: State) -> list[int]:
    if st.supply <= 0:
        return []
    h = st.heights
    blocks: list[int] = []
    taken = st.pieces  # and every square of a height other than 0
    for s in range(64):
        if h[s]:
            taken |= BIT[s]
            if h[s] > 0:
                blocks.append(s)
    for gap in (3, 2):  # Ruling (docs/rules.md): relax to 2 only if no square is 3 away
        closer = _CLOSER[gap]
        found = ALL & ~taken
        for b in blocks:
            found &= ~closer[b]
        if found:
            return sorted(squares_of(found))
    return []


def do_castle(st: State, a: Action) -> None:
    s = a[1]
    if s not in castle_targets(st):
        if st.supply <= 0:
            raise illegal(a, "supply_empty")
        h = st.heights
        if h[s] > 0:
            raise illegal(a, "castle_taken", square=N[s])
        need_empty(st, a, s)  # a piece there (only a position read from JSON has one)
        # too close: name the nearest block (the distance may have relaxed to 2)
        near = min((b for b in range(64) if h[b] > 0), key=lambda b: manhattan(s, b))
        raise illegal(a, "castle_too_close", square=N[s], other=N[near])
    add_block(st, s)
    st.supply -= 1
    st.undo.clear()
    if sum(1 for x in st.heights if x > 0) >= len(START_SQUARES):
        st.stage = Stage.PLACE
        st.to_move = 0
    else:
        st.to_move = (st.to_move + 1) % st.seats


# ---------------------------------------------------------------------- first knights


def empty_castle_squares(st: State) -> list[int]:
    """Squares of castles with no knight on them (first knights, the setup king)."""
    return sorted(squares_of(_empty_castles(st)))


def _empty_castles(st: State) -> int:
    """``empty_castle_squares`` as a mask."""
    cc = castles(st)
    comp, masks = cc.comp, cc.member_mask
    free = ALL & ~st.pieces & ~cc.le[0]  # empty castle squares
    for own in st.knights:
        for k in own:
            c = comp[k]
            if c >= 0:
                free &= ~masks[c]
    return free


def place_targets(st: State) -> list[int]:
    if len(st.knights[st.to_move]) >= MAX_KNIGHTS:
        return []
    return empty_castle_squares(st)


def do_place(st: State, a: Action) -> None:
    s = a[1]
    p = st.to_move
    if len(st.knights[p]) >= MAX_KNIGHTS or not _empty_castles(st) & BIT[s]:  # place_targets
        if len(st.knights[p]) >= MAX_KNIGHTS:
            raise illegal(a, "all_knights_placed")
        if st.heights[s] == 0:
            raise illegal(a, "place_not_castle", square=N[s])
        need_empty(st, a, s)
        raise illegal(a, "place_castle_taken", square=N[s])
    put_piece(st, s, p)
    st.undo.clear()
    rest = [q for q in range(st.seats) if not st.knights[q]]
    if not rest:
        st.stage = Stage.KING
        return
    after = [q for q in rest if q > p]
    st.to_move = after[0] if after else rest[0]


# ---------------------------------------------------------------------- the king


def king_targets(st: State) -> list[int]:
    """Squares the king may go to now (setup: an empty castle; later: any empty castle square)."""
    return sorted(squares_of(_king_squares(st)))


def _king_squares(st: State) -> int:
    """``king_targets`` as a mask."""
    if st.placing_king:
        return _empty_castles(st)
    return ALL & ~st.pieces & ~castles(st).le[0]


def do_king(st: State, a: Action) -> None:
    s = a[1]
    setup = st.placing_king
    if s < 0:
        if setup:
            raise illegal(a, "king_must_be_placed")
    elif not _king_squares(st) & BIT[s]:
        if st.heights[s] == 0:
            raise illegal(a, "king_not_castle", square=N[s])
        need_empty(st, a, s)
        raise illegal(a, "king_castle_taken", square=N[s])
    st.undo.clear()
    if s >= 0:
        st.occupant = st.occupant[:]  # copied, never changed in place (see State)
        if st.king is not None:
            st.occupant[st.king] = EMPTY
            st.pieces &= ~BIT[st.king]
        st.king = s
        st.occupant[s] = KING
        st.pieces |= BIT[s]
    if setup:
        deal(st)
        st.stage = Stage.PLAY
        st.to_move = st.round_starter
        st.clear_turn(BASE_AP)
        return
    _start_phase(st)


def _start_phase(st: State) -> None:
    """After the king decision: deal the next phase and give its first turn."""
    st.phase += 1
    st.round = 1
    starter = leader(st, st.round_starter) if st.variant == "master" else st.to_move
    st.phase_starter = st.round_starter = st.to_move = starter
    deal(st)
    st.stage = Stage.PLAY
    st.clear_turn(BASE_AP)


def leader(st: State, fallback: int) -> int:
    """Master version: the player with the most points starts (``fallback`` while all are 0)."""
    best = max(st.scores)
    if best <= 0:
        return fallback
    return st.scores.index(best)
