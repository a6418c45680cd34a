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

import engine
from engine import Game

MAX_OPTIONS = 25  # Discord: options in one select menu
MAX_WHERE = 3  # where selects: 5 rows minus the what select and the button row
LIMIT = 100  # Discord: characters in an option's label, value and description

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


def card_name(card: str) -> str:
    return engine.CARDS.get(card, card)


def _cost(n: int) -> str:
    return f"{n} AP"


def describe(action: str, game: Game | None = None) -> str:
    """An action in words, as an option label or a reply names it.

    >>> describe("move c3 d3")
    'Knight c3 → d3 (1 AP)'
    """
    words = action.split()
    if not words:
        return action
    kind, args = words[0], words[1:]
    if kind == "move" and len(args) >= 2:
        return f"Knight {' → '.join(args)} ({_cost(len(args) - 1)})"
    if kind == "knight" and args:
        return f"Add a knight on {args[0]} (2 AP)"
    if kind == "build" and args:
        if game is not None and len(args) == 1:
            return f"Build on {args[0]} (castle of {castle_after_build(game, args[0])})"
        return f"Build on {', '.join(args)} ({_cost(len(args))})"
    if kind == "stack" and args:
        n = args[0]
        return f"Use a stack of {n} block{'' if n == '1' else 's'} (0 AP)"
    if kind == "draw":
        return "Draw a card (1 AP)"
    if kind == "score":
        n = int(args[0]) if args and args[0].isdigit() else 1
        return f"Score {n} step{'' if n == 1 else 's'} ({_cost(n)})"
    if kind == "keep" and len(args) == 2:
        return _keep_words(args[0], args[1], game)
    if kind == "play" and args:
        return _card_words(args[0], args[1:])
    if kind == "castle" and args:
        return f"Starting block on {args[0]}"
    if kind == "place" and args:
        return f"First knight on {args[0]}"
    if kind == "king" and args:
        return "Leave the king where it is" if args[0] == "pass" else f"King to {args[0]}"
    if kind == "end":
        return "End turn"
    return action


def _keep_words(card: str, where: str, game: Game | None) -> str:
    others = 2
    if game is not None:
        revealed = (game.position().get("turn") or {}).get("revealed") or []
        others = max(0, len(revealed) - 1)
    rest = {0: "nothing else", 1: "the other one", 2: "the other two"}.get(
        others, f"the other {others}"
    )
    place = "under your deck" if where == "bottom" else "back on top of your deck"
    verb = "goes" if others == 1 else "go"
    return f"Keep {card_name(card)}, {rest} {verb} {place}"


def _card_words(card: str, args: list[str]) -> str:
    name = card_name(card)
    if card in ("ap6", "ap7"):
        return f"Play {name}"
    if card == "extra" and args:
        return f"Play Extra block on {args[0]}"
    if card == "lift" and args:
        src = "" if len(args) < 2 else args[1]
        source = "this turn's stack" if src == "turn" else f"a stack of {src}" if src else "a stack"
        return f"Play {name}: under knight {args[0]}, from {source}"
    if card == "moveblock" and len(args) == 2:
        return f"Play Move a block: {args[0]} → {args[1]}"
    if len(args) == 2:
        return f"Play {name}: knight {args[0]} → {args[1]}"
    return f"Play {name} {' '.join(args)}".strip()


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


def _detail(action: str, game: Game) -> str | None:
    """A second line for an option: levels, mostly."""
    words = action.split()
    kind = words[0]
    if kind == "move" and len(words) == 3:
        a, b = game.height(words[1]), game.height(words[2])
        return f"level {a} → {b}" if a != b else f"level {a}"
    if kind in ("build", "knight", "castle", "place") and len(words) == 2:
        h = game.height(words[1])
        return f"level {h} → {h + 1}" if kind == "build" else f"level {h}"
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


