"""The play panel, without Discord: what it shows and which choices it offers.

A player's turn is played in one private message: a *what* select (a knight to
move, build, a card to play…), then *where* selects listing complete actions in
words (``Knight c3 → d3 (1 AP)``) whose values are the notation. Choosing an
action applies it and the panel is drawn again from the game, so nothing about
an open panel needs storing: the Discord layer keeps only game, turn and the
chosen group in custom ids and values.

Discord allows 25 options a select and 5 rows a message, so where selects are
split by rank (up to three of them) and groups too large even for that are
refined by their next word; no legal action is ever left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.texts.i18n import DEFAULT, N_, t, tn
from engine import Game
from renderer.i18n import card_name as _card_name

MAX_OPTIONS = 25  # Discord: options in one select menu
MAX_WHERE = 3  # where selects: 5 rows minus the what select and the button row
LIMIT = 100  # Discord: characters in an option's label, value and description
PLACEHOLDER_LIMIT = 150  # Discord: characters in a select's placeholder
BUTTON_LIMIT = 80  # Discord: characters in a button's label

# A choice on a panel the game has moved on from (a second tap, another panel of the turn).
OUT_OF_DATE = N_(
    "This panel was out of date, so nothing was done; it now shows the game as it is. Choose again."
)

_SQUARE_WORDS = frozenset(f"{f}{r}" for f in "abcdefgh" for r in "12345678")


@dataclass(frozen=True, slots=True)
class Option:
    """One entry of a select menu."""

    label: str
    value: str
    description: str | None = None
    default: bool = False


@dataclass(frozen=True, slots=True)
class Select:
    """A select menu; ``key`` (``what``, ``do0``…) ends its custom id."""

    key: str
    placeholder: str
    options: tuple[Option, ...]
    max_values: int = 1  # several squares in one choice (builds): the service checks the set


@dataclass(slots=True)
class PanelModel:
    """Everything the panel message shows."""

    text: str
    selects: list[Select] = field(default_factory=list)
    can_undo: bool = False
    can_hint: bool = False
    can_end: bool = False
    confirm_end: bool = False  # the End turn confirmation replaces the selects
    closed: bool = False  # the turn is over: every component disabled


# -- actions in words --------------------------------------------------------------


def describe(action: str, game: Game | None = None, *, lang: str = DEFAULT) -> str:
    """An action in words, as an option label or a reply names it, in *lang*.

    >>> describe("move c3 d3")
    'Knight c3 → d3 (1 AP)'
    """
    words = action.split()
    if not words:
        return action
    kind, args = words[0], words[1:]
    if kind == "move" and len(args) >= 2:
        return t(lang, "Knight {path} ({ap} AP)", path=" → ".join(args), ap=len(args) - 1)
    if kind == "knight" and args:
        return t(lang, "Add a knight on {square} (2 AP)", square=args[0])
    if kind == "build" and args:
        if game is not None and len(args) == 1:
            n = castle_after_build(game, args[0])
            return tn(
                lang,
                "Build on {square} (castle of {n})",
                "Build on {square} (castle of {n})",
                n,
                square=args[0],
            )
        return t(lang, "Build on {squares} ({ap} AP)", squares=", ".join(args), ap=len(args))
    if kind == "stack" and args and _plain_number(args[0]):
        return tn(
            lang,
            "Use a stack of {n} block (0 AP)",
            "Use a stack of {n} blocks (0 AP)",
            int(args[0]),
        )
    if kind == "draw":
        return t(lang, "Draw a card (1 AP)")
    if kind == "score" and (not args or _plain_number(args[0])):
        n = int(args[0]) if args else 1
        return tn(lang, "Score {n} step ({n} AP)", "Score {n} steps ({n} AP)", n)
    if kind == "keep" and len(args) == 2:
        return _keep_words(args[0], args[1], game, lang)
    if kind == "play" and args:
        return _card_words(args[0], args[1:], lang)
    if kind == "castle" and args:
        return t(lang, "Starting block on {square}", square=args[0])
    if kind == "place" and args:
        return t(lang, "First knight on {square}", square=args[0])
    if kind == "king" and args:
        if args[0] == "pass":
            return t(lang, "Leave the king where it is")
        return t(lang, "King to {square}", square=args[0])
    if kind == "end":
        return t(lang, "End turn")
    return action


def _plain_number(word: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes ``²`` (which ``int`` refuses) and
    other scripts' digits (which ``int`` reads)."""
    return word.isascii() and word.isdigit()


