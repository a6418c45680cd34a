"""Builds the engine's compiled core, ``engine._core`` (docs/engine-speed.md).

The core is the rule modules of ``engine/`` compiled by mypyc from a copy of the very
same source, made at build time under ``build/torres-core/``; the pure-Python modules
stay the reference (``TORRES_ENGINE=reference``), and ``engine/_select.py`` puts the
core in their place at import when it is built.  If the core cannot be built (no C
compiler, mypyc missing, a build error) the install still succeeds, with the
reference only; ``TORRES_BUILD_CORE=0`` skips the build on purpose.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
SRC = ROOT / "build" / "torres-core"  # a copy of engine/, with engine/_core/ inside
# engine/_select.py alone (not the engine package, which would import the engine)
_spec = importlib.util.spec_from_file_location("_torres_select", ROOT / "engine" / "_select.py")
assert _spec is not None and _spec.loader is not None
_select = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_select)
COMPILED, SHARED, source_hash = _select.COMPILED, _select.SHARED, _select.source_hash

# board.Castles's tables as the C fill returns them (engine/_native.c, castle_fill)
_FILLED_TYPE = (
    "tuple[list[int], list[int], list[int], list[list[int]], list[int], list[int], int, "
    "list[int], int]"
)
_FILLED = f"""    def _filled(self, filled: {_FILLED_TYPE}) -> None:
        comp, area, height, members, masks, le, top, front, build = filled
        self.comp = comp
        self.area = area
        self.height = height
        self.members = members
        self.member_mask = masks
        self.le = le
        self.top = top
        self.front = front
        self.build = build
        self._adj = None
        self._low = [None] * len(area)
        self.reach = {{}}
        self.reach_keys = 0
        self.moveblock = None

