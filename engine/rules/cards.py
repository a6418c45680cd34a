"""The action cards (docs/rules.md §6), one block per card: its legal plays, its
refusals and its effect, side by side.  ``moveblock`` has a module of its own.

Every card registers ``(plays, effect)`` in ``RULES``: ``plays(st)`` lists the
canonical ``play ...`` actions of the player to move, ``effect(st, a)`` checks one
parsed action (raising IllegalAction with the reason) and carries it out.
"""

from __future__ import annotations

from collections.abc import Callable

from ..board import BIT, BY_LENGTH, DIAG, ORTH, ORTH_MASK, SQUARE_NAMES, VAULTS, Castles, squares_of
from ..cards import CARDS
from ..notation import Action
from ..state import EMPTY, KING, State
from . import moveblock
from .common import (
    N,
    add_block,
    build_mask,
    castles,
    explain_block,
    illegal,
    joins,
    move_piece,
    need_empty,
    need_own,
)
from .turn import add_targets, explain_add, no_such_stack

Plays = Callable[[State], list[str]]
Effect = Callable[[State, Action], None]

_EXTRA = [f"play extra {SQUARE_NAMES[s]}" for s in range(64)]
_PAIR = [[f"{SQUARE_NAMES[a]} {SQUARE_NAMES[b]}" for b in range(64)] for a in range(64)]


def _mine(st: State) -> list[int]:
    return st.knights[st.to_move]


_ROWS: dict[str, list[list[str] | None]] = {"doorclimb": [None] * 64, "relocate": [None] * 64}


def _row(card: str, a: int) -> list[str]:
    """The texts of ``play card A B`` by B (made on first use)."""
    row = _ROWS[card][a]
    if row is None:
        row = _ROWS[card][a] = [f"play {card} {pair}" for pair in _PAIR[a]]
    return row


# ---------------------------------------------------------------------- ap6, ap7


def _ap6_plays(st: State) -> list[str]:
    return ["play ap6"]


def _ap6(st: State, a: Action) -> None:
    st.ap += 1


def _ap7_plays(st: State) -> list[str]:
    return ["play ap7"]


def _ap7(st: State, a: Action) -> None:
    st.ap += 2


def _land_one_up(st: State, a: Action, src: int, dst: int, code: str) -> None:
    """The knight on src lands on dst: empty, at most one level higher (diagonal, vault)."""
    need_empty(st, a, dst)
    h = st.heights
    if h[dst] > h[src] + 1:
        raise illegal(a, code, dst=N[dst], src=N[src], levels=h[dst] - h[src])
    move_piece(st, src, dst)


# ---------------------------------------------------------------------- jump: exactly two up


def jump_targets(st: State, s: int) -> list[int]:
    """English "e.g. from level 1 to level 3": an orthogonal neighbour exactly two levels up."""
    h, occ = st.heights, st.occupant
    top = h[s] + 2
    return [t for t in ORTH[s] if occ[t] == EMPTY and h[t] == top]


_JUMP = {(a, t): f"play jump {_PAIR[a][t]}" for a in range(64) for t in ORTH[a]}


def _jump_plays(st: State) -> list[str]:
    """``play jump A B`` for every B of ``jump_targets`` (a loop: no list per knight)."""
    h, occ = st.heights, st.occupant
    out = []
    for a in _mine(st):
        top = h[a] + 2
        for t in ORTH[a]:
            if h[t] == top and occ[t] == EMPTY:
                out.append(_JUMP[a, t])
    return out


def _jump(st: State, a: Action) -> None:
    src, dst = a[2], a[3]
    need_own(st, a, src)
    if dst not in ORTH[src]:
        raise illegal(a, "jump_not_next", dst=N[dst], src=N[src])
    need_empty(st, a, dst)
    h = st.heights
    if h[dst] != h[src] + 2:
        raise illegal(
            a,
            "jump_not_two_up",
            dst=N[dst],
            dst_level=h[dst],
            src=N[src],
            level=h[src],
            target=h[src] + 2,
        )
    move_piece(st, src, dst)


# ---------------------------------------------------------------------- diagonal


def diagonal_targets(st: State, s: int) -> list[int]:
    h, occ = st.heights, st.occupant
    top = h[s] + 1
    return [t for t in DIAG[s] if occ[t] == EMPTY and h[t] <= top]


_DIAGONAL = {(a, t): f"play diagonal {_PAIR[a][t]}" for a in range(64) for t in DIAG[a]}


def _diagonal_plays(st: State) -> list[str]:
    """``play diagonal A B`` for every B of ``diagonal_targets``."""
    h, occ = st.heights, st.occupant
    out = []
    for a in _mine(st):
        top = h[a] + 1
        for t in DIAG[a]:
            if occ[t] == EMPTY and h[t] <= top:
                out.append(_DIAGONAL[a, t])
    return out


def _diagonal(st: State, a: Action) -> None:
    src, dst = a[2], a[3]
    need_own(st, a, src)
    if dst not in DIAG[src]:
        raise illegal(a, "diagonal_not_next", dst=N[dst], src=N[src])
    _land_one_up(st, a, src, dst, "diagonal_too_high")


