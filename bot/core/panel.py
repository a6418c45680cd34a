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
from dataclasses import replace
from typing import Any

from bot.core.actions import split_actions
from bot.core.panel_groups import (
    BUTTON_LIMIT,
    DO,
    LIMIT,
    MAX_OPTIONS,
    MAX_WHERE,
    WHAT,
    Option,
    PanelModel,
    Select,
    _parent,
    follow_group,
    group_of,
    grouped,
    score_steps,
    split_options,
)
from bot.texts.i18n import DEFAULT, t
from bot.texts.markup import (
    PLACEHOLDER_LIMIT,
)
from bot.texts.panel_words import (
    OUT_OF_DATE,
    _choices,
    _detail,
    _fit,
    _moves_text,
    _ranks,
    _status,
    ap_line,
    castle_after_build,
    describe,
    describe_all,
    end_question,
    group_label,
)
from engine import Game
from renderer.i18n import card_name as _card_name

# The words callers read through bot.core.panel (``panels.describe``…) are bot.texts.panel_words'.
__all__ = [
    "BUTTON_LIMIT",
    "DO",
    "LIMIT",
    "MAX_OPTIONS",
    "OUT_OF_DATE",
    "PLACEHOLDER_LIMIT",
    "WHAT",
    "Option",
    "PanelModel",
    "Select",
    "ap_line",
    "build_panel",
    "castle_after_build",
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


# -- the panel --------------------------------------------------------------------


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
    words = describe_all(split_actions(text), game, lang=lang)
    line = t(lang, "💡 Suggested: {actions}.", actions=words)
    whole = parts[-1] == "end"
    label = t(lang, "Play this whole turn") if whole else t(lang, "Play these actions")
    option = Option(_fit(label), DO + text, _fit(words))
    placeholder = t(lang, "💡 Play the suggestion?")
    return line, Select("do0", _fit(placeholder, PLACEHOLDER_LIMIT), (option,))


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
