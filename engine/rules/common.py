"""What several rules share: refusal texts and checks, castle tables, piece and marker moves."""

from __future__ import annotations

from ..board import NAME_RANK, ORTH, SQUARE_NAMES, Castles
from ..errors import IllegalAction
from ..notation import Action, format_action
from ..state import EMPTY, KING, State

N = SQUARE_NAMES
_RANK = NAME_RANK.__getitem__
_LEVEL_WORDS = {1: "one level", 2: "two levels", 3: "three levels"}


def levels(d: int) -> str:
    return _LEVEL_WORDS.get(d, f"{d} levels")


def illegal(a: Action, reason: str) -> IllegalAction:
    return IllegalAction(format_action(a), reason)


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


def who(st: State, s: int) -> str:
    o = st.occupant[s]
    if o == KING:
        return "the king"
    if o == st.to_move:
        return "your knight"
    return f"{st.names[o]}'s knight"


def need_own(st: State, a: Action, s: int) -> None:
    o = st.occupant[s]
    if o == st.to_move:
        return
    name = N[s]
    if o == EMPTY:
        raise illegal(a, f"You have no knight on {name}.")
    if o == KING:
        raise illegal(a, f"{name} holds the king, not one of your knights.")
    raise illegal(a, f"The knight on {name} is {st.names[o]}'s, not yours.")


def need_empty(st: State, a: Action, s: int) -> None:
    if st.occupant[s] != EMPTY:
        raise illegal(a, f"{N[s]} is not empty: {who(st, s)} stands there.")


def need_ap(st: State, a: Action, cost: int, what: str) -> None:
    if st.ap < cost:
        left = "no action points" if st.ap == 0 else f"only {st.ap} action point"
        raise illegal(
            a,
            f"{what} costs {cost} action point{'s' if cost > 1 else ''} and you have {left} left.",
        )


def explain_block(st: State, a: Action, s: int) -> None:
    """Refuse a block on s that the building rules forbid (``build`` and ``extra``)."""
    need_empty(st, a, s)
    cc = castles(st)
    h = st.heights
    if h[s] > 0:
        c = cc.comp[s]
        raise illegal(
            a,
            f"A block on {N[s]} would make it level {h[s] + 1} on a castle of area "
            f"{cc.area[c]}; a castle may not be taller than its area.",
        )
    touching = cc.adj[s]
    if not touching:
        raise illegal(
            a,
            f"{N[s]} touches no castle; a block on the bare board must extend exactly one castle.",
        )
    if len(touching) > 1:
        names = [N[t] for t in ORTH[s] if cc.comp[t] >= 0]
        raise illegal(
            a,
            f"A block on {N[s]} would join the castles on {' and '.join(sorted(names))}; "
            "castles may touch only diagonally.",
        )
    c = touching[0]
    raise illegal(
        a,
        f"A block on {N[s]} would leave its castle taller ({cc.height[c]}) than its area "
        f"({cc.area[c] + 1}).",
    )


def block_squares(st: State) -> list[int]:
    """Squares where a block may go by the building rules, pieces aside (cached per board),
    in the order of their names.

    Per castle: its squares below its area while it is no taller than its area, and
    the bare squares touching it alone while it is at most one taller than its area.
    """
    cc = castles(st)
    cached = cc.build
    if cached is not None:
        return cached
    h = st.heights
    res: list[int] = []
    for c, a in enumerate(cc.area):  # as _castle_blocks, inline
        hc = cc.height[c]
        if hc <= a:
            res.extend([s for s in cc.members[c] if h[s] < a])
        if hc <= a + 1:
            res.extend(cc.frontier[c])
    res.sort(key=_RANK)  # in the order of the legal-action list
    cc.build = res
    return res


def _castle_blocks(cc: Castles, h: list[int], c: int) -> list[int]:
    """The squares ``block_squares`` has because of castle c."""
    a = cc.area[c]
    hc = cc.height[c]
    res = [s for s in cc.members[c] if h[s] < a] if hc <= a else []
    if hc <= a + 1:
        res.extend(cc.frontier[c])
    return res


def add_block(st: State, s: int) -> None:
    """One block more on s (never joining castles); the castle tables follow cheaply.

    So does ``block_squares``: only squares of s's castle, of its old frontier and
    next to s can change (a bare square next to s now touches s's castle).
    """
    h = st.heights
    h[s] += 1
    cc = st.castles
    if cc is None:
        return
    new = cc.with_block(h, s)
    old = cc.build
    if old is not None:
        c = new.comp[s]
        drop = set(ORTH[s])
        drop.update(new.members[c])
        if c < len(cc.frontier):
            drop.update(cc.frontier[c])
        res = [x for x in old if x not in drop]
        res.extend(_castle_blocks(new, h, c))
        res.sort(key=_RANK)  # mostly sorted already: cheap
        new.build = res
    st.castles = new


def put_piece(st: State, s: int, who: int) -> None:
    st.occupant[s] = who
    if who != KING:
        st.knights[who].append(s)


def move_piece(st: State, a: int, b: int) -> None:
    occ = st.occupant
    who = occ[a]
    occ[a] = EMPTY
    occ[b] = who
    k = st.knights[who]
    k[k.index(a)] = b


def advance(st: State, p: int, steps: int) -> None:
    """Move p's marker ``steps`` spaces, on to the next free space if it lands on another."""
    if steps <= 0:
        return
    target = st.scores[p] + steps
    taken = {s for q, s in enumerate(st.scores) if q != p and s > 0}
    while target in taken:
        target += 1
    st.scores[p] = target
