"""Builders and assertions for the engine rules suite.

Everything here goes through the public contract only (NOTATION.md and the
team's agreed API): positions are plain ``torres-position/1`` dicts and games
are driven by ``Game.from_position``/``play``/``legal``.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

ACTION_CARDS = (
    "jump",
    "lift",
    "extra",
    "doorclimb",
    "diagonal",
    "ap6",
    "ap7",
    "moveblock",
    "relocate",
    "vault",
)
MASTER_CARDS = (
    "levels",
    "same-level",
    "row",
    "square",
    "border",
    "castles",
    "diagonal",
    "neighbors",
)
START_SQUARES = ("d1", "c3", "f3", "h4", "a5", "c6", "f6", "e8")
FILES = "abcdefgh"
SQUARES = tuple(f + str(r) for r in range(1, 9) for f in FILES)
FIELDS = (
    "format",
    "variant",
    "players",
    "stage",
    "phase",
    "round",
    "to_move",
    "phase_starter",
    "round_starter",
    "heights",
    "knights",
    "king",
    "scores",
    "stacks",
    "hands",
    "decks",
    "supply",
    "master_card",
    "seed",
    "turn",
)


def fresh_turn(
    ap: int = 5,
    stack: int | None = None,
    drawn: Iterable[str] = (),
    played: bool = False,
    revealed: Iterable[str] = (),
) -> dict[str, Any]:
    """A complete ``turn`` object, so no test depends on partial-turn defaults."""
    return {
        "ap": ap,
        "stack": stack,
        "drawn": list(drawn),
        "played": played,
        "revealed": list(revealed),
    }


class Pos:
    """Fluent builder for position dicts.

    Only what a test sets is written; everything else is left to the
    contract's defaults, except that ``decks`` defaults to an empty common
    deck (so ``draw`` never sneaks into legal-move sets) -- call
    ``deck(...)``/``decks(...)`` to give one.
    """

    def __init__(self, players: Iterable[str] = ("a", "b"), variant: str = "common") -> None:
        self.d: dict[str, Any] = {
            "format": "torres-position/1",
            "players": list(players),
            "variant": variant,
            "heights": {},
            "knights": {p: [] for p in players},
        }
        if variant == "master":
            self.d["decks"] = {}
        elif variant == "personal":
            self.d["decks"] = {p: [] for p in players}
        else:
            self.d["decks"] = {"common": []}

    # board ---------------------------------------------------------------
    def h(self, **heights: int) -> Pos:
        """Set square heights: ``.h(c3=1, d3=2)`` (0 removes the square)."""
        for sq, n in heights.items():
            if n:
                self.d["heights"][sq] = n
            else:
                self.d["heights"].pop(sq, None)
        return self

    def knights(self, player: str, *squares: str) -> Pos:
        self.d["knights"][player] = list(self.d["knights"].get(player, [])) + list(squares)
        return self

    def king(self, sq: str | None) -> Pos:
        self.d["king"] = sq
        return self

    # game state ----------------------------------------------------------
    def stage(self, stage: str) -> Pos:
        self.d["stage"] = stage
        return self

    def phase(self, phase: int, round: int = 1) -> Pos:  # noqa: A002 - notation name
        self.d["phase"] = phase
        self.d["round"] = round
        return self

    def to_move(self, player: str | None) -> Pos:
        self.d["to_move"] = player
        return self

    def starters(self, phase: str, round: str | None = None) -> Pos:  # noqa: A002
        self.d["phase_starter"] = phase
        self.d["round_starter"] = round if round is not None else phase
        return self

    def scores(self, **scores: int) -> Pos:
        s = {p: 0 for p in self.d["players"]}
        s.update(scores)
        self.d["scores"] = s
        return self

    def stacks(self, player: str, sizes: Iterable[int]) -> Pos:
        self.d.setdefault("stacks", {})[player] = list(sizes)
        return self

    def all_stacks(self, sizes: Iterable[int]) -> Pos:
        for p in self.d["players"]:
            self.stacks(p, sizes)
        return self

    def hand(self, player: str, *cards: str) -> Pos:
        self.d.setdefault("hands", {p: [] for p in self.d["players"]})[player] = list(cards)
        return self

    def deck(self, *cards: str, owner: str = "common") -> Pos:
        self.d["decks"][owner] = list(cards)
        return self

    def no_decks(self) -> Pos:
        self.d["decks"] = {}
        return self

    def supply(self, n: int) -> Pos:
        self.d["supply"] = n
        return self

    def master(self, card: str | None) -> Pos:
        self.d["master_card"] = card
        return self

    def turn(self, **kw: Any) -> Pos:
        self.d["turn"] = fresh_turn(**kw)
        return self

    def build(self) -> dict[str, Any]:
        return copy.deepcopy(self.d)

    def game(self):  # -> engine.Game
        from engine import Game

        return Game.from_position(self.build())


# assertions ---------------------------------------------------------------


def assert_illegal(game, text: str, *words: str) -> str:
    """``text`` raises IllegalAction, changes nothing, and the message names ``words``."""
    from engine import IllegalAction

    before = game.position()
    try:
        game.play(text)
    except IllegalAction as e:
        msg = str(e)
    else:
        raise AssertionError(f"{text!r} was accepted; expected IllegalAction")
    assert game.position() == before, f"{text!r} failed but changed the position"
    assert msg.strip(), "empty error message"
    assert "Traceback" not in msg
    low = msg.lower()
    for w in words:
        assert w.lower() in low, f"message {msg!r} does not mention {w!r}"
    return msg


def assert_malformed(game, text: str) -> str:
    from engine import NotationError

    before = game.position()
    try:
        game.play(text)
    except NotationError as e:
        msg = str(e)
    else:
        raise AssertionError(f"{text!r} was accepted; expected NotationError")
    assert game.position() == before, f"{text!r} was malformed but changed the position"
    assert msg.strip()
    return msg


def legal_set(game) -> set[str]:
    return set(game.legal())


def castles_of(heights: dict[str, int]) -> list[frozenset[str]]:
    """Independent reference: orthogonally connected squares of height >= 1."""
    todo = {sq for sq, n in heights.items() if n >= 1}
    out = []
    while todo:
        start = todo.pop()
        comp = {start}
        stack = [start]
        while stack:
            sq = stack.pop()
            for nb in neighbours(sq):
                if nb in todo:
                    todo.discard(nb)
                    comp.add(nb)
                    stack.append(nb)
        out.append(frozenset(comp))
    return out


def neighbours(sq: str) -> list[str]:
    f, r = FILES.index(sq[0]), int(sq[1])
    out = []
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nf, nr = f + df, r + dr
        if 0 <= nf < 8 and 1 <= nr <= 8:
            out.append(FILES[nf] + str(nr))
    return out


def blocks_total(pos: dict[str, Any]) -> int:
    turn = pos.get("turn") or {}
    return (
        sum(pos["heights"].values())
        + sum(sum(s) for s in pos["stacks"].values())
        + (turn.get("stack") or 0)
        + pos["supply"]
    )


# command line -------------------------------------------------------------


def run_cli(
    *args: str,
    stdin: bytes | str | None = None,
    timeout: float = 60,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """Run ``python -m engine ARGS`` from the repository root, as the contract says."""
    if isinstance(stdin, str):
        stdin = stdin.encode()
    full_env = dict(os.environ)
    full_env.pop("PYTHONPATH", None)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=REPO,
        input=stdin,
        capture_output=True,
        timeout=timeout,
        env=full_env,
    )


def cli_json(proc: subprocess.CompletedProcess) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return json.loads(proc.stdout)
