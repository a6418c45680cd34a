"""Reading a well-formed torres-position/1 dict fast (``engine.position`` has the
checking reader, for everything else, and the writer)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .board import BIT, SQUARE_INDEX
from .cards import CARDS, MASTER_CARDS
from .events import Stage
from .rules.setup import default_decks
from .rules.tables import ALLOTMENT, BASE_AP, MAX_KNIGHTS, ROUNDS, TOTAL_BLOCKS, VARIANTS
from .state import EMPTY, KING, NOBODY, DeckKey, State

FORMAT = "torres-position/1"
_STAGE_OF: dict[str, Stage] = {str(x): x for x in Stage}  # faster than calling Stage
_PLAY, _DRAW_KEEP, _OVER = Stage.PLAY, Stage.DRAW_KEEP, Stage.OVER  # ditto for its attributes
_SQ = SQUARE_INDEX
_CARD_SET = frozenset(CARDS)
_ONLY_INT = frozenset((int,))
_ONLY_STR = frozenset((str,))
_new = object.__new__
_NO_CARDS: list[str] = []  # never changed
# Lists of player names found good, as tuples (a game's positions share them).
_NAMES: dict[tuple[str, ...], bool] = {}
_NAMES_MAX = 4096


def _players_of(v: Any, names: tuple[str, ...]) -> Iterable[tuple[int, Any]] | None:
    """``v`` as (seat, value) pairs, if it is None or a dict keyed by player names (else None)."""
    if v is None:
        return ()
    if type(v) is not dict:
        return None
    if tuple(v) == names:  # every player, in the order of the players (as written)
        return enumerate(v.values())
    out = {}
    for name, x in v.items():
        if type(name) is not str or name not in names:
            return None
        out[names.index(name)] = x
    return out.items()


def _card_list(v: Any) -> list[str] | None:
    """A copy of ``v`` if it is a list of card ids (else None)."""
    if type(v) is not list:
        return None
    try:
        if _CARD_SET.issuperset(v):
            return v[:]
    except TypeError:  # an unhashable entry
        pass
    return None


def read_usual(d: Any) -> State | None:
    """``read_position`` of a well-formed position (as ``write_position`` writes them), in
    one pass with no helper per field; None for anything unusual, which the checking
    reader then reads (or refuses with its reason).  Whatever it reads, it reads as
    ``engine.position``'s checking reader does (tests/engine/test_position_reader.py)."""
    if type(d) is not dict or d.get("format") != FORMAT:
        return None
    names_v = d.get("players")
    if names_v.__class__ is not list:
        return None
    names = tuple(names_v)
    try:
        known = names in _NAMES
    except TypeError:  # unhashable entries
        return None
    if not known:
        if not (
            2 <= len(names_v) <= 4
            and _ONLY_STR.issuperset(map(type, names_v))
            and all(map(str.strip, names_v))
            and len(set(names_v)) == len(names_v)
        ):
            return None
        if len(_NAMES) >= _NAMES_MAX:
            _NAMES.clear()
        _NAMES[names] = True
    n = len(names)
    variant = d.get("variant", "common")
    if type(variant) is not str or variant not in VARIANTS:
        return None
    stage_text = d.get("stage", "play")
    stage = _STAGE_OF.get(stage_text) if type(stage_text) is str else None
    if stage is None:
        return None
    seed = d.get("seed")
    if seed is None:
        seed = 0
    elif type(seed) is not int:
        return None
    phase = d.get("phase", 1)
    if type(phase) is not int or not 1 <= phase <= 3 or (phase == 3 and stage is Stage.KING):
        return None
    rnd = d.get("round", 1)
    if type(rnd) is not int or not 1 <= rnd <= ROUNDS[n][phase - 1]:
        return None
    ps = d.get("phase_starter")
    if ps is None:
        phase_starter = 0
    elif type(ps) is str and ps in names:
        phase_starter = names.index(ps)
    else:
        return None
    rs = d.get("round_starter")
    if rs is None:
        round_starter = phase_starter
    elif type(rs) is str and rs in names:
        round_starter = names.index(rs)
    else:
        return None
    tm = d.get("to_move")
    if tm is not None and (type(tm) is not str or tm not in names):
        return None
    to_move = NOBODY if stage is _OVER else phase_starter if tm is None else names.index(tm)

    # State(names, variant, seed) with its fields set at once (every slot of State)
    st = _new(State)
    st.names = names
    st.variant = variant
    st.seed = seed
    st.stage = stage
    st.phase = phase
    st.round = rnd
    st.phase_starter = phase_starter
    st.round_starter = round_starter
    st.to_move = to_move
    st.heights = [0] * 64
    st.occupant = [EMPTY] * 64
    st.king = None
    st.scores = [0] * n
    if n == 4:
        st.knights = [[], [], [], []]
        st.stacks = [[], [], [], []]
        st.hands = [[], [], [], []]
    else:
        st.knights = [[] for _ in names]
        st.stacks = [[] for _ in names]
        st.hands = [[] for _ in names]
    st.castles = None
    st.undo = []

    given_heights = d.get("heights")
    if given_heights is not None:
        if type(given_heights) is not dict:
            return None
        heights = st.heights
        try:  # plain loops: faster than map() and friends over a few dozen squares
            for name, v in given_heights.items():
                if v.__class__ is not int or v < 0:
                    return None
                heights[_SQ[name]] = v
        except KeyError:
            return None

    # Per-player objects: keyed by the players in their order (as written), some of
    # them or all; anything else goes the checking way.
    occ = st.occupant
    pieces = 0
    knights = d.get("knights")
    if knights is not None:
        if knights.__class__ is not dict:
            return None
        p = 0
        try:
            for name, squares in knights.items():
                if name != names[p] or squares.__class__ is not list or len(squares) > MAX_KNIGHTS:
                    return None
                own = st.knights[p]
                for sq in squares:
                    s = _SQ[sq]
                    if occ[s] != EMPTY or sq.__class__ is not str:
                        return None
                    occ[s] = p
                    pieces |= BIT[s]
                    own.append(s)
                p += 1
        except (KeyError, TypeError, IndexError):  # no square, unhashable, too many players
            return None
    k = d.get("king")
    if k is not None:
        ks = _SQ.get(k) if type(k) is str else None
        if ks is None or occ[ks] != EMPTY:
            return None
        if stage is Stage.CASTLES or stage is Stage.PLACE:
            return None
        st.king = ks
        occ[ks] = KING
        pieces |= BIT[ks]
    st.pieces = pieces

    scores = d.get("scores")
    if scores is not None:
        if scores.__class__ is not dict or len(scores) > n:
            return None
        own_scores = st.scores
        for p, (name, v) in enumerate(scores.items()):
            if name != names[p] or v.__class__ is not int or v < 0:
                return None
            own_scores[p] = v

    in_turn = stage is _PLAY or stage is _DRAW_KEEP
    stacks = d.get("stacks")
    p = 0
    if stacks is not None:
        if stacks.__class__ is not dict or len(stacks) > n:
            return None
        own_stacks = st.stacks
        for name, v in stacks.items():
            if name != names[p] or v.__class__ is not list:
                return None
            for x in v:
                if x.__class__ is not int or x < 0:
                    return None
            own_stacks[p] = v[:]
            p += 1
    if in_turn and p < n:  # the stacks of the phase for the players not given
        allotment = ALLOTMENT[n][phase - 1]
        for q in range(p, n):
            st.stacks[q] = list(allotment)

    hands = d.get("hands")
    if hands is not None:
        if hands.__class__ is not dict or len(hands) > n:
            return None
        own_hands = st.hands
        for p, (name, v) in enumerate(hands.items()):
            if name != names[p] or v.__class__ is not list:
                return None
            if v:
                try:
                    if not _CARD_SET.issuperset(v):
                        return None
                except TypeError:  # an unhashable entry
                    return None
                own_hands[p] = v[:]

    mc = d.get("master_card")
    if mc is not None and (type(mc) is not str or mc not in MASTER_CARDS):
        return None
    st.master = mc

    turn = d.get("turn")
    if turn is not None and type(turn) is not dict:
        return None
    if in_turn:
        turn = turn or {}
        ap = turn.get("ap", BASE_AP)
        stack = turn.get("stack")
        played = turn.get("played", False)
        drawn = turn.get("drawn", _NO_CARDS)
        drawn = [] if drawn == _NO_CARDS else _card_list(drawn)
        revealed = turn.get("revealed", _NO_CARDS)
        revealed = [] if revealed == _NO_CARDS else _card_list(revealed)
        if (
            type(ap) is not int
            or ap < 0
            or stack is not None
            and (type(stack) is not int or stack < 0)
            or type(played) is not bool
            or drawn is None
            or revealed is None
            or len(revealed) > 3
            or (revealed if stage is _PLAY else variant == "master" or not revealed)
        ):
            return None
        st.ap = ap
        st.turn_stack = stack
        st.drawn = drawn
        st.played = played
        st.revealed = revealed
    else:
        st.clear_turn()

    decks_raw = d.get("decks")
    if decks_raw is not None and type(decks_raw) is not dict:
        return None
    decks: dict[DeckKey, tuple[str, ...]] = {}
    if variant == "master":
        if decks_raw:
            return None
    elif variant == "common":
        if decks_raw:
            if len(decks_raw) != 1 or "common" not in decks_raw:
                return None
            deck = decks_raw["common"]
            if deck.__class__ is not list:
                return None
            try:
                if not _CARD_SET.issuperset(deck):
                    return None
            except TypeError:  # an unhashable entry
                return None
            decks["common"] = tuple(deck)
        else:
            decks["common"] = default_decks(st, random.Random(seed))["common"]
    else:
        pairs = _players_of(decks_raw, names)
        if pairs is None:
            return None
        given = dict(pairs)
        for p, v in given.items():
            deck = _card_list(v)
            if deck is None:
                return None
            given[p] = tuple(deck)
        defaults = default_decks(st, random.Random(seed)) if len(given) < n else {}
        for p in range(n):
            decks[p] = given[p] if p in given else defaults[p]
    st.decks = decks

    supply = d.get("supply")
    if supply is None:
        in_stacks = sum(map(sum, st.stacks)) + (st.turn_stack or 0)
        supply = max(0, TOTAL_BLOCKS - sum(st.heights) - in_stacks)
    elif type(supply) is not int or supply < 0:
        return None
    st.supply = supply
    return st