"""
# The fields of a State read by the C reader of positions (engine/_native_position.c,
# read_fields), in its order; position_fast.read_usual's copy assigns them to a State.
_FIELDS = [
    "names",
    "variant",
    "seed",
    "stage",
    "phase",
    "round",
    "phase_starter",
    "round_starter",
    "to_move",
    "heights",
    "occupant",
    "pieces",
    "knights",
    "king",
    "scores",
    "stacks",
    "hands",
    "master",
    "ap",
    "turn_stack",
    "drawn",
    "played",
    "revealed",
    "decks",
    "deal",
    "supply",
]
_FIELDS_TYPE = (
    "tuple[tuple[str, ...], str, int, Stage, int, int, int, int, int, list[int], list[int], "
    "int, list[list[int]], int | None, list[int], list[list[int]], list[list[str]], "
    "str | None, int, int | None, list[str], bool, list[str], dict[str | int, tuple[str, ...]], "
    "bool, int]"
)
_FROM_FIELDS = (
    f"def _from_fields(f: {_FIELDS_TYPE}) -> State:\n"
    '    """The State of the fields the C reader read (read_usual on C locals)."""\n'
    f"    ({', '.join(x if x != 'round' else 'rnd' for x in _FIELDS)}) = f\n"
    "    st = State()\n"
    + "".join(
        f"    st.{x} = {x if x != 'round' else 'rnd'}\n"
        for x in _FIELDS
        if x not in ("deal", "decks")
    )
    + "    st.castles = None\n"
    "    st.undo = []\n"
    "    if deal:  # the decks not given, dealt from the seed as below\n"
    "        dealt = default_decks(st, random.Random(seed))\n"
    "        if variant == 'common':\n"
    "            decks['common'] = dealt['common']\n"
    "        else:\n"
    "            decks = {p: decks[p] if p in decks else dealt[p] for p in range(len(names))}\n"
    "    st.decks = decks\n"
    "    return st\n\n\n"
)
# mypyc-only adjustments to the copy, each (file, old, new), each required to match:
# mypyc's classes have no bare ``Cls.__new__(Cls)`` (a compiled class's __new__ runs
# its __init__), so the copies that fill in every field themselves, pickle and
# copy.copy start from an empty instance made by a constructor that returns at once.
_BLANK = "\n        if {arg} is None:  # a blank one, filled in by the caller (the core's copies)\n            return\n"
REWRITES = [
    (
        "board.py",
        "    def __init__(self, h: Sequence[int]) -> None:\n",
        "    def __init__(self, h: Sequence[int] | None = None) -> None:" + _BLANK.format(arg="h"),
    ),
    ("castle_steps.py", "Castles.__new__(Castles)", "Castles()"),
    (
        "state.py",
        "    def __init__(self, names: tuple[str, ...], variant: str, seed: int) -> None:\n",
        "    def __init__(\n        self, names: tuple[str, ...] | None = None, variant: str = '', seed: int = 0\n"
        "    ) -> None:" + _BLANK.format(arg="names"),
    ),
    ("state.py", "State.__new__(State)", "State()"),
    ("position_fast.py", "_new(State)", "State()"),
    # The C kernels (engine/_native.c) in the hot paths: the castle flood fill of a
    # board not seen before, and the action texts of a mask not seen before.
    (
        "board.py",
        "from .squares import (\n",
        "from engine._native import castle_fill\nfrom .squares import (\n",
    ),
    (
        "board.py",
        "        size = 66\n        while True:\n",
        "        filled = castle_fill(h)\n        if filled is not None:  # None: left to Python\n"
        "            self._filled(filled)\n            return\n"
        "        size = 66\n        while True:\n",
    ),
    ("board.py", "    @property\n    def adj(self)", _FILLED + "    @property\n    def adj(self)"),
    (
        "rules/actions.py",
        "from .tables import MAX_DRAWS, MAX_KNIGHTS\n",
        "from .tables import MAX_DRAWS, MAX_KNIGHTS\nfrom engine._native import set_texts as _native_set_texts\n"
        "from engine._native import texts as _native_texts\n"
        "from engine._native import turn_actions as _native_turn\n",
    ),
    (  # a position's heights read in C (None: the loop that follows reads them)
        "position_fast.py",
        "        heights = st.heights\n        try:  # plain loops",
        "        native_heights = _native_heights(given_heights)\n"
        "        if native_heights is not None:\n"
        "            st.heights = native_heights\n"
        "            given_heights = {}  # nothing left for the loop\n"
        "        heights = st.heights\n        try:  # plain loops",
    ),
    (
        "position_fast.py",
        "from .board import BIT, SQUARE_INDEX\n",
        "from .board import BIT, SQUARE_INDEX\nfrom engine._native import heights_of as _native_heights\n",
    ),
    # rules.turn checks a block, a move and a new knight against the kept board of the
    # C kernels (the one turn_actions listed the actions from), and leaves the castle
    # tables after a block to be worked out when next needed (castles(st)): the legal
    # list and these checks read the kernel's board, so most turns never need them.
    (
        "rules/turn.py",
        "from .tables import BASE_AP, MAX_DRAWS, MAX_KNIGHTS, MAX_STACK, ROUNDS\n",
        "from .tables import BASE_AP, MAX_DRAWS, MAX_KNIGHTS, MAX_STACK, ROUNDS\n"
        "from engine._native import add_squares as _native_add_squares\n"
        "from engine._native import block_squares as _native_block_squares\n"
        "from engine._native import move_reach as _native_move_reach\n",
    ),
    (
        "rules/turn.py",
        "    cc = st.castles\n    reach = cc.reach.get(src) if cc is not None else None\n",
        "    reach = _native_move_reach(st.heights, src)\n"
        "    if reach is None:  # a board left to Python\n"
        "        cc = st.castles\n"
        "        reach = cc.reach.get(src) if cc is not None else None\n",
    ),
    (
        "rules/turn.py",
        "    cc = st.castles\n    m = cc.build if cc is not None else None\n    if m is None:\n",
        "    cc = st.castles\n"
        "    m = _native_block_squares(st.heights)\n"
        "    if m is not None:\n"
        "        cc = None  # the tables follow when next needed\n"
        "    else:  # a board left to Python\n"
        "        m = cc.build if cc is not None else None\n"
        "    if m is None:\n",
    ),
    (
        "rules/turn.py",
        "    if cc is not None:\n        st.castles = with_block(cc, h, s)\n",
        "    st.castles = with_block(cc, h, s) if cc is not None else None\n",
    ),
    (
        "rules/turn.py",
        "    cc = st.castles if st.castles is not None else castles(st)\n"
        "    h, le = st.heights, cc.le\n"
        "    m = 0  # add_targets(st, p) as a mask\n"
        "    for k in st.knights[p]:\n"
        "        m |= ORTH_MASK[k] & le[h[k]]\n",
        "    native_add = _native_add_squares(st.heights, st.knights[p])\n"
        "    if native_add is not None:\n"
        "        m = native_add\n"
        "    else:  # a board left to Python\n"
        "        cc = st.castles if st.castles is not None else castles(st)\n"
        "        h, le = st.heights, cc.le\n"
        "        m = 0  # add_targets(st, p) as a mask\n"
        "        for k in st.knights[p]:\n"
        "            m |= ORTH_MASK[k] & le[h[k]]\n",
    ),
    (  # any() of a list is a call of the builtin; of a generator, a loop in C
        "rules/actions.py",
        "any(st.stacks[p])):  # turn.can_build",
        "any(k != 0 for k in st.stacks[p])):  # turn.can_build",
    ),
    (  # a turn's end event made without the frozen dataclass's __init__, which sets
        # its field by object.__setattr__ in interpreted Python (a tenth of an end)
        "rules/turn.py",
        "events.append(TurnEnd(st.names[p]))",
        "events.append(_turn_end(st.names[p]))",
    ),
    (
        "rules/turn.py",
        "# ---------------------------------------------------------------------- score, end\n",
        "# ---------------------------------------------------------------------- score, end\n\n"
        "def _turn_end(player: str) -> TurnEnd:\n"
        "    event: TurnEnd = object.__new__(TurnEnd)\n"
        '    event.__dict__["player"] = player  # what its __init__ sets, and all\n'
        "    return event\n\n",
    ),
    # max() and sorted(set()) of a player's few stacks are calls of builtins; in the
    # core, loops compiled to C (the same results: every stack list here is non-empty
    # where max() is taken)
    ("rules/turn.py", "max(stacks)", "_largest(stacks)"),
    (
        "rules/turn.py",
        "# ---------------------------------------------------------------------- blocks and stacks\n",
        "# ---------------------------------------------------------------------- blocks and stacks\n\n"
        "def _largest(stacks: list[int]) -> int:\n"
        "    if not stacks:\n"
        '        raise ValueError("max() arg is an empty sequence")\n'
        "    best = stacks[0]\n"
        "    for k in stacks:\n"
        "        if k > best:\n"
        "            best = k\n"
        "    return best\n\n",
    ),
    ("rules/actions.py", "sizes = sorted(set(st.stacks[p]))", "sizes = _sizes(st.stacks[p])"),
    (
        "rules/actions.py",
        "def _legal_play(st: State) -> list[str]:\n",
        "def _sizes(stacks: list[int]) -> list[int]:\n"
        "    out: list[int] = []\n"
        "    for k in stacks:\n"
        "        i = len(out)\n"
        "        while i > 0 and out[i - 1] > k:\n"
        "            i -= 1\n"
        "        if i == 0 or out[i - 1] != k:\n"
        "            out.insert(i, k)\n"
        "    return out\n\n\n"
        "def _legal_play(st: State) -> list[str]:\n",
    ),
    # ``play moveblock A B`` checked against the C kernels' kept board: the Python
    # check works out every block's targets (and their texts) for this one
    (
        "rules/moveblock.py",
        "from .common import BYTE_BITS, N, add_block, castles, illegal, need_empty\n",
        "from .common import BYTE_BITS, N, add_block, castles, illegal, need_empty\n"
        "from engine._native import moveblock_targets as _native_moveblock\n",
    ),
    (
        "rules/moveblock.py",
        "    if not targets(st).get(src, 0) & BIT[dst]:\n",
        "    allowed = _native_moveblock(st.heights, st.pieces, src)\n"
        "    if allowed is None:  # a board left to Python\n"
        "        allowed = targets(st).get(src, 0)\n"
        "    if not allowed & BIT[dst]:\n",
    ),
    # a phase's castle points and king bonuses from the C kernels' kept board: the
    # castle tables are not worked out for them (the master cards' points still are)
    (
        "rules/scoring.py",
        "from .tables import KING_BONUS\n",
        "from .tables import KING_BONUS\nfrom engine._native import phase_points as _native_points\n",
    ),
    (
        "rules/scoring.py",
        "    cc = castles(st)\n    h = st.heights\n",
        "    native = _native_points(st.heights, st.knights, st.king, st.phase)\n    h = st.heights\n",
    ),
    (
        "rules/scoring.py",
        "        pts = castle_points(st.knights[p], h, cc.comp, cc.area)\n",
        "        if native is not None:\n"
        "            pts = native[0][p]\n"
        "        else:  # a board left to Python\n"
        "            cc = castles(st)\n"
        "            pts = castle_points(st.knights[p], h, cc.comp, cc.area)\n",
    ),
    (
        "rules/scoring.py",
        "        bonus = king_bonus(st.knights[p], h, cc.comp, st.king, st.phase)\n",
        "        if native is not None:\n"
        "            bonus = native[1][p]\n"
        "        else:\n"
        "            bonus = king_bonus(st.knights[p], h, castles(st).comp, st.king, st.phase)\n",
    ),
    (
        "rules/scoring.py",
        "        earned = master_points(st.master, st.phase, st.knights, h, cc.comp)\n",
        "        earned = master_points(st.master, st.phase, st.knights, h, castles(st).comp)\n",
    ),
    # the setup's and the king's squares from the kept board, and their texts by mask
    # (engine._native's texts) instead of a string made and sorted per square
    (
        "rules/setup.py",
        "from .common import N, add_block, castles, illegal, need_empty, put_piece\n",
        "from .common import N, add_block, castles, illegal, need_empty, put_piece\n"
        "from engine._native import castle_squares as _native_castle_squares\n",
    ),
    (
        "rules/setup.py",
        "    cc = castles(st)\n    comp, masks = cc.comp, cc.member_mask\n",
        "    native = _native_castle_squares(st.heights, st.knights)\n"
        "    if native is not None:\n"
        "        return ALL & ~st.pieces & native\n"
        "    cc = castles(st)\n    comp, masks = cc.comp, cc.member_mask\n",
    ),
    (
        "rules/setup.py",
        "    return ALL & ~st.pieces & ~castles(st).le[0]\n",
        "    native = _native_castle_squares(st.heights, None)\n"
        "    if native is not None:\n"
        "        return ALL & ~st.pieces & native\n"
        "    return ALL & ~st.pieces & ~castles(st).le[0]\n",
    ),
    (
        "rules/actions.py",
        '        return sorted(f"place {_N[s]}" for s in setup.place_targets(st))\n',
        "        placing = len(st.knights[st.to_move]) < MAX_KNIGHTS  # setup.place_targets\n"
        "        return list(_native_texts(setup._empty_castles(st) if placing else 0, _PLACE_ROW))\n",
    ),
    (
        "rules/actions.py",
        '        out = [f"king {_N[s]}" for s in setup.king_targets(st)]\n',
        "        out = list(_native_texts(setup._king_squares(st), _KING_ROW))\n",
    ),
    (
        "rules/actions.py",
        '_KNIGHT_BY_LENGTH = ["", *(_KNIGHT[b] for b in SORTED_SQUARES)]\n',
        '_KNIGHT_BY_LENGTH = ["", *(_KNIGHT[b] for b in SORTED_SQUARES)]\n'
        '_PLACE_ROW = ["", *(f"place {_N[b]}" for b in SORTED_SQUARES)]\n'
        '_KING_ROW = ["", *(f"king {_N[b]}" for b in SORTED_SQUARES)]\n',
    ),
    (  # a well-formed position read in C (None: read_usual's Python reads it, or not)
        "position_fast.py",
        "def read_usual(d: Any) -> State | None:\n",
        _FROM_FIELDS + "def read_usual(d: Any) -> State | None:\n",
    ),
    (
        "position_fast.py",
        '    if type(d) is not dict or d.get("format") != FORMAT:\n        return None\n',
        "    fields = _native_read(d)\n"
        "    if fields is not None:\n"
        "        return _from_fields(fields)\n"
        '    if type(d) is not dict or d.get("format") != FORMAT:\n        return None\n',
    ),
    (
        "position_fast.py",
        "_NAMES_MAX = 4096\n",
        "_NAMES_MAX = 4096\n"
        "_native_tables(\n"
        "    FORMAT,\n"
        "    _STAGE_OF,\n"
        "    (Stage.CASTLES, Stage.PLACE, Stage.KING, Stage.PLAY, Stage.DRAW_KEEP, Stage.OVER),\n"
        "    VARIANTS,\n"
        "    ROUNDS,\n"
        "    ALLOTMENT,\n"
        "    _CARD_SET,\n"
        "    MASTER_CARDS,\n"
        "    BASE_AP,\n"
        "    MAX_KNIGHTS,\n"
        "    TOTAL_BLOCKS,\n"
        "    SQUARE_INDEX,\n"
        ")\n",
    ),
    (
        "position_fast.py",
        "from engine._native import heights_of as _native_heights\n",
        "from engine._native import heights_of as _native_heights\n"
        "from engine._native import read_fields as _native_read\n"
        "from engine._native import set_position_tables as _native_tables\n",
    ),
    (  # Game itself called directly (not through the class object): a native call
        "game.py",
        "        return cls(read_position(d))\n",
        "        st = read_position(d)\n        return Game(st) if cls is Game else cls(st)\n",
    ),
    (  # pickle and copy.copy make a Game blank too (the computer players' worker processes)
        "game.py",
        '    def __init__(self, state: State) -> None:\n        """Use :meth:`new` or :meth:`from_position`."""\n',
        "    def __init__(self, state: State | None = None) -> None:\n"
        '        """Use :meth:`new` or :meth:`from_position`."""' + _BLANK.format(arg="state"),
    ),
]
# Rewrites of a whole passage, (file, pattern, new), each required to match once:
# rules.actions._texts_of makes the texts of a new mask with the C kernel instead of
# eight look-ups by byte.
PATTERN_REWRITES = [
    (
        "rules/actions.py",
        r"(?<=_KEPT\[0\] \+= 1\n)    b0, b1, .*?(?=^    return found\n)",
        "    row = _ROWS[r] if r < 64 else _BUILD_BY_LENGTH if r == 64 else _KNIGHT_BY_LENGTH\n"
        "    found = _TEXTS[r][m] = _native_texts(m, row)\n",
    ),
]


def _native_turn(text: str) -> str:
    """rules/actions.py with ``_legal_play`` asking the C kernel for the turn's actions
    before the cards (engine/_native.c, turn_actions), on the conditions of the Python
    code it stands for, which stays for the boards the kernel leaves (None)."""
    build = re.search(r"\n        if (.+):  # turn.can_build\n", text)
    draw = re.search(r"\n        if \(  # turn.can_draw\n(.*?)\n        \):\n", text, re.S)
    add = re.search(r"\n        if (.+):  # turn.add_targets, as a mask\n", text)
    head = "    out: list[str] = []\n    if ap >= 1:\n"
    if not (build and draw and add) or text.count(head) != 1:
        raise RuntimeError(
            "engine/rules/actions.py changed: the core's turn_actions needs updating"
        )
    return text.replace(
        head,
        "    out: list[str] = []\n"
        "    native = None\n"
        "    if ap >= 1:\n"
        "        ts = st.turn_stack\n"
        "        native = _native_turn(\n"
        "            st.heights,\n"
        "            st.pieces,\n"
        "            mine,\n"
        f"            bool({build.group(1)}),\n"
        f"            bool(\n{draw.group(1)}\n            ),\n"
        f"            {add.group(1)},\n"
        "        )\n"
        "    if native is not None:\n"
        "        out = native\n"
        "    elif ap >= 1:\n",
    ).replace(
        "\n_steps()\n",
        "\n_steps()\n_native_set_texts(_ROWS, _BUILD_BY_LENGTH, _KNIGHT_BY_LENGTH)\n",
    )


_TURN_IMPORT = "from engine._native import turn_actions as _native_turn\n"  # as REWRITES put it
_CARDS_CALL = "    if not st.played and st.hands[p]:\n        out += sorted(card_plays(st))\n"


def _native_cards(text: str) -> str:
    """rules/actions.py with ``_legal_play`` asking the C kernel for the card plays
    (engine/_native_cards.c, card_plays), already sorted; ``sorted(card_plays(st))``
    stays for what the kernel leaves to Python (None)."""
    if text.count(_CARDS_CALL) != 1 or text.count(_TURN_IMPORT) != 1:
        raise RuntimeError("engine/rules/actions.py changed: the core's card_plays needs updating")
    return text.replace(
        _CARDS_CALL,
        "    if not st.played and st.hands[p]:\n"
        "        native_cards = _native_cards(\n"
        "            st.heights,\n"
        "            st.occupant,\n"
        "            st.pieces,\n"
        "            mine,\n"
        "            st.hands[p],\n"
        "            st.drawn,\n"
        "            st.turn_stack,\n"
        "            st.stacks[p],\n"
        "            st.supply,\n"
        "        )\n"
        "        out += sorted(card_plays(st)) if native_cards is None else native_cards\n",
    ).replace(
        _TURN_IMPORT, _TURN_IMPORT + "from engine._native import card_plays as _native_cards\n"
    )


# The functions that take what a caller of the public interface passes (engine.Game's
# methods, split_actions, castles, changed_squares) check its type themselves and
# refuse with a NotationError; compiled, an annotated parameter is checked on entry
# and a TypeError would come first. In the copy their parameters are Any (self, cls
# and st aside): the same refusals as the reference.
LOOSE = {
    "game.py": ("new", "position", "hand", "height", "play"),
    "notation.py": ("_short", "parse_square", "parse_actions", "split_actions"),
    "rules/setup.py": ("new_state",),
    "position.py": ("write_position", "changed_squares"),
    "board.py": ("castles",),
}


def _params(chunk: str) -> list[str]:
    """The parameters of a signature, split at its top-level commas."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(chunk):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(chunk[start:i])
            start = i + 1
    return [*out, chunk[start:]]


