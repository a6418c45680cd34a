"""Turn a position dict into the plain facts the picture shows.

The engine reads and validates the position (so bad input gets the engine's
message) and answers every rules question (castles, winners); this module only
selects and arranges what is drawn, and makes sure only the viewer's own hand
is ever passed on by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import engine

from .geometry import square_coords
from .i18n import LANGUAGES, N_, colour_name

#: Okabe–Ito colours, safe for the common kinds of colour blindness, by seat.
PLAYER_COLOURS: tuple[tuple[int, int, int], ...] = (
    (213, 94, 0),  # vermillion
    (86, 180, 233),  # sky blue (Okabe–Ito blue is too close to the green for tritans)
    (0, 158, 115),  # bluish green
    (240, 228, 66),  # yellow
)
#: The colours in words, by seat.
PLAYER_COLOUR_NAMES: tuple[str, ...] = ("red-orange", "sky-blue", "green", "yellow")
#: Each seat's colour and shape in words (alt text), one message each: other
#: languages inflect the colour with the shape's gender.
PLAYER_LOOKS: tuple[str, ...] = (
    N_("red-orange circle"),
    N_("sky-blue square"),
    N_("green triangle"),
    N_("yellow diamond"),
)
#: Text colour on each player colour (black on the light ones).
PLAYER_INKS: tuple[tuple[int, int, int], ...] = (
    (255, 255, 255),
    (0, 0, 0),
    (255, 255, 255),
    (0, 0, 0),
)
#: Marker shapes by seat: colour is never the only cue.
PLAYER_SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "diamond")
#: What the highlight means when the caller does not say.
DEFAULT_HIGHLIGHT_NOTE = N_("changed last turn")
#: What a viewer's position (NOTATION.md) puts in place of a card they may not see.
HIDDEN = "hidden"


@dataclass(frozen=True)
class PlayerView:
    name: str
    #: What the picture and the words call the player: the caller's label (e.g. a
    #: Discord display name) or else the engine's name (a colour: in the picture's language).
    label: str
    seat: int
    colour: tuple[int, int, int]
    ink: tuple[int, int, int]
    shape: str
    letter: str
    score: int
    knights: tuple[str, ...]
    reserve: int
    stacks: tuple[int, ...]
    hand_count: int
    #: Card ids, only for the viewer's own hand; None for everybody else.
    hand: tuple[str, ...] | None
    #: Of ``hand``, the cards drawn this turn (they may not be played this turn).
    drawn: tuple[str, ...]
    #: The viewer's revealed cards awaiting ``keep`` (personal decks), else ().
    revealed: tuple[str, ...]
    #: Cards left in this player's personal deck (personal variant), else None.
    deck_count: int | None
    is_to_move: bool
    is_winner: bool


@dataclass(frozen=True)
class BoardView:
    variant: str
    stage: str
    phase: int
    round: int
    players: tuple[PlayerView, ...]  # seat order
    order: tuple[str, ...]  # turn order of the current round (ranking when over)
    to_move: str | None
    viewer: str | None
    heights: Mapping[str, int]
    king: str | None
    castles: tuple[frozenset[str], ...]
    king_castle: frozenset[str] | None
    turn_ap: int | None
    turn_stack: int | None
    common_deck: int | None
    supply: int | None
    master_card: str | None
    highlight: frozenset[str]
    #: What the highlight means in this picture, for the legend (None: a default).
    highlight_note: str | None = None
    #: The language of every word in the picture and its alt text ("en", "de", "nl").
    language: str = "en"

    def player(self, name: str) -> PlayerView:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def occupant(self, square: str) -> PlayerView | None:
        for p in self.players:
            if square in p.knights:
                return p
        return None


def build_view(
    position: Mapping[str, Any],
    viewer: str | None = None,
    highlight: Iterable[str] | None = None,
    *,
    highlight_note: str | None = None,
    labels: Mapping[str, str] | None = None,
    language: str = "en",
) -> BoardView:
    """Validate ``position`` through the engine and collect what the picture needs.

    :raises ValueError: (the engine's ``NotationError`` included) for an
        impossible position, an unknown viewer, a bad highlight square or a
        language the picture does not speak.
    """
    if language not in LANGUAGES:
        raise ValueError(f"Unknown language {language!r}: use {', '.join(LANGUAGES)}.")
    if not isinstance(position, Mapping):
        raise ValueError("The position must be a JSON object.")
    readable, hidden_hands, hidden_turn = _unhide(position)
    game = engine.Game.from_position(readable)
    names = list(game.players)
    if viewer is not None and viewer not in names:
        raise ValueError(f"Unknown viewer {viewer!r}: the players are {', '.join(names)}.")
    pos = game.position()

    marks: set[str] = set()
    for square in highlight or ():
        if not isinstance(square, str):
            raise ValueError(f"Highlight squares must be names like 'e4', not {square!r}.")
        square_coords(square.strip().lower())
        marks.add(square.strip().lower())

    heights = {sq: int(h) for sq, h in (pos.get("heights") or {}).items() if int(h) > 0}
    knights = pos.get("knights") or {}
    hands = pos.get("hands") or {}
    stacks = pos.get("stacks") or {}
    decks = pos.get("decks") or {}
    scores = game.scores
    stage = game.stage
    winners = set(game.winners) if stage == "over" else set()
    given = [_label(labels, name) for name in names]
    # A seat without a label is named by its colour in the picture's language; its
    # letter comes from the label or seat id, so the map is the same in every language.
    shown_as = [
        colour_name(language, name) if label == name else label
        for name, label in zip(names, given, strict=True)
    ]
    letters = _letters(given)

    turn = pos.get("turn") or {}
    # The turn's cards are shown only to the player whose turn it is, when the
    # position given to us did not hide them.
    sees_turn = (
        viewer is not None
        and viewer == game.to_move
        and viewer not in hidden_hands
        and not hidden_turn
    )
    players = []
    for seat, name in enumerate(names):
        own = knights.get(name) or []
        personal = decks.get(name)
        players.append(
            PlayerView(
                name=name,
                label=shown_as[seat],
                seat=seat,
                colour=PLAYER_COLOURS[seat % 4],
                ink=PLAYER_INKS[seat % 4],
                shape=PLAYER_SHAPES[seat % 4],
                letter=letters[seat],
                score=int(scores.get(name, 0)),
                knights=tuple(sorted(own)),
                reserve=6 - len(own),
                stacks=tuple(int(s) for s in stacks.get(name) or ()),
                hand_count=len(hands.get(name) or ()),
                hand=tuple(hands.get(name) or ())
                if name == viewer and name not in hidden_hands
                else None,
                drawn=tuple(turn.get("drawn") or ()) if sees_turn and name == viewer else (),
                revealed=tuple(turn.get("revealed") or ()) if sees_turn and name == viewer else (),
                deck_count=len(personal) if isinstance(personal, list) else None,
                is_to_move=name == game.to_move,
                is_winner=name in winners,
            )
        )

    if stage == "over":
        order = tuple(sorted(names, key=lambda n: (-int(scores.get(n, 0)), names.index(n))))
    else:
        starter = pos.get("round_starter") or names[0]
        i = names.index(starter) if starter in names else 0
        order = tuple(names[i:] + names[:i])

    castles = tuple(
        sorted(
            (frozenset(c) for c in engine.castles(heights)),
            key=lambda c: min(_reading_order(s) for s in c),
        )
    )
    king = pos.get("king")
    king_castle = next((c for c in castles if king in c), None)
    common = decks.get("common")
    return BoardView(
        variant=game.variant,
        stage=stage,
        phase=int(game.phase),
        round=int(game.round),
        players=tuple(players),
        order=order,
        to_move=game.to_move,
        viewer=viewer,
        heights=heights,
        king=king,
        castles=castles,
        king_castle=king_castle,
        turn_ap=turn.get("ap") if stage in ("play", "draw-keep") else None,
        turn_stack=turn.get("stack") if stage in ("play", "draw-keep") else None,
        common_deck=len(common) if isinstance(common, list) else None,
        supply=pos.get("supply"),
        master_card=pos.get("master_card"),
        highlight=frozenset(marks),
        highlight_note=_note(highlight_note),
        language=language,
    )


def _note(note: Any) -> str | None:
    """The highlight note as one line (None or blank: the default)."""
    if note is None:
        return None
    if not isinstance(note, str):
        raise ValueError(f"The highlight note must be text, not {type(note).__name__}.")
    return " ".join(note.split()) or None


def _unhide(position: Mapping[str, Any]) -> tuple[dict[str, Any], set[str], bool]:
    """Let the engine read a viewer's position (NOTATION.md), whose unseen cards
    are the string "hidden": stand some card in for each one, keeping the counts.

    The stand-ins are never drawn: only the viewer's own hand is named, and a
    hand that holds any "hidden" is reported back so it is never named at all.
    """
    d = dict(position)
    stand_in = next(iter(engine.CARDS))
    hidden_hands: set[str] = set()

    def swap(cards: Any) -> Any:
        if isinstance(cards, list) and HIDDEN in cards:
            return [stand_in if c == HIDDEN else c for c in cards]
        return cards

    hands = d.get("hands")
    if isinstance(hands, Mapping):
        hidden_hands = {
            p for p, cards in hands.items() if isinstance(cards, list) and HIDDEN in cards
        }
        d["hands"] = {p: swap(cards) for p, cards in hands.items()}
    decks = d.get("decks")
    if isinstance(decks, Mapping):
        d["decks"] = {k: swap(cards) for k, cards in decks.items()}
    turn = d.get("turn")
    hidden_turn = False
    if isinstance(turn, Mapping):
        hidden_turn = any(
            isinstance(turn.get(k), list) and HIDDEN in turn[k] for k in ("drawn", "revealed")
        )
        d["turn"] = {k: swap(v) if k in ("drawn", "revealed") else v for k, v in turn.items()}
    return d, hidden_hands, hidden_turn


def _label(labels: Mapping[str, str] | None, name: str) -> str:
    """The caller's label for *name*, one line of at most 40 characters."""
    if not labels or name not in labels:
        return name
    label = labels[name]
    if not isinstance(label, str):
        raise ValueError(f"A player's label must be text, not {type(label).__name__}.")
    label = " ".join(label.split())[:40].rstrip()
    return label or name


def _letters(names: list[str]) -> list[str]:
    """One letter per player: initials when they are distinct, else seat numbers."""
    initials = [(n[:1] or "?").upper() for n in names]
    # ASCII only: the shipped font has every ASCII letter and digit.
    if len(set(initials)) == len(initials) and all(i.isascii() and i.isalnum() for i in initials):
        return initials
    return [str(i + 1) for i in range(len(names))]


def _reading_order(square: str) -> tuple[int, int]:
    """Top-left first, as a reader scans the map (rank 8 first, then file a first)."""
    f, r = square_coords(square)
    return (-r, f)