# ---------------------------------------------------------------------- vault


def vault_targets(st: State, a: int) -> list[int]:
    """Ruling (docs/rules.md §6): over a knight of any colour, never over the king."""
    h, occ = st.heights, st.occupant
    top = h[a] + 1
    return [
        land
        for over, land in VAULTS[a]
        if 0 <= occ[over] < KING and occ[land] == EMPTY and h[land] <= top
    ]


_VAULT = {(a, t): f"play vault {_PAIR[a][t]}" for a in range(64) for _o, t in VAULTS[a]}


def _vault_plays(st: State) -> list[str]:
    """``play vault A B`` for every B of ``vault_targets``."""
    h, occ = st.heights, st.occupant
    out = []
    for a in _mine(st):
        top = h[a] + 1
        for over, land in VAULTS[a]:
            if 0 <= occ[over] < KING and occ[land] == EMPTY and h[land] <= top:
                out.append(_VAULT[a, land])
    return out


def _vault(st: State, a: Action) -> None:
    src, dst = a[2], a[3]
    need_own(st, a, src)
    over = next((o for o, land in VAULTS[src] if land == dst), None)
    if over is None:
        raise illegal(a, "vault_not_straight", dst=N[dst], src=N[src])
    if st.occupant[over] == KING:
        raise illegal(a, "vault_over_king", over=N[over])
    if st.occupant[over] == EMPTY:
        raise illegal(a, "vault_over_nothing", over=N[over])
    _land_one_up(st, a, src, dst, "vault_too_high")


# ---------------------------------------------------------------------- doorclimb


def doorclimb_targets(st: State, a: int) -> list[int]:
    """Every door of the castles rising above the knight on a, whatever its level."""
    h = st.heights
    level = h[a]
    cc = castles(st)
    top = cc.top  # no square is taller
    found = 0
    for t in ORTH[a]:
        if h[t] > level:
            found |= cc.doors_up_to(h, cc.comp[t], top)
    return squares_of(found & ~st.pieces)


def _doorclimb_plays(st: State) -> list[str]:
    out: list[str] = []
    for a in _mine(st):
        found = doorclimb_targets(st, a)
        if found:
            out += map(_row("doorclimb", a).__getitem__, found)
    return out


def _doorclimb(st: State, a: Action) -> None:
    src, dst = a[2], a[3]
    need_own(st, a, src)
    if dst not in doorclimb_targets(st, src):
        need_empty(st, a, dst)
        if dst == src:
            raise illegal(a, "doorclimb_same_square")
        level = st.heights[src]
        if not any(st.heights[t] > level for t in ORTH[src]):
            raise illegal(a, "doorclimb_no_wall", src=N[src], level=level)
        raise illegal(a, "doorclimb_no_door", src=N[src], dst=N[dst])
    move_piece(st, src, dst)


# ---------------------------------------------------------------------- relocate


def relocate_targets(st: State, a: int) -> set[int]:
    """Where the knight on a may go: as a new knight next to another of the player's."""
    return add_targets(st, st.to_move, a)


def _relocate_plays(st: State) -> list[str]:
    """``play relocate A B`` for every B of ``relocate_targets`` (as masks: the squares
    each knight offers, worked out once)."""
    mine = _mine(st)
    if len(mine) < 2:
        return []
    cc = castles(st)
    h, le, free = st.heights, cc.le, ~st.pieces
    near = [ORTH_MASK[k] & le[h[k]] & free for k in mine]
    out: list[str] = []
    for i, a in enumerate(mine):
        m = 0
        for j, n in enumerate(near):
            if j != i:
                m |= n
        if m:
            out += map(_row("relocate", a).__getitem__, squares_of(m))
    return out


def _relocate(st: State, a: Action) -> None:
    src, dst = a[2], a[3]
    need_own(st, a, src)
    if dst not in relocate_targets(st, src):
        explain_add(st, a, dst, without=src)
    move_piece(st, src, dst)


# ---------------------------------------------------------------------- lift


def lift_ok(st: State, s: int, cc: Castles | None = None) -> bool:
    """Whether a block may go under the piece on s by the lift card's castle rules."""
    cc = castles(st) if cc is None else cc  # the castle tables, unless at hand
    hs = st.heights[s]
    if hs > 0:
        c = cc.comp[s]
        return max(cc.height[c], hs + 1) <= cc.area[c]
    near = ORTH_MASK[s] & ~cc.le[0]  # the castle squares next to s
    if not near:
        return True
    c = cc.comp[BY_LENGTH[near.bit_length()]]  # one of them
    if not cc.front[c] & BIT[s]:  # next to another castle too
        return False
    return cc.height[c] <= cc.area[c] + 1


def lift_source(st: State, a: Action) -> int | str:
    """Resolve ``play lift A`` to its stack: the turn's if it holds a block, else the tallest."""
    if st.turn_stack:
        return "turn"
    stacks = st.stacks[st.to_move]
    if stacks and max(stacks) > 0:
        return max(stacks)
    raise illegal(a, "lift_no_block")