def _loosen(text: str, name: str) -> str:
    """Every annotated parameter of ``def name`` (self, cls and st aside) made Any, and
    for ``_short``, which echoes what it is given, the result too."""
    head = re.search(rf"\n(\s*)def {name}\(", text)
    if head is None:
        raise RuntimeError(f"no def {name}: the core's list LOOSE needs updating")
    start = head.end()
    depth, end = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    params = []
    for param in _params(text[start : end - 1]):
        m = re.fullmatch(r"(\s*)(\w+): ([^=]+?)(\s*=.*)?(\s*)", param, re.S)
        if m and m.group(2) not in ("self", "cls", "st"):
            param = f"{m.group(1)}{m.group(2)}: Any{m.group(4) or ''}{m.group(5)}"
        params.append(param)
    rest = text[end - 1 :]
    if name == "_short":
        rest = re.sub(r"^\) -> \w+:", ") -> Any:", rest, count=1)
    return text[:start] + ",".join(params) + rest


# Module constants (NAMES in capitals, bound once) become Final in the copy: mypyc then
# keeps them in C statics instead of looking each use up in the module's dict.
_CONSTANT = re.compile(r"^(_?[A-Z][A-Z0-9_]*)(?:: ([^=\n]+))? = ", re.M)


def _final_names(text: str) -> set[str]:
    """The module constants of ``text`` that ``_finals`` declares Final."""
    names = [m.group(1) for m in _CONSTANT.finditer(text)]
    aliases = {n for n in names if re.search(rf"(:|->)[^=\n]*\b{n}\b", text)}  # types
    return {n for n in names if names.count(n) == 1} - aliases


