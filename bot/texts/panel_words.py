"""The play panel's words: actions described in the reader's language, group labels,
the panel's status lines, the end-of-turn question and what a play did.

The panel itself (its selects, options and their order) is bot.core.panel's; the words
here read the engine's Game and nothing above bot.texts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.texts.i18n import DEFAULT, N_, t, tn
from bot.texts.markup import OPTION_LIMIT, SELECT_OPTIONS, cut_end
from engine import Game
from renderer.i18n import card_name as _card_name

# A choice on a panel the game has moved on from (a second tap, another panel of the turn).
OUT_OF_DATE = N_(
    "This panel was out of date, so nothing was done; it now shows the game as it is. Choose again."
)


_SQUARE_WORDS = frozenset(f"{f}{r}" for f in "abcdefgh" for r in "12345678")


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


def _target(action: str) -> str | None:
    squares = [w for w in action.split() if w in _SQUARE_WORDS]
    return squares[-1] if squares else None


def _ranks(actions: Iterable[str], lang: str = DEFAULT) -> str:
    ranks = sorted({int(sq[1]) for a in actions if (sq := _target(a))})
    if not ranks:
        return ""
    if len(ranks) == 1:
        return t(lang, "rank {rank}", rank=ranks[0])
    return t(lang, "ranks {first}–{last}", first=ranks[0], last=ranks[-1])


def _fit(text: str, limit: int = OPTION_LIMIT) -> str:
    return cut_end(text, limit)


def _moves_text(moves: list[str], lang: str) -> str:
    if len(moves) > SELECT_OPTIONS:
        return t(lang, "Move a knight: the nearest squares")
    return t(lang, "Move a knight: choose")


def _choices(n: int, lang: str) -> str:
    return _fit(tn(lang, "{n} choice", "{n} choices", n))


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
