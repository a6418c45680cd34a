"""The play panel's model: its options, selects and groups of actions, without words
or Discord (bot.core.panel builds a panel from them; bot.texts.panel_words words them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.texts.markup import BUTTON_LABEL_LIMIT, OPTION_LIMIT, ROWS, SELECT_OPTIONS
from bot.texts.panel_words import _target
from engine import Game

MAX_OPTIONS = SELECT_OPTIONS
MAX_WHERE = ROWS - 2  # where selects: the rows but the what select and the button row
LIMIT = OPTION_LIMIT
BUTTON_LIMIT = BUTTON_LABEL_LIMIT

WHAT = "g|"  # value prefix of a group in the what select
DO = "a|"  # value prefix of an action (in the what select: a one-action group)


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
