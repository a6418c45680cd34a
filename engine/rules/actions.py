"""One parsed action applied to the state by stage and kind, and the legal-action list."""

from __future__ import annotations

from collections.abc import Callable

from ..board import NAME_RANK, ORTH_MASK, SORTED_SQUARES, SQUARE_NAMES
from ..events import Event, Stage
from ..notation import BUILD_TEXT, KNIGHT_TEXT, MOVE_TEXT, Action
from ..state import State, TurnSnapshot
from . import setup, turn
from .cards import card_plays, do_card
from .common import build_mask, castles, illegal
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
_ROWS = [*_MOVE_BY_LENGTH, _BUILD_BY_LENGTH, _KNIGHT_BY_LENGTH]
_ORTH_MASK = ORTH_MASK
_RANK = NAME_RANK.__getitem__
_PLAY, _DRAW_KEEP = Stage.PLAY, Stage.DRAW_KEEP  # enum class attributes are slow to look up


_TURN_ACTIONS: dict[str, Callable[[State, Action], None]] = {
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
            st.undo.append(snap if snap is not None else st.turn_snapshot())
        _TURN_ACTIONS[kind](st, a)
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
        if st.king is not None:
            out.append("king pass")
        return sorted(out)
    return []


# Texts by mask, shared by all games (a few MB at most): (mask << 7 | row) -> texts,
# row 0..63 the moves from that square, 64 builds, 65 new knights.  A mask not seen
# yet is read a byte (one file) at a time: (row << 11 | file << 8 | byte) -> texts.
_TEXTS: dict[int, list[str]] = {}
_TEXTS_MAX = 1 << 15
_CHUNKS: dict[int, tuple[str, ...]] = {}


def _texts_of(key: int) -> list[str]:
    """The texts of ``key`` (see ``_TEXTS``), worked out and kept."""
    if len(_TEXTS) >= _TEXTS_MAX:
        _TEXTS.clear()
    r = key & 127
    m = key >> 7
    out: list[str] = []
    if r < 64:  # a knight's moves: a few squares, one at a time
        row = _ROWS[r]
        while m:
            low = m & -m
            out.append(row[low.bit_length()])
            m ^= low
    else:  # many squares: a file at a time
        base = r << 11
        f = 0
        while m:
            b = m & 255
            if b:
                chunk = _CHUNKS.get(base | f | b)
                if chunk is None:
                    chunk = _chunk(base | f | b)
                out += chunk
            m >>= 8
            f += 256
    _TEXTS[key] = out
    return out


def _without(full: list[str], row: list[str], key: int, taken: int) -> list[str]:
    """The texts of ``key`` (see ``_TEXTS``): ``full`` less those of the squares of
    mask ``taken`` (a few), kept."""
    out = full[:]
    while taken:
        low = taken & -taken
        out.remove(row[low.bit_length()])
        taken ^= low
    if len(_TEXTS) >= _TEXTS_MAX:
        _TEXTS.clear()
    _TEXTS[key] = out
    return out


def _chunk(key: int) -> tuple[str, ...]:
    row = _ROWS[key >> 11]
    first = (key >> 8 & 7) << 3  # the bit length of the file's first square, minus 1
    b = key & 255
    found = _CHUNKS[key] = tuple(row[first + i + 1] for i in range(8) if b >> i & 1)
    return found


def _legal_play(st: State) -> list[str]:
    """The turn's actions, put together in sorted order (the parts come sorted)."""
    p = st.to_move
    ap = st.ap
    mine = st.knights[p]
    out: list[str] = []
    if ap >= 1:
        pieces = st.pieces
        free = ~pieces
        cc = st.castles
        if cc is None:
            cc = castles(st)
        ts = st.turn_stack
        if ts or (ts is None and any(st.stacks[p])):  # turn.can_build
            m = cc.build
            if m is None:
                m = build_mask(st)
            if m:
                full = _TEXTS.get(m << 7 | 64) or _texts_of(m << 7 | 64)
                taken = m & pieces
                if taken:
                    key = (m ^ taken) << 7 | 64
                    full = _TEXTS.get(key) or _without(full, _BUILD_BY_LENGTH, key, taken)
                out += full
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
                key = m << 7 | 65
                out += _TEXTS.get(key) or _texts_of(key)
        reach = cc.reach
        for a in sorted(mine, key=_RANK) if len(mine) > 1 else mine:
            m = reach.get(a)
            if m is None:
                m = turn.move_reach(st, a)
            if m:
                full = _TEXTS.get(m << 7 | a) or _texts_of(m << 7 | a)
                taken = m & pieces
                if taken:
                    key = (m ^ taken) << 7 | a
                    full = _TEXTS.get(key) or _without(full, _MOVE_BY_LENGTH[a], key, taken)
                out += full
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