def group_label(key: str, count: int) -> str:
    words = key.split()
    kind = words[0]
    if kind == "move" and len(words) == 2:
        return f"Move knight {words[1]}"
    if kind == "play" and len(words) >= 2:
        extra = f" from {words[2]}" if len(words) > 2 else ""
        return f"Play {card_name(words[1])}{extra}"
    labels = {
        "knight": "Add a knight (2 AP)",
        "build": "Build a block (1 AP)",
        "stack": "Choose this turn's stack (0 AP)",
        "score": "Score (1 AP a step)",
        "keep": "Keep one of the drawn cards",
        "castle": "Place a starting block",
        "place": "Place your first knight",
        "king": "The king",
        "draw": "Draw a card (1 AP)",
    }
    return labels.get(kind, key)


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


def _ranks(actions: Iterable[str]) -> str:
    ranks = sorted({int(sq[1]) for a in actions if (sq := _target(a))})
    if not ranks:
        return ""
    return f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {ranks[0]}–{ranks[-1]}"


def _fit(text: str) -> str:
    return text if len(text) <= LIMIT else text[: LIMIT - 1] + "…"


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
) -> PanelModel:
    """The panel for the player to move in *game*, showing *group*'s actions if given."""
    me = game.to_move
    assert me is not None
    groups = grouped(game)
    lines = [header]
    status = _status(game, me, stack_text)
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
            what.append(Option(_fit(describe(a, game)), _fit(DO + a), _detail(a, game)))
        else:
            what.append(
                Option(
                    _fit(group_label(key, len(actions))),
                    _fit(WHAT + key),
                    f"{len(actions)} choices",
                    default=key == parent,
                )
            )
    selects: list[Select] = []
    if what:
        placeholder = "What do you want to do?" if group is None else "…or choose something else"
        selects.append(Select("what", placeholder, tuple(what)))
    if group is not None and parent is not None:
        selects.extend(_where(game, group, parent, groups[parent]))
    if not what and not can_end:
        lines.append("Nothing to choose here.")
    elif group is None and len(what) > 1:
        lines.append("Choose what to do; then where.")
    return PanelModel(
        text="\n".join(x for x in lines if x),
        selects=selects,
        can_undo=game.can_undo,
        can_hint=bool(legal),
        can_end=can_end,
    )


def _where(game: Game, group: str, parent: str, all_actions: list[str]) -> list[Select]:
    """The selects below the what select: the group's actions, split by rank if need be.

    A group too big for three selects (a card with many sources) first asks for
    the source square: its options are refined groups, each small enough.
    """
    actions = [a for a in all_actions if a == group or a.startswith(group + " ")]
    label = group_label(parent, len(all_actions))
    if group == parent and len(actions) > MAX_OPTIONS * MAX_WHERE:
        depth = len(parent.split())
        subs: dict[str, list[str]] = {}
        for a in actions:
            subs.setdefault(" ".join(a.split()[: depth + 1]), []).append(a)
        keys = list(subs)
        options = [
            Option(_fit(f"From {k.split()[-1]}"), _fit(WHAT + k), f"{len(subs[k])} choices")
            for k in keys
        ]
        return _chunked(options, keys, label + ", from which square?", "do")
    options = [Option(_fit(describe(a, game)), _fit(DO + a), _detail(a, game)) for a in actions]
    if group != parent:
        label += f" from {group.split()[-1]}"
    return _chunked(options, actions, label + ": choose", "do")


def _chunked(options: list[Option], keys: list[str], label: str, prefix: str) -> list[Select]:
    chunks = split_options(options, keys)
    out = []
    for n, chunk in enumerate(chunks[:MAX_WHERE]):
        text = label
        if len(chunks) > 1:
            text = f"{label} ({_ranks([keys[i] for i in chunk])})"
        out.append(Select(f"{prefix}{n}", _fit(text), tuple(options[i] for i in chunk)))
    return out


_SETUP_HELP = {
    "castles": "Setup: place a starting block.",
    "place": "Setup: place your first knight on a starting castle.",
    "king": "Setup: put the king on an empty castle.",
}


