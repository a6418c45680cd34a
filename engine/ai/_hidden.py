"""Sampling what a player cannot see ("determinization").

A computer player only ever reads ``game.position(viewer=me)``. Every card shown
there as ``"hidden"`` (other players' hands, every deck) is replaced by a card drawn
at random from the cards that player cannot account for, and the search then plays
on ``Game.from_position`` of that sample. Different samples stand for the different
worlds the player cannot tell apart.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

HIDDEN = "hidden"


def _kinds() -> list[str]:
    from engine import CARDS

    return list(CARDS)


def _draw(pool: list[str], n: int, rng: random.Random) -> list[str]:
    """n cards without replacement from pool (with replacement if pool is too small)."""
    if n <= 0:
        return []
    if n <= len(pool):
        return rng.sample(pool, n)
    if not pool:
        pool = _kinds()
    return [rng.choice(pool) for _ in range(n)]


def sample_position(view: dict[str, Any], me: str, rng: random.Random) -> dict[str, Any]:
    """A full position consistent with what *me* sees in *view*.

    *view* is ``position(viewer=me)``; it is not modified.
    """
    pos = copy.deepcopy(view)
    kinds = _kinds()
    variant = pos.get("variant", "common")
    players = pos["players"]
    hands: dict[str, list[str]] = pos.setdefault("hands", {})
    decks: dict[str, list[str]] = pos.setdefault("decks", {})
    turn = pos.get("turn") or {}
    own_known = [c for c in hands.get(me, []) if c != HIDDEN]
    own_known += [c for c in (turn.get("revealed") or []) if c != HIDDEN]

    def fill(cards: list[str], values: list[str]) -> list[str]:
        it = iter(values)
        return [next(it) if c == HIDDEN else c for c in cards]

    if variant == "personal":
        # Every player's hand and deck hold distinct kinds of that player's colour.
        for p in players:
            hand = hands.get(p, [])
            deck = decks.get(p, [])
            known = own_known if p == me else [c for c in hand if c != HIDDEN]
            pool = list((Counter(kinds) - Counter(known)).elements())
            need = sum(1 for c in hand if c == HIDDEN) + sum(1 for c in deck if c == HIDDEN)
            values = _draw(pool, need, rng)
            n_hand = sum(1 for c in hand if c == HIDDEN)
            hands[p] = fill(hand, values[:n_hand])
            if p in decks:
                decks[p] = fill(deck, values[n_hand:])
    elif variant == "master":
        for p in players:
            if p == me:
                continue
            hand = hands.get(p, [])
            known = [c for c in hand if c != HIDDEN]
            pool = list((Counter(kinds) - Counter(known)).elements())
            hands[p] = fill(hand, _draw(pool, hand.count(HIDDEN), rng))
    else:
        pool = list((Counter({k: 4 for k in kinds}) - Counter(own_known)).elements())
        slots: list[tuple[str, str]] = []
        for p in players:
            slots += [("hand", p)] * hands.get(p, []).count(HIDDEN)
        for name, deck in decks.items():
            slots += [("deck", name)] * deck.count(HIDDEN)
        values = _draw(pool, len(slots), rng)
        by_slot: dict[tuple[str, str], list[str]] = {}
        for slot, card in zip(slots, values, strict=True):
            by_slot.setdefault(slot, []).append(card)
        for p in players:
            if p in hands:
                hands[p] = fill(hands[p], by_slot.get(("hand", p), []))
        for name in list(decks):
            decks[name] = fill(decks[name], by_slot.get(("deck", name), []))
    for key in ("drawn", "revealed"):
        if turn.get(key) and HIDDEN in turn[key]:
            turn[key] = fill(turn[key], _draw(kinds, turn[key].count(HIDDEN), rng))
    if pos.get("seed") is None:
        pos["seed"] = rng.randrange(2**31)
    return pos


def sample_game(game: Any, me: str, rng: random.Random, view: dict[str, Any] | None = None) -> Any:
    """A game consistent with what *me* sees, to search on instead of *game*."""
    from engine import Game

    if view is None:
        view = game.position(viewer=me)
    return Game.from_position(sample_position(view, me, rng))
