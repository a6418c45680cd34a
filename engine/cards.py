"""Card ids, their English names and one-line effects (docs/rules.md §6 and §8)."""

from __future__ import annotations

CARDS: dict[str, str] = {
    "jump": "Jump up two levels",
    "lift": "Block under a knight",
    "extra": "Extra block",
    "doorclimb": "Door climb",
    "diagonal": "Diagonal move",
    "ap6": "6 action points",
    "ap7": "7 action points",
    "moveblock": "Move a tower block",
    "relocate": "Relocate a knight",
    "vault": "Jump over a knight",
}

CARD_HELP: dict[str, str] = {
    "jump": "One of your knights moves to an orthogonally adjacent empty square "
    "exactly two levels higher (for example from level 1 to level 3): play jump A B.",
    "lift": "Put a block from one of your stacks under one of your knights: "
    "play lift A K (from a stack of K blocks) or play lift A turn (from this turn's stack).",
    "extra": "Place one more block, taken from the common supply, by the usual "
    "building rules: play extra SQ.",
    "doorclimb": "A door passage with no level limit: the knight may come out higher "
    "than it went in: play doorclimb A B.",
    "diagonal": "One of your knights moves to a diagonally adjacent empty square "
    "at most one level higher (any number lower): play diagonal A B.",
    "ap6": "You have one more action point this turn: play ap6.",
    "ap7": "You have two more action points this turn: play ap7.",
    "moveblock": "Move the top block of a square with no piece on it to another empty "
    "square, without splitting or joining castles: play moveblock A B.",
    "relocate": "Move one of your knights to any square where you could add a knight "
    "next to one of your other knights: play relocate A B.",
    "vault": "One of your knights jumps in a straight line over an adjacent knight "
    "(not the king), landing at most one level higher: play vault A B.",
}

MASTER_CARDS: dict[str, str] = {
    "levels": "Different levels",
    "same-level": "Same level",
    "row": "In a row",
    "square": "Square",
    "border": "Border",
    "castles": "Castles",
    "diagonal": "Diagonals",
    "neighbors": "Neighbours",
}

MASTER_CARD_HELP: dict[str, str] = {
    "levels": "After phase 3: all your knights (at least 2) on different levels: 40 points.",
    "same-level": "After phase 3: all your knights (at least 2) on the same level: 50 points.",
    "row": "After phase 3: all your knights (at least 2) on one rank or one file: 50 points.",
    "square": "After phase 3: four of your knights on the corners of a square "
    "(of any size, tilted squares too): 50 points, once.",
    "border": "After each phase: 2 / 5 / 10 points per knight on an edge square, and as much "
    "again for the player with the most such knights (no tie).",
    "castles": "After phase 1 / 2 / 3: knights on exactly 4 / 5 / 6 different castles "
    "(level 1 or more): 5 / 15 / 30 points.",
    "diagonal": "After each phase: 2 / 5 / 10 points per knight on the a1-h8 or a8-h1 "
    "diagonal, and as much again for the player with the most such knights (no tie).",
    "neighbors": "After phase 3: all your knights (at least 2) form one orthogonally "
    "connected group: 40 points.",
}

# Card ids in a fixed order: the order of a fresh personal deck before shuffling.
CARD_IDS: tuple[str, ...] = tuple(CARDS)
MASTER_IDS: tuple[str, ...] = tuple(MASTER_CARDS)
