"""One parsed action applied to the state by stage and kind, and the legal-action list."""

from __future__ import annotations

from collections.abc import Callable

from ..board import NAME_RANK, ORTH_MASK, SORTED_SQUARES, SQUARE_NAMES, mask_of, squares_of
from ..events import Event, Stage
from ..notation import BUILD_TEXT, KNIGHT_TEXT, MOVE_TEXT, Action
from ..state import State, TurnSnapshot
from . import setup, turn
from .cards import card_plays, do_card
from .common import BYTE_BITS, build_mask, castles, illegal
from .tables import MAX_DRAWS, MAX_KNIGHTS

_N = SQUARE_NAMES
_MOVE = MOVE_TEXT
_BUILD = BUILD_TEXT
_KNIGHT = KNIGHT_TEXT
_STACK = [f"stack {k}" for k in range(10)]
# The same texts indexed by the bit length of the target's mask bit (board.BIT).
_MOVE_BY_LENGTH = [["", *(row[b] for b in SORTED_SQUARES)] for row in _MOVE]
_BUILD_BY_LENGTH = ["", *(_BUILD[b] for b in SORTED_SQUARES)]
_KNIGHT_BY_LENGTH = ["", *(_KNIGHT[b] for b in SORTED_SQUARES)]
_ROWS = _MOVE_BY_LENGTH
_ORTH_MASK = ORTH_MASK
_RANK = NAME_RANK.__getitem__
_PLAY, _DRAW_KEEP = Stage.PLAY, Stage.DRAW_KEEP  # enum class attributes are slow to look up


TURN_ACTIONS: dict[str, Callable[[State, Action], None]] = {
    "move": turn.do_move,
    "build": turn.do_build,
    "score": turn.do_score,
    "play": do_card,
    "knight": turn.do_knight,
    "stack": turn.do_stack,
    "draw": turn.do_draw,
}


def step(st: State, a: Action, events: list[Event], snap: TurnSnapshot | None) -> None:
    """Apply one action; in a turn, first push ``snap`` (or a fresh snapshot) for undo
    (``end`` and ``draw`` push none: they clear the undo stack)."""
    stage = st.stage
    kind = a[0]
    if stage is _PLAY:
        if kind in ("castle", "place", "king", "keep"):
            wrong_stage(st, a)
        if kind == "end":
            turn.do_end(st, events)
            return
        if kind != "draw":
            st.undo.append(snap if snap is not None else st.turn_snapshot(kind))
        TURN_ACTIONS[kind](st, a)
        return
    if stage is _DRAW_KEEP:
        if kind != "keep":
            wrong_stage(st, a)
        turn.do_keep(st, a)
        return
    if stage == Stage.CASTLES and kind == "castle":
        setup.do_castle(st, a)
    elif stage == Stage.PLACE and kind == "place":
        setup.do_place(st, a)
    elif stage == Stage.KING and kind == "king":
        setup.do_king(st, a)
    else:
        wrong_stage(st, a)


def wrong_stage(st: State, a: Action) -> None:
    """Refuse an action the current stage has no place for, saying what is expected."""
    stage = st.stage
    if stage == Stage.OVER:
        raise illegal(a, "game_over")
    if stage == Stage.CASTLES:
        raise illegal(a, "stage_castles")
    if stage == Stage.PLACE:
        raise illegal(a, "stage_place")
    if st.placing_king:
        raise illegal(a, "stage_place_king")
    if stage == Stage.KING:
        raise illegal(a, "stage_king")
    if stage == Stage.DRAW_KEEP:
        raise illegal(a, "stage_keep")
    kind = a[0]
    if kind == "keep":
        raise illegal(a, "nothing_to_keep")
    if kind == "king":
        raise illegal(a, "king_after_scoring")
    raise illegal(a, "setup_over", verb=str(kind))


def legal(st: State) -> list[str]:
    """Every legal single action of the player to move, canonical and sorted."""
    stage = st.stage
    if stage is _PLAY:
        return _legal_play(st)
    if stage is _DRAW_KEEP:
        cards = sorted(set(st.revealed))
        return sorted([f"keep {c} {w}" for c in cards for w in ("bottom", "top")])
    if stage == Stage.CASTLES:
        return sorted(f"castle {_N[s]}" for s in setup.castle_targets(st))
    if stage == Stage.PLACE:
        return sorted(f"place {_N[s]}" for s in setup.place_targets(st))
    if stage == Stage.KING:
        out = [f"king {_N[s]}" for s in setup.king_targets(st)]
        if not st.placing_king:  # after a scoring, with or without a king on the board
            out.append("king pass")
        return sorted(out)
    return []


# Texts by mask, shared by all games (a few MB at most): ``_TEXTS[row][mask]``, row
# 0..63 the moves from that square, 64 builds, 65 new knights.  Tuples: the garbage
# collector leaves tuples of strings alone.  ``_KEPT[0]``: how many masks they hold.
_TEXTS: list[dict[int, tuple[str, ...]]] = [{} for _ in range(66)]
_TEXTS_MAX = 1 << 15
_KEPT = [0]
_BUILDS, _KNIGHTS = _TEXTS[64], _TEXTS[65]


