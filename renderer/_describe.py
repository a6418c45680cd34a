"""The position in words: the alt text of a picture (a Discord attachment's
description, read by screen readers and shown when the picture cannot load).

It says what the picture shows and nothing more: only the viewer's own hand is
named, and only when a viewer is given (as the picture would show it).
"""

from __future__ import annotations

from collections.abc import Callable

import engine
from engine.rules import ROUNDS

from ._model import DEFAULT_HIGHLIGHT_NOTE, PLAYER_COLOUR_NAMES, BoardView, PlayerView

#: Discord allows 1,024 characters in an attachment's description.
MAX_LENGTH = 1000


def title(view: BoardView) -> str:
    """The picture's title: Setup, Game over, or the phase and round of how many."""
    if view.stage == "over":
        return "Game over"
    if view.stage in ("castles", "place") or (view.stage == "king" and view.king is None):
        return "Setup"
    rounds = ROUNDS[len(view.players)][view.phase - 1]
    return f"Phase {view.phase} of 3 · Round {view.round} of {rounds}"


def shows_hand(view: BoardView, viewer: PlayerView) -> bool:
    """Whether the viewer's own hand is named: it is theirs to see, and there
    is something to say (no cards are dealt before play, so "no cards" in
    setup says nothing)."""
    return viewer.hand is not None and (bool(viewer.hand) or title(view) != "Setup")


def stage_line(view: BoardView, shown: Callable[[str], str] = str) -> tuple[str, PlayerView | None]:
    """Who is to do what (or who won), and the player it is about.

    *shown* turns a player name into the text used for it (the picture swaps
    characters its font lacks; the words keep names as they are).
    """
    v = view
    p = v.player(v.to_move) if v.to_move else None
    who = shown(p.label) if p else ""
    if v.stage == "over":
        winners = [q for q in v.players if q.is_winner]
        if len(winners) == 1:
            best = winners[0]
            return f"{shown(best.label)} wins with {best.score} points", best
        return f"{' and '.join(shown(q.label) for q in winners)} share the win", None
    if v.stage == "castles":
        return f"{who} places a starting castle block", p
    if v.stage == "place":
        return f"{who} places a knight on a starting castle", p
    if v.stage == "king":
        if v.king is None:
            return f"{who} places the king on a castle", p
        return f"Phase {v.phase} scored: {who} may move the king", p
    if v.stage == "draw-keep":
        return f"{who} to move: keep one of the drawn cards", p
    ap = f" · {v.turn_ap} AP left" if v.turn_ap is not None else ""
    return f"{who} to move{ap}", p


def describe_view(view: BoardView) -> str:
    """The alt text of ``view``'s picture, at most MAX_LENGTH characters.

    The sentences come in order of importance; when names are long, the
    less important ones (deck, master card help, highlight) are left out
    before anything is cut.
    """
    v = view
    variant = {"common": "common deck", "personal": "personal decks", "master": "master variant"}
    line, _ = stage_line(v)
    kind = variant.get(v.variant, v.variant)
    when = title(v).replace(" · Round", ", round")
    head = f"Torres board ({kind}). {when}: {line.replace(' · ', ', ')}."

    dealt = v.stage in ("play", "draw-keep")
    rows = []
    for name in v.order:
        p = v.player(name)
        bits = [f"{p.score} point" + ("" if p.score == 1 else "s")]
        if p.is_winner:
            bits.append("winner")
        on_board = len(p.knights)
        bits.append(f"{on_board} knight{'' if on_board == 1 else 's'} on the board")
        bits.append(f"{p.reserve} in reserve")
        if dealt and p.is_to_move:
            stacks = " and ".join(str(s) for s in p.stacks) or "none"
            bits.append(f"stacks {stacks}" if p.stacks else "no stacks")
            if v.turn_stack is not None:
                bits.append(f"this turn's stack {v.turn_stack}")
        if v.variant != "master" or p.hand_count:
            bits.append(f"{p.hand_count} card" + ("" if p.hand_count == 1 else "s"))
        if p.deck_count is not None:
            bits.append(f"{p.deck_count} in deck")
        look = f"{PLAYER_COLOUR_NAMES[p.seat % 4]} {p.shape}"
        rows.append(f"{p.label} ({look}): " + ", ".join(bits))
    ranking = "Ranking" if v.stage == "over" else "Players in turn order"
    players = f"{ranking}: " + "; ".join(rows) + "."
    short_players = (
        "Scores: " + ", ".join(f"{v.player(n).label} {v.player(n).score}" for n in v.order) + "."
    )

    if v.king is None:
        king = "The king is not placed yet."
    elif v.king_castle is not None:
        area = len(v.king_castle)
        height = max(v.heights[s] for s in v.king_castle)
        king = (
            f"The king is on {v.king}; the king's castle has {area} "
            f"square{'' if area == 1 else 's'}, {height} high."
        )
    else:
        king = f"The king is on {v.king}, outside any castle."

    extras = []
    if v.common_deck is not None and v.variant != "master":
        extras.append(f"Deck: {v.common_deck} cards left.")
    if v.master_card:
        name = engine.MASTER_CARDS.get(v.master_card, v.master_card)
        extras.append(f"Master card: {name}.")
    private = []
    viewer = v.player(v.viewer) if v.viewer else None
    if viewer is not None and viewer.revealed:
        private.append("Drawn, keep one: " + ", ".join(viewer.revealed) + ".")
    if viewer is not None and shows_hand(v, viewer):
        private.append(f"Your hand: {', '.join(sorted(viewer.hand)) or 'no cards'}.")
    highlight = []
    if v.highlight:
        squares = ", ".join(sorted(v.highlight, key=lambda s: (s[0], s[1])))
        highlight.append(
            f"Framed in pink ({v.highlight_note or DEFAULT_HIGHLIGHT_NOTE}): {squares}."
        )

    placed = []
    for name in v.order:
        p = v.player(name)
        if p.knights:
            at = ", ".join(f"{sq} ({v.heights.get(sq, 0)})" for sq in p.knights)
            placed.append(f"{p.label} at {at}")
    knights = ["Knights (level in brackets): " + "; ".join(placed) + "."] if placed else []

    for player_text in (players, short_players):
        parts = [head, player_text, king]
        for optional in (*private, *extras, *highlight, *knights):
            if len(" ".join([*parts, optional])) <= MAX_LENGTH:
                parts.append(optional)
        text = " ".join(parts)
        if len(text) <= MAX_LENGTH:
            return text
    return text[: MAX_LENGTH - 1].rstrip() + "…"