# ``_PLAY, _OVER = Stage.PLAY, Stage.OVER``: one constant a line, so that each is Final
_UNPACK = re.compile(
    r"^((?:_?[A-Z][A-Z0-9_]*, )+_?[A-Z][A-Z0-9_]*) = ([^\n#]+?)(  #[^\n]*)?$", re.M
)


def _split_unpacking(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        names, values = m.group(1).split(", "), _params(m.group(2))
        if len(values) != len(names):
            return m.group(0)
        lines = [f"{n} = {v.strip()}" for n, v in zip(names, values, strict=True)]
        return "\n".join(lines) + (m.group(3) or "")

    return _UNPACK.sub(one, text)


def _finals(text: str) -> str:
    once = _final_names(text)

    def final(m: re.Match[str]) -> str:
        name, annotation = m.group(1), m.group(2)
        if name not in once:
            return m.group(0)
        return f"{name}: Final[{annotation}] = " if annotation else f"{name}: Final = "

    text = _CONSTANT.sub(final, text)
    future = "from __future__ import annotations\n"
    return text.replace(future, future + "\nfrom typing import Final\n", 1)


# A constant imported from another compiled module (``from ..board import BIT``) is,
# to mypyc, a global of the importing module: a dict look-up at every use.  In the
# copy it is imported under another name and bound to a Final of the importing module
# (a C static), as are the C kernels' functions (engine._native).
_IMPORT = re.compile(
    r"^from (\.+[\w.]*|engine\._native|engine\._core\.[\w.]+) import (\([^)]*\)|[^\n(]+)\n", re.M
)


def _module_of(rel: str, source: str) -> str:
    """The file (as in COMPILED's paths) of the module ``source`` imported by ``rel``."""
    if source.startswith("engine._core."):
        name = source.removeprefix("engine._core.")
        return name.replace(".", "/") + ("/__init__.py" if name == "rules" else ".py")
    if not source.startswith("."):
        return source
    dots = len(source) - len(source.lstrip("."))
    parts = rel.split("/")[:-1]
    parts = parts[: len(parts) - (dots - 1)] if dots > 1 else parts
    name = source[dots:]
    return "/".join([*parts, *name.split(".")]) + ".py" if name else ""


def _names(m: re.Match[str]) -> list[tuple[str, str]]:
    """The (name, local name) pairs an import statement matched by ``_IMPORT`` binds."""
    out = []
    for item in m.group(2).strip("()").replace("\n", " ").split(","):
        name, _, alias = item.strip().partition(" as ")
        if name.strip():
            out.append((name.strip(), alias.strip() or name.strip()))
    return out


def _imported_finals(rel: str, text: str, finals: dict[str, set[str]]) -> str:
    def local(m: re.Match[str]) -> str:
        source = m.group(1)
        home = finals.get(_module_of(rel, source), set())
        kept, bound = [], []
        for name, alias in _names(m):
            if source == "engine._native" or name in home:
                kept.append(f"{name} as _imported_{alias}")
                bound.append(f"{alias}: Final = _imported_{alias}\n")
            else:
                kept.append(name if alias == name else f"{name} as {alias}")
        if not bound:
            return m.group(0)
        return f"from {source} import ({', '.join(kept)})\n" + "".join(bound)

    return _IMPORT.sub(local, text)


# the modules both engines share (errors, events, ...) are imported from the reference
_SHARED_IMPORT = re.compile(r"^(\s*)from \.+(" + "|".join(SHARED) + r") import", re.M)


def _core_sources() -> list[str]:
    """Write the core's copy of the source; return the files mypyc compiles."""
    shutil.rmtree(SRC, ignore_errors=True)
    shutil.copytree(
        ROOT / "engine", SRC / "engine", ignore=shutil.ignore_patterns("__pycache__", "_core*")
    )
    core = SRC / "engine" / "_core"
    core.mkdir()
    (core / "__init__.py").write_text(
        '"""The compiled core, generated by setup.py: do not edit."""\n\n'
        f'SOURCE_HASH = "{source_hash(ROOT / "engine")}"\n'
    )
    texts = {}
    for name in COMPILED:
        rel = name.replace(".", "/") + ("/__init__.py" if name == "rules" else ".py")
        texts[rel] = (ROOT / "engine" / rel).read_text()
    for rel, old, new in REWRITES:
        if texts[rel].count(old) < 1:
            raise RuntimeError(
                f"engine/{rel} changed: the core's rewrite of {old!r} needs updating"
            )
        texts[rel] = texts[rel].replace(old, new)
    for rel, pattern, new in PATTERN_REWRITES:
        texts[rel], found = re.subn(pattern, new, texts[rel], flags=re.S | re.M)
        if found != 1:
            raise RuntimeError(
                f"engine/{rel} changed: the core's rewrite of {pattern!r} needs updating"
            )
    texts["rules/actions.py"] = _native_cards(_native_turn(texts["rules/actions.py"]))
    for rel, names in LOOSE.items():
        for name in names:
            texts[rel] = _loosen(texts[rel], name)
        if "from typing import Any" not in texts[rel]:
            future = "from __future__ import annotations\n"
            texts[rel] = texts[rel].replace(future, future + "\nfrom typing import Any\n", 1)
    compiled = "|".join(re.escape(name) for name in COMPILED)
    for rel, text in texts.items():  # the computer players import the engine absolutely
        texts[rel] = re.sub(
            rf"^(\s*)from engine\.({compiled}) import",
            r"\1from engine._core.\2 import",
            text,
            flags=re.M,
        )
    (core / "ai").mkdir()
    (core / "ai" / "__init__.py").write_text('"""The computer players\' compiled modules."""\n')
    finals = {rel: _final_names(text) for rel, text in texts.items()}
    for name in SHARED:  # imported from the reference, constants all the same
        finals[f"{name}.py"] = _final_names((ROOT / "engine" / f"{name}.py").read_text())
    grown = True
    while grown:  # and what a module imports of them, for its own importers (re-exports)
        grown = False
        for rel, text in texts.items():
            for m in _IMPORT.finditer(text):
                home = finals.get(_module_of(rel, m.group(1)), set())
                new = {alias for name, alias in _names(m) if name in home} - finals[rel]
                finals[rel] |= new
                grown = grown or bool(new)
    for rel, text in texts.items():
        out = core / rel
        out.parent.mkdir(exist_ok=True)
        if os.environ.get("TORRES_CORE_FINAL", "1") == "1":
            text = _imported_finals(rel, _finals(_split_unpacking(text)), finals)
        out.write_text(_SHARED_IMPORT.sub(r"\1from engine.\2 import", text))
    (SRC / "engine" / "_native.pyi").write_text(_NATIVE_STUB)
    # strict as engine/ is, but the loosened parameters (LOOSE) may flow to a return
    (SRC / "mypy.ini").write_text(
        "[mypy]\npython_version = 3.11\nstrict = True\nwarn_return_any = False\n"
    )
    return [str(p.relative_to(SRC)) for p in sorted(core.rglob("*.py"))]


# what mypy knows of the C kernels (engine/_native.c)
_NATIVE_STUB = f"""from collections.abc import Sequence

from engine.events import Stage

def castle_fill(h: Sequence[int]) -> {_FILLED_TYPE} | None: ...
def texts(m: int, row: list[str]) -> tuple[str, ...]: ...
def turn_actions(
    heights: list[int], pieces: int, mine: list[int], build: bool, draw: bool, add: bool
) -> list[str] | None: ...
def set_texts(moves: list[list[str]], builds: list[str], knights: list[str]) -> None: ...
def card_plays(
    heights: list[int],
    occupant: list[int],
    pieces: int,
    mine: list[int],
    hand: list[str],
    drawn: list[str],
    turn_stack: int | None,
    stacks: list[int],
    supply: int,
) -> list[str] | None: ...
def heights_of(d: object) -> list[int] | None: ...
def block_squares(heights: list[int]) -> int | None: ...
def castle_squares(heights: list[int], knights: list[list[int]] | None) -> int | None: ...
def phase_points(
    heights: list[int], knights: list[list[int]], king: int | None, phase: int
) -> tuple[list[int], list[int]] | None: ...
def moveblock_targets(heights: list[int], pieces: int, src: int) -> int | None: ...
def move_reach(heights: list[int], a: int) -> int | None: ...
def add_squares(heights: list[int], knights: list[int]) -> int | None: ...
def read_fields(d: object) -> {_FIELDS_TYPE} | None: ...
def set_position_tables(*tables: object) -> None: ...
"""


def _say(text: str) -> None:
    print(f"torres-core: {text}", file=sys.stderr)


def core_extensions() -> list:
    """mypyc's extensions for the core, or none (the reference only) if it can't be made."""
    if os.environ.get("TORRES_BUILD_CORE", "1") == "0":
        _say("TORRES_BUILD_CORE=0: not building the compiled core (the reference engine only)")
        return []
    try:
        from mypyc.build import mypycify

        paths = _core_sources()
        here = os.getcwd()
        os.chdir(SRC)  # mypy reads the copy (and its mypy.ini), not the tree
        try:
            exts = mypycify(
                paths, opt_level="3", group_name="engine._core", target_dir=str(SRC / "c")
            )
        finally:
            os.chdir(here)
    except Exception as exc:  # noqa: BLE001  # any failure: install the reference alone
        _say(f"the compiled core cannot be generated ({exc}); installing the reference engine only")
        return []
    for ext in exts:  # mypyc ran in SRC: setuptools wants paths relative to the project
        ext.sources = [_from_root(s) for s in ext.sources]
        ext.include_dirs = [_from_root(d) for d in ext.include_dirs]
        ext.depends = [_from_root(d) for d in ext.depends]
    native = Extension(
        "engine._native",
        sorted(str(c.relative_to(ROOT)) for c in (ROOT / "engine").glob("_native*.c")),
        depends=["engine/_native.h"],
    )
    return [*exts, native]


def _from_root(path: str) -> str:
    full = Path(SRC, path)  # relative paths were relative to SRC; absolute ones stay
    return os.path.relpath(full, ROOT) if full.is_relative_to(ROOT) else str(full)


def _remove_core_from_tree() -> None:
    """What an editable install (or an earlier one) left of the core in engine/."""
    shutil.rmtree(ROOT / "engine" / "_core", ignore_errors=True)
    for lib in [*(ROOT / "engine").glob("_core__mypyc*"), *(ROOT / "engine").glob("_native.*.so")]:
        lib.unlink()


class OptionalBuildExt(build_ext):
    """build_ext that leaves nothing half built: on any error, no core at all."""

    def run(self) -> None:
        for ext in self.extensions:  # an editable install copies them into the tree
            Path(ROOT, *ext.name.split(".")[:-1]).mkdir(parents=True, exist_ok=True)
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001  # no compiler, a compile error, ...
            for out in self.get_outputs():
                Path(out).unlink(missing_ok=True)
            _remove_core_from_tree()
            _say(f"the compiled core failed to build ({exc}); installing the reference engine only")


setup(ext_modules=core_extensions(), cmdclass={"build_ext": OptionalBuildExt})
