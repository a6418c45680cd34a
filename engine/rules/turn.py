"""A turn (docs/rules.md §4): steps and door passages, blocks, new knights, the
turn's stack, drawing and keeping cards, the scoring track, and the end of a turn."""

from __future__ import annotations

from ..board import ALL, BIT, ORTH, ORTH_MASK, squares_of
from ..castle_steps import with_block
from ..errors import IllegalAction
from ..events import Event, Stage, TurnEnd
from ..notation import Action
from ..state import EMPTY, State
from .common import (
    N,
    advance,
    build_mask,
    castles,
    explain_block,
    illegal,
    need_ap,
    need_empty,
    need_own,
    put_piece,
)
from .scoring import score_phase
from .setup import leader
from .tables import BASE_AP, MAX_DRAWS, MAX_KNIGHTS, MAX_STACK, ROUNDS

# ---------------------------------------------------------------------- moving a knight


def move_reach(st: State, a: int) -> int:
    """The mask of the squares a knight on ``a`` reaches with one step or one door
    passage, were they empty (cached with the castle tables: heights alone decide it)."""
    cc = st.castles
    if cc is None:
        cc = castles(st)
    found = cc.reach.get(a)
    if found is None:
        h = st.heights
        level = h[a]
        le = cc.le
        found = near = ORTH_MASK[a]
        if near & le[level] != near:  # castles rising above the knight next to it
            found = near & le[level + 1]  # steps: at most one level up
            comp = cc.comp
            if level:  # on a castle: every square of height next to it is of that castle
                found |= cc.doors_up_to(h, comp[a], level)
            else:  # the doors from the ground: the bare squares next to each castle
                lows = cc._low  # doors_up_to(h, c, 0) where kept, without the call
                for t in ORTH[a]:
                    c = comp[t]
                    if c >= 0:
                        low = lows[c]
                        doors = low.get(0) if low is not None else None
                        found |= doors if doors is not None else cc.doors_up_to(h, c, 0)
            found &= _NOT_BIT[a]  # a door may be a's own square (steps never are)
        cc.reach[a] = found
        cc.reach_keys |= BIT[a]
    return found


_NOT_BIT = tuple(ALL ^ b for b in BIT)


def move_targets(st: State, a: int) -> list[int]:
    """Squares the knight on ``a`` reaches with one step or one door passage."""
    return squares_of(move_reach(st, a) & ~st.pieces)


def do_move(st: State, a: Action) -> None:
    src: int = a[1]  # typed: the compiled core indexes lists with it natively
    dst: int = a[2]
    occ = st.occupant
    p = occ[src]
    if p != st.to_move:
        need_own(st, a, src)
    if st.ap < 1:
        need_ap(st, a, 1, "ap_move")
    cc = st.castles
    reach = cc.reach.get(src) if cc is not None else None
    if reach is None:
        reach = move_reach(st, src)
    if not reach & BIT[dst] or occ[dst] != EMPTY:
        need_empty(st, a, dst)
        _explain_move(st, a, src, dst)
    st.occupant = occ = occ[:]  # move_piece(st, src, dst), inline
    occ[src] = EMPTY
    occ[dst] = p
    st.pieces ^= BIT[src] | BIT[dst]
    k = st.knights[p]
    k[k.index(src)] = dst
    st.ap -= 1


def _explain_move(st: State, a: Action, src: int, dst: int) -> None:
    h = st.heights
    level = h[src]
    if dst == src:
        raise illegal(a, "move_same_square")
    squares = {"src": N[src], "dst": N[dst]}
    if dst in ORTH[src]:
        raise illegal(a, "step_too_high", levels=h[dst] - level, **squares)
    if h[dst] > level:
        raise illegal(a, "door_ends_higher", dst_level=h[dst], level=level, **squares)
    if not any(h[t] > level for t in ORTH[src]):
        raise illegal(a, "no_wall", level=level, **squares)
    raise illegal(a, "no_door", **squares)


# ---------------------------------------------------------------------- blocks and stacks


def can_build(st: State) -> bool:
    """Whether the 1-AP block action has a block to place (pieces and squares aside)."""
    stacks = st.stacks[st.to_move]
    return bool(st.turn_stack or (st.turn_stack is None and stacks and max(stacks) > 0))


def do_build(st: State, a: Action) -> None:
    if st.ap < 1:
        need_ap(st, a, 1, "ap_build")
    stacks = st.stacks[st.to_move]
    if st.turn_stack is None:
        if not stacks:
            raise illegal(a, "no_stack")
        if max(stacks) == 0:
            raise illegal(a, "stacks_empty")
    elif st.turn_stack == 0:
        raise illegal(a, "turn_stack_empty")
    s: int = a[1]
    cc = st.castles
    m = cc.build if cc is not None else None
    if m is None:
        m = build_mask(st)
        cc = st.castles  # build_mask worked them out
    if not m & BIT[s] or st.occupant[s] != EMPTY:
        explain_block(st, a, s)
    if st.turn_stack is None:
        st.turn_stack = stacks.pop(stacks.index(max(stacks)))
    st.turn_stack -= 1
    h = st.heights = st.heights[:]  # add_block(st, s), inline
    h[s] += 1
    if cc is not None:
        st.castles = with_block(cc, h, s)
    st.ap -= 1


def do_stack(st: State, a: Action) -> None:
    if st.turn_stack is not None:
        raise illegal(a, "stack_chosen", left=st.turn_stack)
    k = a[1]
    stacks = st.stacks[st.to_move]
    if k not in stacks:
        raise no_such_stack(a, k, stacks)
    stacks.remove(k)
    st.turn_stack = k


