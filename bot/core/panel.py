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
from dataclasses import dataclass, field
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
    if kind == "move" and len(words) == 3:
        a, b = game.height(words[1]), game.height(words[2])
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


def describe_all(actions: Sequence[str], game: Game, *, lang: str = DEFAULT) -> str:
    """Several actions in words, joined; scores and moves of one knight merged."""
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
        out.append(describe(a, work, lang=lang))
        try:
            work.play(a)
        except Exception:  # words only: an illegal action is reported elsewhere
            break
        i += 1
    return "; ".join(out)