def _keep_words(card: str, where: str, game: Game | None, lang: str) -> str:
    others = 2
    if game is not None:
        revealed = (game.position().get("turn") or {}).get("revealed") or []
        others = max(0, len(revealed) - 1)
    name = _card_name(lang, card)
    if where == "bottom":
        if others == 0:
            return t(lang, "Keep {card}, nothing else goes under your deck", card=name)
        if others == 2:
            return t(lang, "Keep {card}, the other two go under your deck", card=name)
        return tn(
            lang,
            "Keep {card}, the other one goes under your deck",
            "Keep {card}, the other {n} go under your deck",
            others,
            card=name,
        )
    if others == 0:
        return t(lang, "Keep {card}, nothing else goes back on top of your deck", card=name)
    if others == 2:
        return t(lang, "Keep {card}, the other two go back on top of your deck", card=name)
    return tn(
        lang,
        "Keep {card}, the other one goes back on top of your deck",
        "Keep {card}, the other {n} go back on top of your deck",
        others,
        card=name,
    )


def _card_words(card: str, args: list[str], lang: str) -> str:
    name = _card_name(lang, card)
    if card in ("ap6", "ap7"):
        return t(lang, "Play {card}", card=name)
    if card == "extra" and args:
        return t(lang, "Play {card} on {square}", card=name, square=args[0])
    if card == "lift" and args:
        src = "" if len(args) < 2 else args[1]
        if src == "turn":
            return t(
                lang,
                "Play {card}: under knight {square}, from this turn's stack",
                card=name,
                square=args[0],
            )
        if _plain_number(src):
            return tn(
                lang,
                "Play {card}: under knight {square}, from a stack of {n}",
                "Play {card}: under knight {square}, from a stack of {n}",
                int(src),
                card=name,
                square=args[0],
            )
        return t(
            lang, "Play {card}: under knight {square}, from a stack", card=name, square=args[0]
        )
    if card == "moveblock" and len(args) == 2:
        return t(
            lang, "Play {card}: {source} → {target}", card=name, source=args[0], target=args[1]
        )
    if len(args) == 2:
        return t(
            lang,
            "Play {card}: knight {source} → {target}",
            card=name,
            source=args[0],
            target=args[1],
        )
    if args:
        return t(lang, "Play {card} {args}", card=name, args=" ".join(args))
    return t(lang, "Play {card}", card=name)


def castle_after_build(game: Game, square: str) -> int:
    """How many squares the castle holding *square* covers once a block is built there."""
    heights = dict(game.position().get("heights") or {})
    heights[square] = heights.get(square, 0) + 1
    seen = {square}
    todo = [square]
    while todo:
        s = todo.pop()
        f, r = ord(s[0]), int(s[1])
        for nf, nr in ((f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)):
            t = f"{chr(nf)}{nr}"
            if t in _SQUARE_WORDS and t not in seen and heights.get(t, 0) > 0:
                seen.add(t)
                todo.append(t)
    return len(seen)


def _detail(action: str, game: Game, lang: str = DEFAULT) -> str | None:
    """A second line for an option: levels, mostly."""
    words = action.split()
    kind = words[0]
    if kind == "move" and len(words) >= 3:
        a, b = game.height(words[1]), game.height(words[-1])
        if a != b:
            return t(lang, "level {before} → {after}", before=a, after=b)
        return t(lang, "level {level}", level=a)
    if kind in ("build", "knight", "castle", "place") and len(words) == 2:
        h = game.height(words[1])
        if kind == "build":
            return t(lang, "level {before} → {after}", before=h, after=h + 1)
        return t(lang, "level {level}", level=h)
    return None


# -- grouping -------------------------------------------------------------------


def group_of(action: str, depth: int = 0) -> str | None:
    """The *what* an action belongs to; None for ``end`` (a button of its own).

    *depth* adds that many further words (used to split a group too big to list).
    """
    words = action.split()
    kind = words[0]
    if kind == "end":
        return None
    base = 2 if kind in ("move", "play") else 1
    return " ".join(words[: base + depth])


_GROUP_ORDER = ("castle", "place", "king", "keep", "stack", "move", "build", "knight", "play")


def _group_sort(key: str) -> tuple[int, str]:
    kind = key.split()[0]
    rank = _GROUP_ORDER.index(kind) if kind in _GROUP_ORDER else len(_GROUP_ORDER)
    return rank, key


_GROUP_LABELS = {
    "knight": N_("Add a knight (2 AP)"),
    "build": N_("Build a block (1 AP)"),
    "stack": N_("Choose this turn's stack (0 AP)"),
    "score": N_("Score (1 AP a step)"),
    "keep": N_("Keep one of the drawn cards"),
    "castle": N_("Place a starting block"),
    "place": N_("Place your first knight"),
    "king": N_("The king"),
    "draw": N_("Draw a card (1 AP)"),
}


