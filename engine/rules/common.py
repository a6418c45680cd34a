"""What several rules share: refusal texts and checks, castle tables, piece and marker moves."""

from __future__ import annotations

from ..board import BIT, ORTH, SQUARE_NAMES, Castles, squares_of
from ..castle_steps import with_block
from ..errors import IllegalAction
from ..notation import Action, format_action
from ..state import EMPTY, KING, State

N = SQUARE_NAMES
# BYTE_BITS[byte]: the bit lengths (1..8) of the bits of a byte, lowest first (texts of
# squares a byte of a mask at a time work with small ints, never 64-bit arithmetic)
BYTE_BITS: list[tuple[int, ...]] = [
    tuple(i + 1 for i in range(8) if b >> i & 1) for b in range(256)
]


def illegal(a: Action, code: str, **params: str | int) -> IllegalAction:
    """The refusal ``code`` of action ``a`` (``engine.messages``), with its English reason."""
    return IllegalAction(format_action(a), code=code, params=params)


# Castle tables by heights, shared between games: a search loads many positions with
# the same board (sampled hidden cards), and the tables with their caches depend on
# the heights alone.  The oldest entry goes first.
_TABLES: dict[tuple[int, ...], Castles] = {}
_TABLES_MAX = 256


def castles(st: State) -> Castles:
    """The castle tables of the current heights (computed once per board)."""
    cc = st.castles
    if cc is None:
        key = tuple(st.heights)
        cc = _TABLES.get(key)
        if cc is None:
            cc = _TABLES[key] = Castles(st.heights)
            if len(_TABLES) > _TABLES_MAX:
                del _TABLES[next(iter(_TABLES))]
        st.castles = cc
    return cc


def who(st: State, a: Action, s: int, king: str, own: str, other: str) -> IllegalAction:
    """The refusal for the piece on s: ``king``, ``own`` (the player's knight) or ``other``
    (another player's knight, named by ``player``)."""
    o = st.occupant[s]
    if o == KING:
        return illegal(a, king, square=N[s])
    if o == st.to_move:
        return illegal(a, own, square=N[s])
    return illegal(a, other, square=N[s], player=st.names[o])


def need_own(st: State, a: Action, s: int) -> None:
    o = st.occupant[s]
    if o == st.to_move:
        return
    name = N[s]
    if o == EMPTY:
        raise illegal(a, "no_own_knight", square=name)
    if o == KING:
        raise illegal(a, "square_holds_king", square=name)
    raise illegal(a, "knight_not_yours", square=name, player=st.names[o])


def need_empty(st: State, a: Action, s: int) -> None:
    if st.occupant[s] != EMPTY:
        raise who(st, a, s, "occupied_by_king", "occupied_by_own", "occupied_by_knight")


def need_ap(st: State, a: Action, cost: int, code: str) -> None:
    """Refuse an action costing ``cost`` AP when fewer are left: ``code`` when none
    are, ``code`` + "_short" (with ``ap``) when some are."""
    if st.ap < cost:
        if st.ap == 0:
            raise illegal(a, code)
        raise illegal(a, code + "_short", ap=st.ap)


def explain_block(st: State, a: Action, s: int) -> None:
    """Refuse a block on s that the building rules forbid (``build`` and ``extra``)."""
    need_empty(st, a, s)
    cc = castles(st)
    h = st.heights
    if h[s] > 0:
        c = cc.comp[s]
        raise illegal(a, "block_too_tall", square=N[s], level=h[s] + 1, area=cc.area[c])
    touching = cc.adj[s]
    if not touching:
        raise illegal(a, "block_touches_no_castle", square=N[s])
    if len(touching) > 1:
        raise joins(st, a, s)
    c = touching[0]
    raise illegal(a, "block_castle_taller", square=N[s], height=cc.height[c], area=cc.area[c] + 1)


def joins(st: State, a: Action, s: int) -> IllegalAction:
    """The refusal of a block on the bare square s next to two or more castles (next
    to one alone: that castle would be taller than its area, one square larger)."""
    cc = castles(st)
    touching = cc.adj[s]
    if len(touching) == 1:
        c = touching[0]
        area = cc.area[c] + 1
        return illegal(a, "block_castle_taller", square=N[s], height=cc.height[c], area=area)
    names = sorted(N[t] for t in ORTH[s] if cc.comp[t] >= 0)  # 2 to 4 squares
    squares = {f"s{i + 1}": name for i, name in enumerate(names)}
    return illegal(a, f"block_joins_{len(names)}", square=N[s], **squares)


def build_mask(st: State) -> int:
    """The mask of the squares where a block may go by the building rules, pieces
    aside (cached per board).

    Per castle: its squares below its area while it is no taller than its area, and
    the bare squares touching it alone while it is at most one taller than its area.
    """
    cc = st.castles
    if cc is None:
        cc = castles(st)
    found = cc.build
    if found is None:
        found = 0
        le = cc.le
        top = cc.top
        masks = cc.member_mask
        front = cc.front
        for c, (a, hc) in enumerate(zip(cc.area, cc.height, strict=True)):
            if hc <= a:
                found |= masks[c] & le[a - 1 if a <= top else top]
            if hc <= a + 1:
                found |= front[c]
        cc.build = found
    return found


def block_squares(st: State) -> list[int]:
    """The squares of ``build_mask``, in the order of their names."""
    return squares_of(build_mask(st))


def add_block(st: State, s: int) -> None:
    """One block more on s (never joining castles); the castle tables follow cheaply,
    the block squares (``build_mask``) with them."""
    h = st.heights = st.heights[:]  # copied, never changed in place (see State)
    h[s] += 1
    cc = st.castles
    if cc is not None:
        st.castles = with_block(cc, h, s)


def put_piece(st: State, s: int, who: int) -> None:
    st.occupant = occ = st.occupant[:]  # copied, never changed in place (see State)
    occ[s] = who
    st.pieces |= BIT[s]
    if who != KING:
        st.knights[who].append(s)


def move_piece(st: State, a: int, b: int) -> None:
    st.occupant = occ = st.occupant[:]  # copied, never changed in place (see State)
    who = occ[a]
    occ[a] = EMPTY
    occ[b] = who
    st.pieces ^= BIT[a] | BIT[b]
    k = st.knights[who]
    k[k.index(a)] = b


def advance(st: State, p: int, steps: int) -> None:
    """Move p's marker ``steps`` spaces, on to the next free space if it lands on another."""
    if steps <= 0:
        return
    scores = st.scores
    target = scores[p] + steps
    while target in scores:  # another's marker: p's own is lower, and target > 0
        target += 1
    scores[p] = target