def _status(game: Game, me: str, stack_text: str) -> str:
    view = game.position(viewer=me)
    turn = view.get("turn") or {}
    parts: list[str] = []
    if game.stage in ("play", "draw-keep"):
        parts.append(f"**{game.ap} AP** left")
        stack = turn.get("stack")
        if stack is not None:
            parts.append(f"this turn's stack: {stack} block{'' if stack == 1 else 's'}")
        else:
            stacks = (view.get("stacks") or {}).get(me) or []
            if stacks:
                parts.append("stacks left: " + ", ".join(str(s) for s in stacks))
    if game.stage in ("castles", "place", "king"):
        return (
            _SETUP_HELP.get(game.stage, "")
            if game.stage != "king" or view.get("king") is None
            else ("You have the fewest points: move the king to another castle, or leave him.")
        )
    hand = list(game.hand(me))
    drawn = [c for c in turn.get("drawn") or [] if c != "hidden"]
    playable = list(hand)
    for c in drawn:
        if c in playable:
            playable.remove(c)
    cards = ", ".join(card_name(c) for c in playable) or "no cards"
    if drawn:
        cards += " (drawn this turn, for later: " + ", ".join(card_name(c) for c in drawn) + ")"
    parts.append(f"hand: {cards}")
    line = " · ".join(parts)
    if stack_text:
        line += f"\nThis turn so far: `{stack_text}`"
    revealed = [c for c in turn.get("revealed") or [] if c != "hidden"]
    if revealed:
        line += "\nDrawn, keep one: " + ", ".join(card_name(c) for c in revealed)
    return line


def confirm_end_model(header: str, ap: int) -> PanelModel:
    return PanelModel(
        text=(f"{header}\nYou still have **{ap} AP**. End your turn anyway? (Unused AP are lost.)"),
        confirm_end=True,
    )


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


def ap_line(game: Game, *, end_hint: str = "press End turn or play `end`") -> str:
    """AP and stack left, and what to do when nothing is left."""
    ap = game.ap
    if game.stage == "draw-keep":
        return "Now keep one of the drawn cards: `keep CARD top` or `keep CARD bottom`."
    if ap is None:
        return ""
    line = f"{ap} AP left."
    stack = (game.position().get("turn") or {}).get("stack")
    if stack is not None:
        blocks = f"{stack} block{'' if stack == 1 else 's'}"
        line = f"This turn's stack holds {blocks}. " + line
    if ap == 0 and game.stage == "play":
        line = line[: -len(" AP left.")] + f" AP left: {end_hint}."
    return line


def done_words(text: str, before: Game, after: Game, *, end_hint: str | None = None) -> str:
    """What a command did, in words, for the player's private reply (cards drawn included)."""
    from bot.actions import split_actions

    actions = split_actions(text)
    words = describe_all(actions, before)
    me = before.to_move
    parts = [f"{words}." if words else ""]
    if me is not None:
        drawn = list(after.hand(me))
        for c in before.hand(me):
            if c in drawn:
                drawn.remove(c)
        if drawn and not any(a.startswith("keep ") for a in actions):  # a kept card is named
            parts.append("You drew " + ", ".join(f"**{card_name(c)}**" for c in drawn) + ".")
        revealed = [
            c
            for c in (after.position(viewer=me).get("turn") or {}).get("revealed") or []
            if c != "hidden"
        ]
        if revealed and after.stage == "draw-keep":
            names = ", ".join(f"**{card_name(c)}**" for c in revealed)
            parts.append(f"You drew {names}: keep one.")
    if end_hint is None:
        parts.append(ap_line(after))
    elif after.stage == "play" and after.ap == 0:  # the panel shows AP and stack itself
        parts.append(f"0 AP left: {end_hint}.")
    return " ".join(p for p in parts if p)


def describe_all(actions: Sequence[str], game: Game) -> str:
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
            out.append(describe(f"score {n}"))
            i += n
            continue
        out.append(describe(a, work))
        try:
            work.play(a)
        except Exception:  # words only: an illegal action is reported elsewhere
            break
        i += 1
    return "; ".join(out)