def group_label(key: str, count: int, lang: str = DEFAULT) -> str:
    words = key.split()
    kind = words[0]
    if kind == "move" and len(words) == 2:
        return t(lang, "Move knight {square}", square=words[1])
    if kind == "play" and len(words) > 2:
        return t(
            lang, "Play {card} from {square}", card=_card_name(lang, words[1]), square=words[2]
        )
    if kind == "play" and len(words) == 2:
        return t(lang, "Play {card}", card=_card_name(lang, words[1]))
    return t(lang, _GROUP_LABELS[kind]) if kind in _GROUP_LABELS else key


def score_steps(game: Game) -> list[str]:
    """``score``, ``score 2``… as far as the AP and the track allow."""
    work = game.copy()
    out: list[str] = []
    n = 0
    while "score" in work.legal() and n < 50:
        work.play("score")
        n += 1
        out.append("score" if n == 1 else f"score {n}")
    return out


def move_paths(game: Game, steps: list[str]) -> list[str]:
    """One knight's moves, each destination once: its single steps (as ``legal()``
    lists them), then the squares only several steps reach, by their shortest path
    (``move c3 d3 e3``, the notation's shorthand for the engine's steps), nearest first.

    Paths are found by playing the engine's legal steps on copies, so each is legal
    as a whole. Further squares are left out once a whole distance would not fit the
    where selects (a knight's single steps always do).
    """
    if not steps:
        return steps
    start = steps[0].split()[1]
    seen = {start, *(a.split()[-1] for a in steps)}
    out = list(steps)
    frontier: list[tuple[list[str], Game]] = []
    for a in steps:
        work = game.copy()
        work.play(a)
        frontier.append((a.split()[1:], work))
    room = MAX_OPTIONS * MAX_WHERE
    while frontier:
        found: list[tuple[list[str], Game]] = []
        for path, work in frontier:
            prefix = f"move {path[-1]} "
            for step in work.legal():
                if not step.startswith(prefix) or (there := step[len(prefix) :]) in seen:
                    continue
                seen.add(there)
                after = work.copy()
                after.play(step)
                found.append(([*path, there], after))
            if len(out) + len(found) > room:  # this distance no longer fits: stop here
                break
        if not found or len(out) + len(found) > room:
            break
        out.extend("move " + " ".join(path) for path, _ in found)
        frontier = found
    return out


def grouped(game: Game) -> dict[str, list[str]]:
    """Legal actions (``end`` aside) by group, in the order the panel lists them."""
    legal = [a for a in game.legal() if a != "end"]
    groups: dict[str, list[str]] = {}
    for action in legal:
        key = group_of(action)
        if key is not None:
            groups.setdefault(key, []).append(action)
    if "score" in groups:
        groups["score"] = score_steps(game)
    for key in [k for k in groups if k.startswith("move ")]:
        groups[key] = move_paths(game, groups[key])
    if len(groups) > MAX_OPTIONS:  # never seen in play: all knights' moves as one group
        merged: dict[str, list[str]] = {}
        for key, actions in groups.items():
            merged.setdefault("move" if key.startswith("move ") else key, []).extend(actions)
        groups = merged
    return dict(sorted(groups.items(), key=lambda kv: _group_sort(kv[0])))


def _parent(group: str, groups: dict[str, list[str]]) -> str | None:
    """The listed group that *group* refines (``play moveblock a1`` → ``play moveblock``)."""
    if group in groups:
        return group
    return next((k for k in groups if group.startswith(k + " ")), None)


def follow_group(action: str, groups: dict[str, list[str]]) -> str | None:
    """Which group the panel shows after *action*: the cards to keep after a draw, or
    what a card set up (the knight it moved, the builds) if that fits one select.

    After a move, a build, a score or a new knight no group is opened: the free rows
    already offer those groups at once (``_quick``), and an open group would take
    their rows."""
    key = _follow(action, groups)
    if key is None or (len(groups[key]) > MAX_OPTIONS and key != "keep"):
        return None
    if key.split()[0] in ("build", "score", "knight") or (
        key.startswith("move ") and action.startswith("move ")
    ):
        return None  # the free rows offer these at once, beside the other groups
    return key