def _by_byte(row: list[str]) -> list[list[tuple[str, ...]]]:
    """``[file][byte]``: the texts of ``row`` for the squares of one byte of a mask."""
    out = []
    for f in range(8):
        texts: list[tuple[str, ...]] = [()]
        for b in range(1, 256):
            low = b & -b
            texts.append((row[8 * f + low.bit_length()], *texts[b ^ low]))
        out.append(texts)
    return out


# The texts of builds and new knights a byte (a file) of a mask at a time, and for the
# moves the bit lengths (the indices in ``_ROWS[a]``) of the squares of each byte: the
# texts of a mask not yet in ``_TEXTS`` are then eight look-ups, one per file, joined
# (a third faster than a square at a time; most masks of a random game are new).
_BUILD_FILES, _KNIGHT_FILES = _by_byte(_BUILD_BY_LENGTH), _by_byte(_KNIGHT_BY_LENGTH)
_AT = [[tuple(8 * f + i for i in BYTE_BITS[b]) for b in range(256)] for f in range(8)]


def _steps() -> None:
    """Put the moves to every set of orthogonal neighbours into ``_TEXTS`` (a knight's
    moves are mostly steps)."""
    for a in range(64):
        near = squares_of(ORTH_MASK[a])  # in the order of their names
        row = MOVE_TEXT[a]
        texts = _TEXTS[a]
        for subset in range(1, 1 << len(near)):
            chosen = [t for i, t in enumerate(near) if subset >> i & 1]
            texts[mask_of(chosen)] = tuple(row[t] for t in chosen)
    _KEPT[0] = sum(map(len, _TEXTS))


_steps()


def _texts_of(m: int, r: int) -> tuple[str, ...]:
    """``_TEXTS[r][m]``, worked out and kept."""
    if _KEPT[0] >= _TEXTS_MAX:
        for texts in _TEXTS:
            texts.clear()
        _steps()
    _KEPT[0] += 1
    b0, b1, b2, b3, b4, b5, b6, b7 = m.to_bytes(8, "little")
    if r < 64:  # a knight's moves
        a0, a1, a2, a3, a4, a5, a6, a7 = _AT
        at = a0[b0] + a1[b1] + a2[b2] + a3[b3] + a4[b4] + a5[b5] + a6[b6] + a7[b7]
        found = _TEXTS[r][m] = tuple(map(_ROWS[r].__getitem__, at))
    else:
        f0, f1, f2, f3, f4, f5, f6, f7 = _BUILD_FILES if r == 64 else _KNIGHT_FILES
        found = _TEXTS[r][m] = f0[b0] + f1[b1] + f2[b2] + f3[b3] + f4[b4] + f5[b5] + f6[b6] + f7[b7]
    return found


# A player's knights in the order of their squares' names, by the knights in their
# order of play (sorting with a key each time costs more than the look-up).
_ORDER: dict[tuple[int, ...], tuple[int, ...]] = {}
_ORDER_MAX = 1 << 14


def _order(mine: list[int]) -> tuple[int, ...]:
    """``mine`` in the order of their names, worked out and kept in ``_ORDER``."""
    if len(_ORDER) >= _ORDER_MAX:
        _ORDER.clear()
    found = _ORDER[tuple(mine)] = tuple(sorted(mine, key=_RANK))
    return found


def _legal_play(st: State) -> list[str]:
    """The turn's actions, put together in sorted order (the parts come sorted)."""
    p = st.to_move
    ap = st.ap
    mine = st.knights[p]
    out: list[str] = []
    if ap >= 1:
        free = ~st.pieces
        cc = st.castles
        if cc is None:
            cc = castles(st)
        ts = st.turn_stack
        if ts or (ts is None and any(st.stacks[p])):  # turn.can_build
            m = cc.build
            if m is None:
                m = build_mask(st)
            m &= free
            if m:
                out += _BUILDS.get(m) or _texts_of(m, 64)
        if (  # turn.can_draw
            st.variant == "common"
            and len(st.drawn) < MAX_DRAWS
            and st.decks.get("common")
            or turn.can_draw(st)
        ):
            out.append("draw")
        out.append("end")
        if ap >= 2 and len(mine) < MAX_KNIGHTS:  # turn.add_targets, as a mask
            h = st.heights
            le = cc.le
            m = 0
            for k in mine:
                m |= _ORTH_MASK[k] & le[h[k]]
            m &= free
            if m:
                out += _KNIGHTS.get(m) or _texts_of(m, 65)
        reach = cc.reach
        texts = _TEXTS
        for a in (_ORDER.get(tuple(mine)) or _order(mine)) if len(mine) > 1 else mine:
            m = reach.get(a)
            if m is None:
                m = turn.move_reach(st, a)
            m &= free
            if m:
                out += texts[a].get(m) or _texts_of(m, a)
    else:
        out.append("end")
    if not st.played and st.hands[p]:
        out += sorted(card_plays(st))
    if ap >= 1:
        out.append("score")
    if st.turn_stack is None:
        sizes = sorted(set(st.stacks[p]))
        if sizes and sizes[-1] < 10:  # one digit each: in numeric order is in text order
            out += [_STACK[k] for k in sizes]
        else:
            out += sorted([f"stack {k}" for k in sizes])
    return out
