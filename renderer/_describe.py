"""The position in words: the alt text of a picture (a Discord attachment's
description, read by screen readers and shown when the picture cannot load).

It says what the picture shows and nothing more: only the viewer's own hand is
named, and only when a viewer is given (as the picture would show it).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.rules import ROUNDS

from ._model import DEFAULT_HIGHLIGHT_NOTE, PLAYER_LOOKS, BoardView, PlayerView
from .i18n import N_, card_name, master_card_name, t, tn

#: Discord allows 1,024 characters in an attachment's description.
MAX_LENGTH = 1000

#: The variants in words, for the alt text's first sentence.
VARIANT_NAMES = {
    "common": N_("common deck"),
    "personal": N_("personal decks"),
    "master": N_("master variant"),
}


def is_setup(view: BoardView) -> bool:
    """Before the first turn: castles, knights and the king being placed."""
    return view.stage in ("castles", "place") or (view.stage == "king" and view.king is None)


def title(view: BoardView, *, spoken: bool = False) -> str:
    """The picture's title: Setup, Game over, or the phase and round of how many.

    *spoken*: the same for the alt text, where a comma reads better than "·".
    """
    lang = view.language
    if view.stage == "over":
        return t(lang, "Game over")
    if is_setup(view):
        return t(lang, "Setup")
    rounds = ROUNDS[len(view.players)][view.phase - 1]
    if spoken:
        return t(
            lang,
            "Phase {phase} of 3, round {round} of {rounds}",
            phase=view.phase,
            round=view.round,
            rounds=rounds,
        )
    return t(
        lang,
        "Phase {phase} of 3 · Round {round} of {rounds}",
        phase=view.phase,
        round=view.round,
        rounds=rounds,
    )


def shows_hand(view: BoardView, viewer: PlayerView) -> bool:
    """Whether the viewer's own hand is named: it is theirs to see, and there
    is something to say (no cards are dealt before play, so "no cards" in
    setup says nothing)."""
    return viewer.hand is not None and (bool(viewer.hand) or not is_setup(view))


def joined(lang: str, names: list[str]) -> str:
    """Names as a list in words: "A and B", "A and B and C"."""
    text = names[0] if names else ""
    for name in names[1:]:
        text = t(lang, "{first} and {second}", first=text, second=name)
    return text


def stage_line(
    view: BoardView, shown: Callable[[str], str] = str, *, spoken: bool = False
) -> tuple[str, PlayerView | None]:
    """Who is to do what (or who won), and the player it is about.

    *shown* turns a player name into the text used for it (the picture swaps
    characters its font lacks; the words keep names as they are). *spoken*:
    for the alt text, a comma instead of the picture's "·".
    """
    v = view
    lang = v.language
    p = v.player(v.to_move) if v.to_move else None
    who = shown(p.label) if p else ""
    if v.stage == "over":
        winners = [q for q in v.players if q.is_winner]
        if len(winners) == 1:
            best = winners[0]
            line = tn(
                lang,
                "{name} wins with {n} point",
                "{name} wins with {n} points",
                best.score,
                name=shown(best.label),
            )
            return line, best
        names = joined(lang, [shown(q.label) for q in winners])
        return t(lang, "{names} share the win", names=names), None
    if v.stage == "castles":
        return t(lang, "{who} places a starting castle block", who=who), p
    if v.stage == "place":
        return t(lang, "{who} places a knight on a starting castle", who=who), p
    if v.stage == "king":
        if v.king is None:
            return t(lang, "{who} places the king on a castle", who=who), p
        return t(lang, "Phase {phase} scored: {who} may move the king", phase=v.phase, who=who), p
    if v.stage == "draw-keep":
        return t(lang, "{who} to move: keep one of the drawn cards", who=who), p
    if v.turn_ap is None:
        return t(lang, "{who} to move", who=who), p
    if spoken:
        return t(lang, "{who} to move, {ap} AP left", who=who, ap=v.turn_ap), p
    return t(lang, "{who} to move · {ap} AP left", who=who, ap=v.turn_ap), p


def stack_words(view: BoardView, p: PlayerView) -> list[str]:
    """The block stacks of the player to move, in the one wording the picture, its
    alt text and the bot's panel share: "stacks: 3, 2", "this turn's stack: 1 block"."""
    lang = view.language
    sizes = ", ".join(str(s) for s in p.stacks) or t(lang, "none")
    words = [t(lang, "stacks: {sizes}", sizes=sizes)]
    if view.turn_stack is not None:
        words.append(
            tn(
                lang,
                "this turn's stack: {n} block",
                "this turn's stack: {n} blocks",
                view.turn_stack,
            )
        )
    return words