def _follow(action: str, groups: dict[str, list[str]]) -> str | None:
    words = action.split()
    if words and words[0] == "move" and f"move {words[-1]}" in groups:
        return f"move {words[-1]}"
    key = group_of(action)
    if key is not None and key in groups and len(groups[key]) > 1:
        return key
    if words and words[0] == "draw" and "keep" in groups:
        return "keep"
    if words and words[0] == "play":  # a card: what it set up next
        target = _target(action)
        if target is not None and f"move {target}" in groups:
            return f"move {target}"  # the knight it moved or raised
        if words[1] in ("extra", "moveblock", "lift") and "build" in groups:
            return "build"
    return None


def _target(action: str) -> str | None:
    squares = [w for w in action.split() if w in _SQUARE_WORDS]
    return squares[-1] if squares else None


def split_options(options: Sequence[Option], actions: Sequence[str]) -> list[list[int]]:
    """Indexes of *options* in chunks of at most 25, whole ranks together where possible."""
    n = len(options)
    if n <= MAX_OPTIONS:
        return [list(range(n))]
    by_rank: dict[int, list[int]] = {}
    for i, action in enumerate(actions):
        sq = _target(action)
        by_rank.setdefault(int(sq[1]) if sq else 0, []).append(i)
    chunks: list[list[int]] = []
    current: list[int] = []
    for rank in sorted(by_rank):
        idx = by_rank[rank]
        if len(idx) > MAX_OPTIONS:  # a rank alone is too big: plain chunks
            if current:
                chunks.append(current)
                current = []
            chunks.extend(idx[i : i + MAX_OPTIONS] for i in range(0, len(idx), MAX_OPTIONS))
            continue
        if len(current) + len(idx) > MAX_OPTIONS:
            chunks.append(current)
            current = []
        current.extend(idx)
    if current:
        chunks.append(current)
    if len(chunks) > MAX_WHERE:  # uneven ranks: plain chunks in rank order still fit
        order = [i for chunk in chunks for i in chunk]
        chunks = [order[i : i + MAX_OPTIONS] for i in range(0, n, MAX_OPTIONS)]
    return chunks


def _ranks(actions: Iterable[str], lang: str = DEFAULT) -> str:
    ranks = sorted({int(sq[1]) for a in actions if (sq := _target(a))})
    if not ranks:
        return ""
    if len(ranks) == 1:
        return t(lang, "rank {rank}", rank=ranks[0])
    return t(lang, "ranks {first}–{last}", first=ranks[0], last=ranks[-1])