_LIFT: dict[tuple[int, int | str], str] = {}  # (A, source) -> "play lift A source"


def _lift_plays(st: State) -> list[str]:
    sources: list[int | str] = ["turn"] if st.turn_stack else []
    sources.extend(sorted({k for k in st.stacks[st.to_move] if k > 0}))
    if not sources:
        return []
    out = []
    cc = castles(st)
    for a in _mine(st):
        if lift_ok(st, a, cc):
            for src in sources:
                text = _LIFT.get((a, src))
                if text is None:
                    if len(_LIFT) >= 4096:  # stacks of any size in a position file
                        _LIFT.clear()
                    text = _LIFT[a, src] = f"play lift {N[a]} {src}"
                out.append(text)
    return out


def _lift(st: State, a: Action) -> None:
    s, src = a[2], a[3]
    p = st.to_move
    need_own(st, a, s)
    if src == "turn":
        if st.turn_stack is None:
            size = max(st.stacks[p] or [2])
            raise illegal(a, "lift_no_turn_stack", square=N[s], size=size)
        if st.turn_stack == 0:
            raise illegal(a, "turn_stack_empty")
    elif src == 0:
        raise illegal(a, "lift_zero_stack")
    elif src not in st.stacks[p]:
        raise no_such_stack(a, src, st.stacks[p])
    if not lift_ok(st, s):
        cc = castles(st)
        hs = st.heights[s]
        if hs > 0:
            c = cc.comp[s]
            raise illegal(a, "lift_too_tall", square=N[s], level=hs + 1, area=cc.area[c])
        raise joins(st, a, s)
    if src == "turn":
        assert st.turn_stack is not None
        st.turn_stack -= 1
    else:
        stacks = st.stacks[p]
        stacks[stacks.index(src)] -= 1
    add_block(st, s)


# ---------------------------------------------------------------------- extra


# the mask of the squares -> their plays (kept: callers do not change the lists)
_EXTRAS: dict[int, list[str]] = {}
_EXTRAS_MAX = 1 << 12


def _extra_plays(st: State) -> list[str]:
    if st.supply <= 0:
        return []
    m = build_mask(st) & ~st.pieces
    found = _EXTRAS.get(m)
    if found is None:
        if len(_EXTRAS) >= _EXTRAS_MAX:
            _EXTRAS.clear()
        found = _EXTRAS[m] = [_EXTRA[s] for s in squares_of(m)]
    return found


def _extra(st: State, a: Action) -> None:
    """Ruling (docs/rules.md §4): not limited by the three blocks a turn."""
    s = a[2]
    if st.supply <= 0:
        raise illegal(a, "supply_empty")
    if not build_mask(st) & ~st.pieces & BIT[s]:
        explain_block(st, a, s)
    add_block(st, s)
    st.supply -= 1


# ---------------------------------------------------------------------- playing a card

RULES: dict[str, tuple[Plays, Effect]] = {
    "jump": (_jump_plays, _jump),
    "lift": (_lift_plays, _lift),
    "extra": (_extra_plays, _extra),
    "doorclimb": (_doorclimb_plays, _doorclimb),
    "diagonal": (_diagonal_plays, _diagonal),
    "ap6": (_ap6_plays, _ap6),
    "ap7": (_ap7_plays, _ap7),
    "moveblock": (moveblock.plays, moveblock.effect),
    "relocate": (_relocate_plays, _relocate),
    "vault": (_vault_plays, _vault),
}
assert set(RULES) == set(CARDS)


def playable_cards(st: State) -> list[str]:
    """Distinct cards the player to move may play now (none played yet, not drawn this turn)."""
    if st.played:
        return []
    hand = st.hands[st.to_move]
    drawn = st.drawn
    return [c for c in set(hand) if not drawn or hand.count(c) > drawn.count(c)]


_PLAYS = {card: plays for card, (plays, _effect) in RULES.items()}


def card_plays(st: State) -> list[str]:
    """Every legal ``play ...`` action of the player to move (in no particular order)."""
    if st.played:
        return []
    hand = st.hands[st.to_move]
    drawn = st.drawn
    out: list[str] = []
    for card in set(hand):
        if not drawn or hand.count(card) > drawn.count(card):
            out += _PLAYS[card](st)
    return out


def do_card(st: State, a: Action) -> None:
    p = st.to_move
    card = a[1]
    unresolved = card == "lift" and a[3] is None
    if unresolved and (st.turn_stack or any(st.stacks[p])):
        a = ("play", "lift", a[2], lift_source(st, a))
        unresolved = False
    if st.played:
        raise illegal(a, "card_played")
    hand = st.hands[p]
    if card not in hand:
        raise illegal(a, "card_not_in_hand", card=card)
    if hand.count(card) <= st.drawn.count(card):
        raise illegal(a, "card_drawn_this_turn", card=card)
    if unresolved:
        lift_source(st, a)
    RULES[card][1](st, a)
    hand.remove(card)
    st.played = True
