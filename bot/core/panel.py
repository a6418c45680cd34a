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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.core.actions import split_actions
from bot.texts.i18n import DEFAULT, t
from bot.texts.markup import (
    BUTTON_LABEL_LIMIT,
    OPTION_LIMIT,
    PLACEHOLDER_LIMIT,
    ROWS,
    SELECT_OPTIONS,
)
from bot.texts.panel_words import (
    OUT_OF_DATE,
    _choices,
    _detail,
    _fit,
    _ranks,
    _status,
    _target,
    ap_line,
    describe,
    describe_all,
    end_question,
    group_label,
)
from engine import Game
from renderer.i18n import card_name as _card_name

MAX_OPTIONS = SELECT_OPTIONS
MAX_WHERE = ROWS - 2  # where selects: the rows but the what select and the button row
LIMIT = OPTION_LIMIT
BUTTON_LIMIT = BUTTON_LABEL_LIMIT

# The words callers read through bot.core.panel (``panels.describe``…) are bot.texts.panel_words'.
__all__ = [
    "BUTTON_LIMIT",
    "DO",
    "LIMIT",
    "MAX_OPTIONS",
    "OUT_OF_DATE",
    "WHAT",
    "Option",
    "PanelModel",
    "Select",
    "ap_line",
    "build_panel",
    "closed_model",
    "confirm_end_model",
    "describe",
    "describe_all",
    "done_words",
    "end_question",
    "follow_group",
    "group_label",
    "group_of",
    "grouped",
    "option_payloads",
    "score_steps",
    "split_options",
]


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
    """Which group the panel shows after *action*: the moved knight, or the same kind."""
    words = action.split()
    if words and words[0] == "move" and f"move {words[-1]}" in groups:
        return f"move {words[-1]}"
    key = group_of(action)
    if key is not None and key in groups and len(groups[key]) > 1:
        return key
    if words and words[0] == "draw" and "keep" in groups:
        return "keep"
    return None


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
) -> PanelModel:
    """The panel for the player to move in *game*, showing *group*'s actions if given.

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
    what: list[Option] = []
    for key, actions in groups.items():
        if len(actions) == 1:
            a = actions[0]
            what.append(
                Option(_fit(describe(a, game, lang=lang)), _fit(DO + a), _detail(a, game, lang))
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
    selects: list[Select] = []
    if what:
        if group is None:
            placeholder = t(lang, "What do you want to do?")
        else:
            placeholder = t(lang, "…or choose something else")
        selects.append(Select("what", _fit(placeholder, PLACEHOLDER_LIMIT), tuple(what)))
    if group is not None and parent is not None:
        selects.extend(_where(game, group, parent, groups[parent], lang))
    if game.stage == "play" and game.ap == 0 and can_end:  # one instruction, not two
        if any(a.startswith("play ") for a in legal):
            lines.append(t(lang, "0 AP left: play a card, or press End turn."))
        else:
            lines.append(t(lang, "0 AP left: press End turn."))
    elif not what and not can_end:
        lines.append(t(lang, "Nothing to choose here."))
    elif group is None and len(what) > 1:
        lines.append(t(lang, "Choose what to do; then where."))
    return PanelModel(
        text="\n".join(x for x in lines if x),
        selects=selects,
        can_undo=game.can_undo,
        can_hint=bool(legal),
        can_end=can_end,
    )


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
    options = [
        Option(_fit(describe(a, game, lang=lang)), _fit(DO + a), _detail(a, game, lang))
        for a in actions
    ]
    if group != parent:
        text = t(lang, "{what} from {square}: choose", what=label, square=group.split()[-1])
    else:
        text = t(lang, "{what}: choose", what=label)
    return _chunked(options, actions, text, lang)


def _chunked(options: list[Option], keys: list[str], label: str, lang: str) -> list[Select]:
    chunks = split_options(options, keys)
    out = []
    for n, chunk in enumerate(chunks[:MAX_WHERE]):
        text = label
        if len(chunks) > 1:
            text = f"{label} ({_ranks([keys[i] for i in chunk], lang)})"
        out.append(
            Select(f"do{n}", _fit(text, PLACEHOLDER_LIMIT), tuple(options[i] for i in chunk))
        )
    return out


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


# -- replies ------------------------------------------------------------------------


def done_words(
    text: str, before: Game, after: Game, *, panel: bool = False, lang: str = DEFAULT
) -> str:
    """What a command did, in words, for the player's private reply (cards drawn included).

    On the *panel*, which shows AP and stack itself (and what to do at 0 AP), neither
    is repeated.
    """
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