def _fit(text: str, limit: int = LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- the panel --------------------------------------------------------------------

WHAT = "g|"  # value prefix of a group in the what select
DO = "a|"  # value prefix of an action (in the what select: a one-action group)


def build_panel(
    game: Game,
    *,
    header: str,
    group: str | None = None,
    note: str = "",
    stack_text: str = "",
    lang: str = DEFAULT,
    suggestion: Sequence[str] = (),
) -> PanelModel:
    """The panel for the player to move in *game*, showing *group*'s actions if given,
    or the computer's *suggestion* (the rest of the decision) to play in one choice.

    Every text is in *lang*; option values stay in the notation.
    """
    me = game.to_move
    assert me is not None
    groups = grouped(game)
    lines = [header]
    status = _status(game, me, stack_text, lang)
    if status:
        lines.append(status)
    if note:
        lines.append(note)
    legal = game.legal()
    can_end = "end" in legal
    parent = _parent(group, groups) if group is not None else None
    if parent is None:
        group = None
    if group is None and len(groups) == 1 and len(next(iter(groups.values()))) > 1:
        group = parent = next(iter(groups))  # nothing else to choose: show the choices at once
    inline = _inline(groups, parent)
    what: list[Option] = []
    for key, actions in groups.items():
        if len(actions) == 1 or key in inline:
            what.extend(_options(game, actions, lang))
            if key == "score" and len(what) < MAX_OPTIONS:
                what.extend(
                    Option(
                        _fit(t(lang, "{action}, then end your turn", action=o.label)),
                        _fit(o.value + "; end"),
                        o.description,
                    )
                    for o in _options(game, _last_actions(game, actions[-1:]), lang)
                )
        else:
            what.append(
                Option(
                    _fit(group_label(key, len(actions), lang)),
                    _fit(WHAT + key),
                    _choices(len(actions), lang),
                    default=key == parent,
                )
            )
    if len(what) > MAX_OPTIONS:  # no room for the score that also ends the turn
        what = [o for o in what if not o.value.endswith("; end")]
    selects: list[Select] = []
    if what:
        if group is None:
            placeholder = t(lang, "What do you want to do?")
        else:
            placeholder = t(lang, "…or choose something else")
        selects.append(Select("what", _fit(placeholder, PLACEHOLDER_LIMIT), tuple(what)))
    offer = suggestion_select(game, suggestion, lang) if suggestion else None
    if offer is not None:
        lines.append(offer[0])
        selects.append(offer[1])
        group = None
    else:
        if group is not None and parent is not None:
            selects.extend(_where(game, group, parent, groups[parent], lang))
        last = _last_actions(game, groups.get("keep", []))
        if last and len(selects) <= MAX_WHERE:
            text = t(lang, "…and end your turn: choose")
            ending = tuple(
                Option(o.label, _fit(o.value + "; end"), o.description)
                for o in _options(game, last[:MAX_OPTIONS], lang)
            )
            selects.append(Select("", _fit(text, PLACEHOLDER_LIMIT), ending))
        rest = {k: v for k, v in groups.items() if k not in inline}
        selects.extend(_quick(game, rest, parent, MAX_WHERE + 1 - len(selects), lang))
    quick = group is None and len(selects) > 1 and offer is None
    if game.stage == "play" and game.ap == 0 and can_end:  # one instruction, not two
        if any(a.startswith("play ") for a in legal):
            lines.append(t(lang, "0 AP left: play a card, or press End turn."))
        else:
            lines.append(t(lang, "0 AP left: press End turn."))
    elif not what and not can_end:
        lines.append(t(lang, "Nothing to choose here."))
    elif quick:
        lines.append(t(lang, "Choose an action below, or first what to do."))
    elif group is None and len(what) > 1 and offer is None:
        lines.append(t(lang, "Choose what to do; then where."))
    where = [s for s in selects if s.key != "what"]  # numbered in order: do0, do1, do2
    selects = [s for s in selects if s.key == "what"] + [
        replace(s, key=f"do{n}") for n, s in enumerate(where)
    ]
    return PanelModel(
        text="\n".join(x for x in lines if x),
        selects=selects,
        can_undo=game.can_undo,
        can_hint=bool(legal),
        can_end=can_end,
    )


def _last_actions(game: Game, candidates: Sequence[str]) -> list[str]:
    """Those of *candidates* after which nothing is left to do but End turn (all AP
    spent, no card to play). The panel offers them with the turn's end too, in words
    (the longest score in the what select, the kept card in a select of its own), so
    the last action and End turn take one choice."""
    if game.stage not in ("play", "draw-keep"):
        return []
    out = []
    for a in candidates:
        work = game.copy()
        work.play(a)
        rest = work.legal()
        if (
            work.ap == 0
            and "end" in rest
            and all(x == "end" or x.startswith("stack ") for x in rest)
        ):
            out.append(a)
    return out


_INLINE = ("score", "knight", "stack", "play")  # small groups listed in the what select


def _inline(groups: dict[str, list[str]], shown: str | None) -> set[str]:
    """The groups whose actions the what select lists themselves, instead of the group:
    small ones (scores, new knights, the stacks, cards with few targets), in this
    order, as long as the what select keeps within 25 options."""
    size = len(groups)
    out: set[str] = set()
    for kind in _INLINE:
        for key, actions in groups.items():
            n = len(actions)
            if key.split()[0] == kind and key != shown and n > 1 and size + n - 1 <= MAX_OPTIONS:
                out.add(key)
                size += n - 1
    return out


def _quick(
    game: Game, groups: dict[str, list[str]], shown: str | None, slots: int, lang: str
) -> list[Select]:
    """Selects for the rows the panel has free, so that an action takes one choice
    instead of two: the builds (split by rank if need be, several at once), every
    knight's nearest squares (single steps first), and the small groups (score, add a
    knight) together. What does not fit stays one what-choice away; nothing is left
    out of the what select."""
    out: list[Select] = []
    if slots <= 0:
        return out
    builds = groups.get("build", []) if shown != "build" else []
    if len(builds) > 1:
        many = blocks_at_once(game)
        label = group_label("build", len(builds), lang)
        text = t(lang, "{what}: choose one or more squares", what=label)
        if many == 1:
            text = t(lang, "{what}: choose", what=label)
        split = _chunked(_options(game, builds, lang), builds, text, lang, many)
        if len(split) < slots or len(split) == slots == 1:
            out.extend(split)
    knights = [k for k in groups if k.startswith("move ") and k != shown]
    moves = sorted(
        (a for k in knights for a in groups[k]), key=lambda a: len(a.split())
    )  # stable: each distance in the knights' order
    if len(knights) == 1 and len(moves) == 1:
        moves = []  # the what select offers it at once
    small: list[str] = []  # score, add a knight, the cards: whole groups, as many as fit
    for key in [k for k in groups if k.split()[0] in ("score", "knight", "play")]:
        actions = groups[key]
        if key != shown and len(actions) > 1 and len(small) + len(actions) <= MAX_OPTIONS:
            small.extend(actions)
    rows: list[tuple[str, list[str]]] = []
    if slots - len(out) >= 2 or not (moves and small):
        rows = [(_moves_text(moves, lang), moves), (_small_text(small, lang), small)]
    else:  # one row left: the small groups first, then the nearest squares
        rows = [(t(lang, "Move a knight, or another action: choose"), small + moves)]
    for text, actions in rows:
        if actions and len(out) < slots:
            options = tuple(_options(game, actions[:MAX_OPTIONS], lang))
            out.append(Select("", _fit(text, PLACEHOLDER_LIMIT), options))
    return out


def _moves_text(moves: list[str], lang: str) -> str:
    if len(moves) > MAX_OPTIONS:
        return t(lang, "Move a knight: the nearest squares")
    return t(lang, "Move a knight: choose")


def _small_text(small: list[str], lang: str) -> str:
    keys = {group_of(a) or "" for a in small}
    if len(keys) == 1:
        (key,) = keys
        return t(lang, "{what}: choose", what=group_label(key, len(small), lang))
    return t(lang, "Other actions: choose")


def shorthand(actions: Sequence[str]) -> list[str]:
    """Single actions joined by the notation's shorthands where they fit: one knight's
    steps as a path, builds in a row, score steps as ``score N``.

    >>> shorthand(["move c3 d3", "move d3 d4", "build e4", "build e5", "score", "score"])
    ['move c3 d3 d4', 'build e4 e5', 'score 2']
    """
    out: list[list[str]] = []
    for a in actions:
        words, last = a.split(), out[-1] if out else []
        if words == ["score"] and last[:1] == ["score"]:
            last[1:] = [str(int(last[1]) + 1 if len(last) > 1 else 2)]
        elif words[0] == "build" and len(words) == 2 and last[:1] == ["build"]:
            last.append(words[1])
        elif words[0] == "move" and len(words) == 3 and last[:1] == ["move"]:
            if last[-1] == words[1]:
                last.append(words[2])
            else:
                out.append(words)
        else:
            out.append(words)
    return [" ".join(w) for w in out]


def suggestion_select(
    game: Game, suggestion: Sequence[str], lang: str = DEFAULT
) -> tuple[str, Select] | None:
    """The computer's suggestion in words, and a select that plays it in one choice.

    Its value is the suggestion itself in the notation, so what is played is what was
    shown (the engine checks it again, all or nothing). A suggestion too long for a
    value (100 characters) is offered as far as it fits, in whole actions.
    """
    parts = shorthand(list(suggestion))
    while parts and len(DO + "; ".join(parts)) > LIMIT:
        parts.pop()
    if not parts:
        return None
    text = "; ".join(parts)
    from bot.core.actions import split_actions

    words = describe_all(split_actions(text), game, lang=lang)
    line = t(lang, "💡 Suggested: {actions}.", actions=words)
    whole = parts[-1] == "end"
    label = t(lang, "Play this whole turn") if whole else t(lang, "Play these actions")
    option = Option(_fit(label), DO + text, _fit(words))
    placeholder = t(lang, "💡 Play the suggestion?")
    return line, Select("do0", _fit(placeholder, PLACEHOLDER_LIMIT), (option,))


def _choices(n: int, lang: str) -> str:
    return _fit(tn(lang, "{n} choice", "{n} choices", n))


def _where(
    game: Game, group: str, parent: str, all_actions: list[str], lang: str = DEFAULT
) -> list[Select]:
    """The selects below the what select: the group's actions, split by rank if need be.

    A group too big for three selects (a card with many sources) first asks for
    the source square: its options are refined groups, each small enough.
    """
    actions = [a for a in all_actions if a == group or a.startswith(group + " ")]
    label = group_label(parent, len(all_actions), lang)
    if group == parent and len(actions) > MAX_OPTIONS * MAX_WHERE:
        depth = len(parent.split())
        subs: dict[str, list[str]] = {}
        for a in actions:
            subs.setdefault(" ".join(a.split()[: depth + 1]), []).append(a)
        keys = list(subs)
        options = [
            Option(
                _fit(t(lang, "From {square}", square=k.split()[-1])),
                _fit(WHAT + k),
                _choices(len(subs[k]), lang),
            )
            for k in keys
        ]
        return _chunked(options, keys, t(lang, "{what}, from which square?", what=label), lang)
    options = _options(game, actions, lang)
    many = blocks_at_once(game) if group == "build" else 1
    if group != parent:
        text = t(lang, "{what} from {square}: choose", what=label, square=group.split()[-1])
    elif many > 1:
        text = t(lang, "{what}: choose one or more squares", what=label)
    else:
        text = t(lang, "{what}: choose", what=label)
    return _chunked(options, actions, text, lang, many)


def _options(game: Game, actions: Sequence[str], lang: str) -> list[Option]:
    """Actions as options of a where select: in words, with their levels."""
    return [
        Option(_fit(describe(a, game, lang=lang)), _fit(DO + a), _detail(a, game, lang))
        for a in actions
    ]


def blocks_at_once(game: Game) -> int:
    """How many blocks one choice of the build select may place: as many as the AP and
    the turn's stack (or, not chosen yet, the tallest) allow."""
    view = game.position()
    stack = (view.get("turn") or {}).get("stack")
    if stack is None:
        stack = max((view.get("stacks") or {}).get(game.to_move or "", []) or [0])
    return max(1, min(game.ap or 0, int(stack)))


def build_order(game: Game, squares: Sequence[str]) -> str | None:
    """The chosen squares as one legal ``build`` text, in the order chosen or, if that
    order is refused, the first order the engine takes; None if none is legal.

    A block's place can depend on another's (a castle's height may grow with its area,
    a bare square may come to touch a second castle): the engine decides the set.
    """
    from itertools import permutations

    for order in permutations(squares):
        text = "; ".join(f"build {sq}" for sq in order)
        work = game.copy()
        try:
            work.play(text)
        except Exception:  # the engine refuses this order: try the next
            continue
        return text
    return None


def _chunked(
    options: list[Option], keys: list[str], label: str, lang: str, many: int = 1
) -> list[Select]:
    chunks = split_options(options, keys)
    out = []
    for n, chunk in enumerate(chunks[:MAX_WHERE]):
        text = label
        if len(chunks) > 1:
            text = f"{label} ({_ranks([keys[i] for i in chunk], lang)})"
        out.append(
            Select(
                f"do{n}",
                _fit(text, PLACEHOLDER_LIMIT),
                tuple(options[i] for i in chunk),
                max_values=min(many, len(chunk)),
            )
        )
    return out


_SETUP_HELP = {
    "castles": N_("Setup: place a starting block."),
    "place": N_("Setup: place your first knight on a starting castle."),
    "king": N_("Setup: put the king on an empty castle."),
}


def _status(game: Game, me: str, stack_text: str, lang: str = DEFAULT) -> str:
    view = game.position(viewer=me)
    turn = view.get("turn") or {}
    if game.stage in ("castles", "place", "king"):
        if game.stage == "king" and view.get("king") is not None:
            return t(
                lang,
                "You have the fewest points: move the king to another castle, or leave him.",
            )
        return t(lang, _SETUP_HELP[game.stage]) if game.stage in _SETUP_HELP else ""
    parts: list[str] = []
    if game.stage in ("play", "draw-keep"):
        parts.append(t(lang, "**{ap} AP** left", ap=game.ap))
        stack = turn.get("stack")
        if stack is not None:
            parts.append(
                tn(lang, "this turn's stack: {n} block", "this turn's stack: {n} blocks", stack)
            )
        else:
            stacks = (view.get("stacks") or {}).get(me) or []
            if stacks:
                parts.append(t(lang, "stacks: {stacks}", stacks=", ".join(str(s) for s in stacks)))
    hand = list(game.hand(me))
    drawn = [c for c in turn.get("drawn") or [] if c != "hidden"]
    playable = list(hand)
    for c in drawn:
        if c in playable:
            playable.remove(c)
    names = ", ".join(_card_name(lang, c) for c in playable)
    cards = t(lang, "hand: {cards}", cards=names) if names else t(lang, "hand: no cards")
    if drawn:
        later = ", ".join(_card_name(lang, c) for c in drawn)
        cards += " " + t(lang, "(drawn this turn, for later: {cards})", cards=later)
    parts.append(cards)
    line = " · ".join(parts)
    if stack_text:
        line += "\n" + t(lang, "This turn so far: `{actions}`", actions=stack_text)
    revealed = [c for c in turn.get("revealed") or [] if c != "hidden"]
    if revealed:
        names = ", ".join(_card_name(lang, c) for c in revealed)
        line += "\n" + t(lang, "Drawn, keep one: {cards}", cards=names)
    return line


def end_question(ap: int, lang: str = DEFAULT) -> str:
    """The question before a turn ends with AP unused (the panel's and the End turn button's)."""
    return tn(
        lang,
        "You still have **{n} AP**. End your turn anyway? (Unused AP are lost.)",
        "You still have **{n} AP**. End your turn anyway? (Unused AP are lost.)",
        ap,
    )


def confirm_end_model(header: str, ap: int, lang: str = DEFAULT) -> PanelModel:
    return PanelModel(text=f"{header}\n{end_question(ap, lang)}", confirm_end=True)


def closed_model(text: str) -> PanelModel:
    return PanelModel(text=text, closed=True)


def option_payloads(select: Select) -> list[dict[str, Any]]:
    """Options as Discord's JSON (for tests and the fake's checks)."""
    out = []
    for o in select.options:
        d: dict[str, Any] = {"label": o.label, "value": o.value}
        if o.description:
            d["description"] = o.description
        if o.default:
            d["default"] = True
        out.append(d)
    return out


# -- replies ------------------------------------------------------------------------


def ap_line(game: Game, *, lang: str = DEFAULT) -> str:
    """AP and stack left, and what to do when nothing is left."""
    ap = game.ap
    if game.stage == "draw-keep":
        return t(lang, "Now keep one of the drawn cards: `keep CARD top` or `keep CARD bottom`.")
    if ap is None:
        return ""
    if ap == 0 and game.stage == "play" and any(a.startswith("play ") for a in game.legal()):
        line = t(lang, "0 AP left: play a card, or press End turn or play `end`.")
    elif ap == 0 and game.stage == "play":
        line = t(lang, "0 AP left: press End turn or play `end`.")
    else:
        line = t(lang, "{ap} AP left.", ap=ap)
    stack = (game.position().get("turn") or {}).get("stack")
    if stack is not None:
        held = tn(
            lang, "This turn's stack holds {n} block.", "This turn's stack holds {n} blocks.", stack
        )
        line = f"{held} {line}"
    return line


def done_words(
    text: str, before: Game, after: Game, *, panel: bool = False, lang: str = DEFAULT
) -> str:
    """What a command did, in words, for the player's private reply (cards drawn included).

    On the *panel*, which shows AP and stack itself (and what to do at 0 AP), neither
    is repeated.
    """
    from bot.core.actions import split_actions

    actions = split_actions(text)
    words = describe_all(actions, before, lang=lang)
    me = before.to_move
    parts = [f"{words}." if words else ""]
    if me is not None:
        drawn = list(after.hand(me))
        for c in before.hand(me):
            if c in drawn:
                drawn.remove(c)
        if drawn and not any(a.startswith("keep ") for a in actions):  # a kept card is named
            names = ", ".join(f"**{_card_name(lang, c)}**" for c in drawn)
            parts.append(t(lang, "You drew {cards}.", cards=names))
        revealed = [
            c
            for c in (after.position(viewer=me).get("turn") or {}).get("revealed") or []
            if c != "hidden"
        ]
        if revealed and after.stage == "draw-keep":
            names = ", ".join(f"**{_card_name(lang, c)}**" for c in revealed)
            parts.append(t(lang, "You drew {cards}: keep one.", cards=names))
    if not panel:
        parts.append(ap_line(after, lang=lang))
    return " ".join(p for p in parts if p)


def describe_all(
    actions: Sequence[str], game: Game, *, lang: str = DEFAULT, public: bool = False
) -> str:
    """Several actions in words, joined; scores and moves of one knight merged.

    *public*: as the other players may read them (which card a ``keep`` keeps unsaid).
    """
    out: list[str] = []
    work = game.copy()
    i = 0
    while i < len(actions):
        a = actions[i]
        if a == "score":
            n = 1
            while i + n < len(actions) and actions[i + n] == "score":
                n += 1
            out.append(describe(f"score {n}", lang=lang))
            i += n
            continue
        words = a.split()
        n = 1
        while (  # one knight's steps in a row: its path
            words[0] == "move"
            and i + n < len(actions)
            and actions[i + n].split()[:2] == ["move", words[-1]]
            and len(actions[i + n].split()) == 3
        ):
            words.append(actions[i + n].split()[2])
            n += 1
        if public and a.startswith("keep "):
            out.append(t(lang, "Keep one of the drawn cards"))
        else:
            out.append(describe(" ".join(words), work, lang=lang))
        try:
            work.play("; ".join(actions[i : i + n]))
        except Exception:  # words only: an illegal action is reported elsewhere
            break
        i += n
    return "; ".join(out)