def describe_view(view: BoardView) -> str:
    """The alt text of ``view``'s picture, at most MAX_LENGTH characters.

    The sentences come in order of importance; when names are long, the
    less important ones (deck, master card help, highlight) are left out
    before anything is cut.
    """
    v = view
    lang = v.language
    line, _ = stage_line(v, spoken=True)
    kind = t(lang, VARIANT_NAMES[v.variant]) if v.variant in VARIANT_NAMES else v.variant
    head = t(
        lang,
        "Torres board ({kind}). {when}: {line}.",
        kind=kind,
        when=title(v, spoken=True),
        line=line,
    )

    dealt = v.stage in ("play", "draw-keep")
    rows = []
    for name in v.order:
        p = v.player(name)
        bits = [tn(lang, "{n} point", "{n} points", p.score)]
        if p.is_winner:
            bits.append(t(lang, "winner"))
        on_board = len(p.knights)
        bits.append(tn(lang, "{n} knight on the board", "{n} knights on the board", on_board))
        bits.append(t(lang, "{n} in reserve", n=p.reserve))
        if dealt and p.is_to_move:
            bits.extend(stack_words(v, p))
        if v.variant != "master" or p.hand_count:
            bits.append(tn(lang, "{n} card", "{n} cards", p.hand_count))
        if p.deck_count is not None:
            bits.append(t(lang, "{n} in deck", n=p.deck_count))
        look = t(lang, PLAYER_LOOKS[p.seat % 4])
        rows.append(f"{p.label} ({look}): " + ", ".join(bits))
    if v.stage == "over":
        players = t(lang, "Ranking: {rows}.", rows="; ".join(rows))
    else:
        players = t(lang, "Players in turn order: {rows}.", rows="; ".join(rows))
    scores = ", ".join(f"{v.player(n).label} {v.player(n).score}" for n in v.order)
    short_players = t(lang, "Scores: {scores}.", scores=scores)

    if v.king is None:
        king = t(lang, "The king is not placed yet.")
    elif v.king_castle is not None:
        area = len(v.king_castle)
        height = max(v.heights[s] for s in v.king_castle)
        king = tn(
            lang,
            "The king is on {square}; the king's castle has {n} square, {height} high.",
            "The king is on {square}; the king's castle has {n} squares, {height} high.",
            area,
            square=v.king,
            height=height,
        )
    else:
        king = t(lang, "The king is on {square}, outside any castle.", square=v.king)

    extras = []
    if v.common_deck is not None and v.variant != "master":
        extras.append(tn(lang, "Deck: {n} card left.", "Deck: {n} cards left.", v.common_deck))
    if v.master_card:
        name = master_card_name(lang, v.master_card)
        extras.append(t(lang, "Master card: {name}.", name=name))
    private = []
    viewer = v.player(v.viewer) if v.viewer else None
    if viewer is not None and viewer.revealed:
        cards = ", ".join(card_name(lang, c) for c in viewer.revealed)
        private.append(t(lang, "Drawn, keep one: {cards}.", cards=cards))
    if viewer is not None and shows_hand(v, viewer):
        if viewer.hand:
            cards = ", ".join(sorted(card_name(lang, c) for c in viewer.hand))
            private.append(t(lang, "Your hand: {cards}.", cards=cards))
        else:
            private.append(t(lang, "Your hand: no cards."))
    highlight = []
    if v.highlight:
        squares = ", ".join(sorted(v.highlight, key=lambda s: (s[0], s[1])))
        note = v.highlight_note or t(lang, DEFAULT_HIGHLIGHT_NOTE)
        highlight.append(t(lang, "Framed in pink ({note}): {squares}.", note=note, squares=squares))

    placed = []
    for name in v.order:
        p = v.player(name)
        if p.knights:
            at = ", ".join(f"{sq} ({v.heights.get(sq, 0)})" for sq in p.knights)
            placed.append(t(lang, "{name} at {squares}", name=p.label, squares=at))
    knights = []
    if placed:
        knights.append(t(lang, "Knights (level in brackets): {list}.", list="; ".join(placed)))

    for player_text in (players, short_players):
        parts = [head, player_text, king]
        for optional in (*private, *extras, *highlight, *knights):
            if len(" ".join([*parts, optional])) <= MAX_LENGTH:
                parts.append(optional)
        text = " ".join(parts)
        if len(text) <= MAX_LENGTH:
            return text
    return text[: MAX_LENGTH - 1].rstrip() + "…"