# ---------------------------------------------------------------------- adding a knight


def add_targets(st: State, p: int, without: int = -1) -> set[int]:
    """Empty squares next to one of p's knights (other than ``without``), no higher than it."""
    h, occ = st.heights, st.occupant
    res: set[int] = set()
    for k in st.knights[p]:
        if k == without:
            continue
        level = h[k]
        for t in ORTH[k]:
            if occ[t] == EMPTY and h[t] <= level:
                res.add(t)
    return res


def no_such_stack(a: Action, k: int, stacks: list[int]) -> IllegalAction:
    """The refusal of a stack of k blocks the player does not have."""
    if not stacks:
        return illegal(a, "no_such_stack_none", size=k)
    return illegal(a, "no_such_stack", size=k, stacks=", ".join(map(str, stacks)))


def explain_add(st: State, a: Action, s: int, without: int = -1) -> None:
    """Refuse a knight on s that may not go there as a new knight (``knight``, ``relocate``)."""
    need_empty(st, a, s)
    p = st.to_move
    relocate = without >= 0
    if not any(st.occupant[t] == p and t != without for t in ORTH[s]):
        raise illegal(a, "relocate_not_next" if relocate else "add_not_next", square=N[s])
    code = "relocate_too_high" if relocate else "add_too_high"
    raise illegal(a, code, square=N[s], level=st.heights[s])


def do_knight(st: State, a: Action) -> None:
    p = st.to_move
    s: int = a[1]
    if len(st.knights[p]) >= MAX_KNIGHTS:
        raise illegal(a, "all_knights_placed")
    if st.ap < 2:
        need_ap(st, a, 2, "ap_knight")
    cc = st.castles if st.castles is not None else castles(st)
    h, le = st.heights, cc.le
    m = 0  # add_targets(st, p) as a mask
    for k in st.knights[p]:
        m |= ORTH_MASK[k] & le[h[k]]
    if not m & BIT[s] or st.occupant[s] != EMPTY:
        explain_add(st, a, s)
    put_piece(st, s, p)
    st.ap -= 2


# ---------------------------------------------------------------------- cards from the deck


def can_draw(st: State) -> bool:
    return (
        st.variant != "master"
        and len(st.drawn) < MAX_DRAWS
        and bool(st.decks.get(st.deck_key(st.to_move)))
    )


def do_draw(st: State, a: Action) -> None:
    p = st.to_move
    if st.variant == "master":
        raise illegal(a, "no_draw_master")
    if len(st.drawn) >= MAX_DRAWS:
        raise illegal(a, "drawn_two")
    need_ap(st, a, 1, "ap_draw")
    key = st.deck_key(p)
    deck = st.decks.get(key) or ()
    if not deck:
        raise illegal(a, "deck_empty" if key == "common" else "own_deck_empty")
    st.ap -= 1
    st.undo.clear()
    if st.variant == "common":
        card = deck[0]
        st.decks[key] = deck[1:]
        st.hands[p].append(card)
        st.drawn.append(card)
    else:
        st.revealed = list(deck[:3])
        st.decks[key] = deck[3:]
        st.stage = Stage.DRAW_KEEP


def do_keep(st: State, a: Action) -> None:
    """Ruling (docs/rules.md §4): the cards not kept go back together, in the order drawn."""
    card, where = a[1], a[2]
    revealed = st.revealed
    if card not in revealed:
        raise illegal(a, "not_drawn", card=card, cards=", ".join(revealed))
    p = st.to_move
    rest = revealed[:]
    rest.remove(card)
    key = st.deck_key(p)
    deck = st.decks.get(key) or ()
    st.decks[key] = (*rest, *deck) if where == "top" else (*deck, *rest)
    st.hands[p].append(card)
    st.drawn.append(card)
    st.revealed = []
    st.stage = Stage.PLAY
    st.undo.clear()


# ---------------------------------------------------------------------- score, end


def do_score(st: State, a: Action) -> None:
    if st.ap < 1:
        need_ap(st, a, 1, "ap_score")
    st.ap -= 1
    advance(st, st.to_move, 1)


def do_end(st: State, events: list[Event]) -> None:
    """End the turn: use up the turn's stack, pass on, and score the phase after its last turn."""
    p = st.to_move
    stacks = st.stacks[p]
    if st.turn_stack is None and stacks:
        st.turn_stack = stacks.pop(stacks.index(max(stacks)))
    left = st.turn_stack or 0
    room = sum(MAX_STACK - s for s in stacks if s < MAX_STACK)  # the rest: the supply
    for _ in range(min(left, room)):  # one at a time, each to the lowest stack with room
        best = -1
        for i, s in enumerate(stacks):
            if s < MAX_STACK and (best < 0 or s < stacks[best]):
                best = i
        stacks[best] += 1
    st.supply += left - min(left, room)
    st.undo.clear()
    events.append(TurnEnd(st.names[p]))
    n = len(st.names)
    nxt = p + 1 if p + 1 < n else 0
    if nxt != st.round_starter:
        st.to_move = nxt
        st.clear_turn(BASE_AP)
        return
    if st.round < ROUNDS[n][st.phase - 1]:
        st.round += 1
        if st.variant == "master":
            st.round_starter = leader(st, st.round_starter)
        st.to_move = st.round_starter
        st.clear_turn(BASE_AP)
        return
    score_phase(st, events)  # it ends the turn too (clear_turn)
