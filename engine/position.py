"""Reading and writing torres-position/1 dicts (docs/notation.md, "Positions") to and from a ``State``."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .board import BIT, SORTED_SQUARES, SQUARE_INDEX, SQUARE_NAMES
from .cards import CARDS, MASTER_CARDS
from .errors import NotationError, notation_error
from .events import Stage
from .position_fast import FORMAT, read_usual
from .rules.setup import check_names, default_decks
from .rules.tables import ALLOTMENT, BASE_AP, MAX_KNIGHTS, ROUNDS, TOTAL_BLOCKS, VARIANTS
from .state import EMPTY, KING, NOBODY, DeckKey, State

_STAGES: tuple[str, ...] = tuple(Stage)
_STAGE_OF: dict[str, Stage] = {str(x): x for x in Stage}  # faster than calling Stage
_PLAY, _DRAW_KEEP, _OVER = Stage.PLAY, Stage.DRAW_KEEP, Stage.OVER  # ditto for its attributes
HIDDEN = "hidden"
_SQ = SQUARE_INDEX
_CARD_SET = frozenset(CARDS)
_ONLY_INT = frozenset((int,))
_FIELDS = (
    "format",
    "variant",
    "players",
    "stage",
    "phase",
    "round",
    "to_move",
    "phase_starter",
    "round_starter",
    "heights",
    "knights",
    "king",
    "scores",
    "stacks",
    "hands",
    "decks",
    "supply",
    "master_card",
    "seed",
    "turn",
)


def write_position(st: State, viewer: str | None) -> dict[str, Any]:
    """Every field of the position; cards ``viewer`` may not see become "hidden"."""
    names = st.names
    seat = None
    if viewer is not None:
        if viewer not in names:
            raise NotationError(f"'{viewer}' is not a player in this game.")
        seat = names.index(viewer)
    hide = viewer is not None

    def cards(owner: int | None, lst: Sequence[str]) -> list[str]:
        if hide and (owner is None or owner != seat):
            return [HIDDEN] * len(lst)
        return list(lst)

    decks: dict[str, list[str]] = {}
    for key, lst in st.decks.items():
        decks[key if isinstance(key, str) else names[key]] = cards(None, lst)
    if st.stage is _PLAY or st.stage is _DRAW_KEEP:
        turn = {
            "ap": st.ap,
            "stack": st.turn_stack,
            "drawn": cards(st.to_move, st.drawn),
            "played": st.played,
            "revealed": cards(st.to_move, st.revealed),
        }
    else:  # no turn in progress: the fresh turn the field defaults to
        turn = {"ap": BASE_AP, "stack": None, "drawn": [], "played": False, "revealed": []}
    return {
        "format": FORMAT,
        "variant": st.variant,
        "players": list(names),
        "stage": str(st.stage),
        "phase": st.phase,
        "round": st.round,
        "to_move": None if st.stage is _OVER else names[st.to_move],
        "phase_starter": names[st.phase_starter],
        "round_starter": names[st.round_starter],
        "heights": {SQUARE_NAMES[s]: st.heights[s] for s in SORTED_SQUARES if st.heights[s] > 0},
        "knights": {
            names[p]: sorted(SQUARE_NAMES[s] for s in st.knights[p]) for p in range(len(names))
        },
        "king": None if st.king is None else SQUARE_NAMES[st.king],
        "scores": {names[p]: st.scores[p] for p in range(len(names))},
        "stacks": {names[p]: list(st.stacks[p]) for p in range(len(names))},
        "hands": {names[p]: cards(p, st.hands[p]) for p in range(len(names))},
        "decks": decks,
        "supply": st.supply,
        "master_card": st.master,
        "seed": None if hide else st.seed,
        "turn": turn,
    }


_bad = notation_error  # every code it is called with starts with "position_"


def _int(d: dict[str, Any], key: str, default: int, lo: int = 0, hi: int | None = None) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise _bad("position_not_whole", key=key, value=repr(v))
    if v < lo or (hi is not None and v > hi):
        if hi is None:
            raise _bad("position_at_least", key=key, value=v, low=lo)
        raise _bad("position_range", key=key, value=v, low=lo, high=hi)
    return v


def _square(v: Any, key: str) -> int:
    if not isinstance(v, str) or v.lower() not in SQUARE_INDEX:
        raise _bad("position_not_square", key=key, value=repr(v))
    return SQUARE_INDEX[v.lower()]


def _player(v: Any, names: tuple[str, ...], key: str) -> int:
    if not isinstance(v, str) or v not in names:
        raise _bad("position_not_player", key=key, value=repr(v), players=", ".join(names))
    return names.index(v)


def _obj(d: dict[str, Any], key: str) -> dict[Any, Any]:
    """``d[key]``, a dict whose keys are yet to be checked (not typed str: the compiled
    core would refuse another key with a TypeError before the reader's own refusal)."""
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise _bad("position_key_not_object", key=key)
    return v


def _per_player(d: dict[str, Any], key: str, names: tuple[str, ...]) -> dict[int, Any]:
    out = {}
    for name, v in _obj(d, key).items():
        if name in names and isinstance(name, str):
            out[names.index(name)] = v
        else:
            out[_player(name, names, key)] = v
    return out


def _cards(v: Any, where: str, player: str | None = None) -> list[str]:
    """A list of card ids; ``where`` says which (hand, drawn, revealed, common_deck, deck)."""
    if type(v) is list:
        try:
            if _CARD_SET.issuperset(v):  # the usual case in one step; else the reason below
                return v[:]
        except TypeError:  # an unhashable entry
            pass
    whose = {} if player is None else {"player": player}
    if not isinstance(v, list):
        raise _bad(f"position_{where}_not_list", **whose)
    for c in v:
        if not isinstance(c, str) or c not in CARDS:
            raise _bad(f"position_{where}_not_card", value=repr(c), cards=", ".join(CARDS), **whose)
    return list(v)


def read_position(d: Any) -> State:
    """Build a game from a position dict, filling defaults; NotationError if it is impossible."""
    st = read_usual(d)
    if st is not None:
        return st
    return _read_checked(d)


def _read_checked(d: Any) -> State:
    """``read_position`` for any input: every field checked, with the reason of a refusal."""
    if not isinstance(d, dict):
        raise _bad("position_not_object")
    if d.get("format") != FORMAT:
        raise _bad("position_format", format=FORMAT)
    if "players" not in d:
        raise _bad("position_no_players")
    try:
        names = check_names(d["players"])
    except NotationError as e:  # e.g. "player_count": "position_player_count"
        raise _bad("position_" + e.code, **e.params) from None
    n = len(names)
    variant = d.get("variant", "common")
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise _bad("position_variant", value=repr(variant))
    stage_text = d.get("stage", "play")
    if not isinstance(stage_text, str) or stage_text not in _STAGES:
        raise _bad("position_stage", value=repr(stage_text), stages=", ".join(_STAGES))
    stage = _STAGE_OF[stage_text]
    seed = d.get("seed")  # any whole number, however long (new games: 128 bits)
    if seed is None:
        seed = 0
    elif isinstance(seed, bool) or not isinstance(seed, int):
        raise _bad("position_not_whole", key="seed", value=repr(seed))
    st = State(names, variant, seed)
    st.stage = stage
    st.phase = _int(d, "phase", 1, 1, 3)
    st.round = _int(d, "round", 1, 1, ROUNDS[n][st.phase - 1])
    ps = d.get("phase_starter")
    st.phase_starter = 0 if ps is None else _player(ps, names, "phase_starter")
    rs = d.get("round_starter")
    st.round_starter = st.phase_starter if rs is None else _player(rs, names, "round_starter")
    tm = d.get("to_move")
    if stage is _OVER:
        st.to_move = NOBODY
        if tm is not None:
            _player(tm, names, "to_move")
    else:
        st.to_move = st.phase_starter if tm is None else _player(tm, names, "to_move")

    total_on_board = 0
    heights = st.heights
    given_heights = _obj(d, "heights")
    values = given_heights.values()
    fast = _ONLY_INT.issuperset(map(type, values)) and (not given_heights or min(values) >= 0)
    if fast:  # the usual case: square names as written, whole heights
        try:
            for i, v in zip(map(_SQ.__getitem__, given_heights), values, strict=True):
                heights[i] = v
            total_on_board = sum(values)
        except KeyError:
            fast = False
    if not fast:
        for sq, v in given_heights.items():
            s = _SQ.get(sq)  # the usual spelling first; _square() has the rest and the errors
            if s is None:
                s = _square(sq, "heights")
            if type(v) is not int and (isinstance(v, bool) or not isinstance(v, int)) or v < 0:
                raise _bad("position_height", square=str(sq), value=repr(v))
            heights[s] = v
            total_on_board += v

    for p, squares in _per_player(d, "knights", names).items():
        if not isinstance(squares, list):
            raise _bad("position_knights_not_list", player=names[p])
        if len(squares) > MAX_KNIGHTS:
            raise _bad("position_too_many_knights", player=names[p], count=len(squares))
        for given in squares:  # any JSON value (``sq`` above is a str: the compiled core)
            s = _SQ.get(given) if type(given) is str else None
            if s is None and not (isinstance(given, str) and given.lower() in SQUARE_INDEX):
                raise _bad("position_knight_not_square", player=names[p], value=repr(given))
            if s is None:
                s = SQUARE_INDEX[given.lower()]
            if st.occupant[s] != EMPTY:
                other = names[st.occupant[s]]
                raise _bad(
                    "position_two_knights", square=SQUARE_NAMES[s], player=other, other=names[p]
                )
            st.occupant[s] = p
            st.pieces |= BIT[s]
            st.knights[p].append(s)
    k = d.get("king")
    if k is not None:
        s = _square(k, "king")
        if st.occupant[s] != EMPTY:
            other = names[st.occupant[s]]
            raise _bad("position_king_and_knight", player=other, square=SQUARE_NAMES[s])
        st.king = s
        st.occupant[s] = KING
        st.pieces |= BIT[s]
    if stage in (Stage.CASTLES, Stage.PLACE) and st.king is not None:
        raise _bad("position_king_too_early", stage=f"{stage}")
    if stage == Stage.KING and st.phase == 3:  # with or without a king on the board
        raise _bad("position_king_phase_3")

    for p, v in _per_player(d, "scores", names).items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise _bad("position_score", player=names[p], value=repr(v))
        st.scores[p] = v

    in_turn = stage is _PLAY or stage is _DRAW_KEEP
    given_stacks = _per_player(d, "stacks", names)
    for p in range(n):
        if p in given_stacks:
            v = given_stacks[p]
            usual = type(v) is list and _ONLY_INT.issuperset(map(type, v))
            if not (usual and (not v or min(v) >= 0)) and (
                not isinstance(v, list)
                or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in v)
            ):
                raise _bad("position_stacks", player=names[p])
            st.stacks[p] = list(v)
        elif in_turn:
            st.stacks[p] = list(ALLOTMENT[n][st.phase - 1])

    for p, v in _per_player(d, "hands", names).items():
        st.hands[p] = _cards(v, "hand", names[p])

    st.master = None
    mc = d.get("master_card")
    if mc is not None:
        if not isinstance(mc, str) or mc not in MASTER_CARDS:
            raise _bad("position_master_card", value=repr(mc), cards=", ".join(MASTER_CARDS))
        st.master = mc

    turn = d.get("turn")
    if turn is not None and not isinstance(turn, dict):
        raise _bad("position_turn")
    if in_turn:
        turn = turn or {}
        st.ap = _int(turn, "ap", BASE_AP)
        stack = turn.get("stack")
        if stack is not None and (
            isinstance(stack, bool) or not isinstance(stack, int) or stack < 0
        ):
            raise _bad("position_turn_stack", value=repr(stack))
        st.turn_stack = stack
        st.drawn = _cards(turn.get("drawn", []), "drawn")
        played = turn.get("played", False)
        if not isinstance(played, bool):
            raise _bad("position_played")
        st.played = played
        st.revealed = _cards(turn.get("revealed", []), "revealed")
        if len(st.revealed) > 3:
            raise _bad("position_revealed_count")
        if stage == Stage.DRAW_KEEP and variant == "master":
            raise _bad("position_keep_master")
        if stage == Stage.DRAW_KEEP and not st.revealed:
            raise _bad("position_keep_nothing")
        if stage == Stage.PLAY and st.revealed:
            raise _bad("position_keep_stage")
    else:
        st.clear_turn()

    decks_raw = d.get("decks")
    if decks_raw is not None and not isinstance(decks_raw, dict):
        raise _bad("position_key_not_object", key="decks")
    decks: dict[DeckKey, tuple[str, ...]] = {}
    if variant == "master":
        if decks_raw:
            raise _bad("position_master_decks")
    elif variant == "common":
        for key in decks_raw or {}:
            if key != "common":
                raise _bad("position_common_decks", value=repr(key))
        if decks_raw and "common" in decks_raw:
            decks["common"] = tuple(_cards(decks_raw["common"], "common_deck"))
        else:
            decks["common"] = default_decks(st, random.Random(seed))["common"]
    else:
        given = {}
        for key, v in (decks_raw or {}).items():
            given[_player(key, names, "decks")] = tuple(_cards(v, "deck", key))
        # The shuffled defaults only when a deck is missing (shuffling is most of a load).
        defaults = default_decks(st, random.Random(seed)) if len(given) < n else {}
        for p in range(n):
            decks[p] = given[p] if p in given else defaults[p]
    st.decks = decks

    in_stacks = sum(sum(s) for s in st.stacks) + (st.turn_stack or 0)
    default_supply = max(0, TOTAL_BLOCKS - total_on_board - in_stacks)
    st.supply = _int(d, "supply", default_supply) if d.get("supply") is not None else default_supply
    st.castles = None
    return st


def changed_squares(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Squares whose height, knight or king differ between two positions, sorted.

    What a turn changed, so that pictures can highlight it (the bot after every
    turn, the animated replay for every frame).
    """

    def occupants(pos: dict[str, Any]) -> dict[str, str]:
        occ = {
            sq: player for player, squares in (pos.get("knights") or {}).items() for sq in squares
        }
        if pos.get("king"):
            occ[pos["king"]] = "\x00king"
        return occ

    h0, h1 = before.get("heights") or {}, after.get("heights") or {}
    o0, o1 = occupants(before), occupants(after)
    squares = {sq for sq in set(h0) | set(h1) if h0.get(sq, 0) != h1.get(sq, 0)}
    squares |= {sq for sq in set(o0) | set(o1) if o0.get(sq) != o1.get(sq)}
    return sorted(squares)
