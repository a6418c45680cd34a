"""An independent, deliberately plain reference for ``legal()``, written from RULES.md.

It reads only the position dict (NOTATION.md) and follows the rule text line by
line, with no caching or cleverness, so that comparing it with the engine on
thousands of random positions catches move-generation bugs the hand-worked
sets cannot.  Slow is fine; wrong is not.
"""

from __future__ import annotations

from typing import Any

FILES = "abcdefgh"
SQUARES = [f + str(r) for r in range(1, 9) for f in FILES]
ORTH_D = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG_D = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def shift(sq: str, df: int, dr: int) -> str | None:
    f = FILES.index(sq[0]) + df
    r = int(sq[1]) + dr
    if 0 <= f < 8 and 1 <= r <= 8:
        return FILES[f] + str(r)
    return None


def orth(sq: str) -> list[str]:
    return [t for d in ORTH_D if (t := shift(sq, *d))]


def diag(sq: str) -> list[str]:
    return [t for d in DIAG_D if (t := shift(sq, *d))]


def components(h: dict[str, int]) -> dict[str, int]:
    """square -> castle index, for squares of height >= 1."""
    comp: dict[str, int] = {}
    n = 0
    for sq in SQUARES:
        if h.get(sq, 0) >= 1 and sq not in comp:
            stack = [sq]
            comp[sq] = n
            while stack:
                s = stack.pop()
                for t in orth(s):
                    if h.get(t, 0) >= 1 and t not in comp:
                        comp[t] = n
                        stack.append(t)
            n += 1
    return comp


class Board:
    def __init__(self, h: dict[str, int]) -> None:
        self.h = {sq: h.get(sq, 0) for sq in SQUARES}
        self.comp = components(self.h)
        self.n = len(set(self.comp.values()))
        self.area = [0] * self.n
        self.height = [0] * self.n
        for sq, c in self.comp.items():
            self.area[c] += 1
            self.height[c] = max(self.height[c], self.h[sq])

    def touching(self, sq: str) -> set[int]:
        return {self.comp[t] for t in orth(sq) if t in self.comp}

    def block_ok(self, sq: str) -> bool:
        """§4 place a block (pieces aside)."""
        if self.h[sq] > 0:
            c = self.comp[sq]
            return max(self.height[c], self.h[sq] + 1) <= self.area[c]
        t = self.touching(sq)
        if len(t) != 1:
            return False
        (c,) = t
        return self.height[c] <= self.area[c] + 1

    def door_exits(self, s: str, climb_limit: bool) -> set[str]:
        """§4 doors / §6 doorclimb, squares only (emptiness checked by the caller)."""
        level = self.h[s]
        out: set[str] = set()
        entered = {self.comp[t] for t in orth(s) if t in self.comp and self.h[t] > level}
        for c in entered:
            for u, cu in self.comp.items():
                if cu != c:
                    continue
                for v in orth(u):
                    if v == s:
                        continue
                    if self.h[u] > self.h[v] and (not climb_limit or self.h[v] <= level):
                        out.add(v)
        return out


def reference_legal(pos: dict[str, Any]) -> list[str]:
    stage = pos["stage"]
    board = Board(pos["heights"])
    h = board.h
    pieces = {sq for squares in pos["knights"].values() for sq in squares}
    if pos.get("king"):
        pieces.add(pos["king"])

    def empty(sq: str) -> bool:
        return sq not in pieces

    if stage == "over":
        return []
    if stage == "draw-keep":
        return sorted(
            f"keep {c} {w}" for c in set(pos["turn"]["revealed"]) for w in ("top", "bottom")
        )
    if stage == "castles":
        placed = [sq for sq in SQUARES if h[sq] > 0]
        if pos["supply"] <= 0:
            return []

        def far(sq: str, gap: int) -> bool:
            return all(
                abs(FILES.index(sq[0]) - FILES.index(p[0])) + abs(int(sq[1]) - int(p[1])) >= gap
                for p in placed
            )

        # RULES §2: distance >= 3; docs/rules.md ruling 10: >= 2 only if nothing is 3 away.
        for gap in (3, 2):
            found = [f"castle {sq}" for sq in SQUARES if h[sq] == 0 and empty(sq) and far(sq, gap)]
            if found:
                return sorted(found)
        return []
    knighted = {board.comp[sq] for sq in pieces if sq in board.comp and sq != pos.get("king")}
    if stage == "place":
        return sorted(
            f"place {sq}" for sq in SQUARES if h[sq] > 0 and board.comp[sq] not in knighted
        )
    if stage == "king":
        # the setup's placement; any other king stage, king or none, follows a scoring
        if pos.get("king") is None and (pos.get("phase", 1), pos.get("round", 1)) == (1, 1):
            return sorted(
                f"king {sq}"
                for sq in SQUARES
                if h[sq] > 0 and empty(sq) and board.comp[sq] not in knighted
            )
        return sorted([f"king {sq}" for sq in SQUARES if h[sq] > 0 and empty(sq)] + ["king pass"])
    assert stage == "play", stage
    return sorted(_play(pos, board, pieces))


def _play(pos: dict[str, Any], board: Board, pieces: set[str]) -> set[str]:
    h = board.h
    me = pos["to_move"]
    turn = pos["turn"]
    ap = turn["ap"]
    tstack = turn["stack"]
    stacks = pos["stacks"][me]
    mine = list(pos["knights"][me])
    king = pos.get("king")

    def empty(sq: str) -> bool:
        return sq not in pieces

    out = {"end"}
    if tstack is None:
        out |= {f"stack {k}" for k in stacks}
    if ap >= 1:
        out.add("score")
        if pos["variant"] != "master" and len(turn["drawn"]) < 2:
            deck = pos["decks"].get("common" if pos["variant"] == "common" else me, [])
            if deck:
                out.add("draw")
        has_block = (tstack is not None and tstack > 0) or (
            tstack is None and stacks and max(stacks) > 0
        )
        if has_block:
            out |= {f"build {sq}" for sq in SQUARES if empty(sq) and board.block_ok(sq)}
        for a in mine:
            level = h[a]
            for b in orth(a):
                if empty(b) and h[b] <= level + 1:
                    out.add(f"move {a} {b}")
            for b in board.door_exits(a, climb_limit=True):
                if empty(b):
                    out.add(f"move {a} {b}")
    if ap >= 2 and len(mine) < 6:
        for k in mine:
            for t in orth(k):
                if empty(t) and h[t] <= h[k]:
                    out.add(f"knight {t}")
    if turn["played"]:
        return out
    hand = pos["hands"][me]
    drawn = turn["drawn"]
    for card in set(hand):
        if hand.count(card) <= drawn.count(card):
            continue
        out |= _card(card, pos, board, pieces, mine, stacks, tstack, king)
    return out


def _card(card, pos, board: Board, pieces, mine, stacks, tstack, king) -> set[str]:
    h = board.h

    def empty(sq: str) -> bool:
        return sq not in pieces

    out: set[str] = set()
    if card in ("ap6", "ap7"):
        out.add(f"play {card}")
    elif card == "jump":
        for a in mine:
            out |= {f"play jump {a} {b}" for b in orth(a) if empty(b) and h[b] == h[a] + 2}
    elif card == "diagonal":
        for a in mine:
            out |= {f"play diagonal {a} {b}" for b in diag(a) if empty(b) and h[b] <= h[a] + 1}
    elif card == "vault":
        knights = {sq for squares in pos["knights"].values() for sq in squares}
        for a in mine:
            for d in ORTH_D:
                over = shift(a, *d)
                land = shift(a, 2 * d[0], 2 * d[1])
                if over and land and over in knights and empty(land) and h[land] <= h[a] + 1:
                    out.add(f"play vault {a} {land}")
    elif card == "doorclimb":
        for a in mine:
            out |= {
                f"play doorclimb {a} {b}"
                for b in board.door_exits(a, climb_limit=False)
                if empty(b)
            }
    elif card == "relocate":
        for a in mine:
            for k in mine:
                if k == a:
                    continue
                for t in orth(k):
                    if empty(t) and h[t] <= h[k]:
                        out.add(f"play relocate {a} {t}")
    elif card == "lift":
        sources = (["turn"] if tstack else []) + [str(k) for k in sorted(set(stacks)) if k > 0]
        for a in mine:
            if h[a] > 0:
                c = board.comp[a]
                ok = max(board.height[c], h[a] + 1) <= board.area[c]
            else:
                ok = len(board.touching(a)) <= 1
            if ok:
                out |= {f"play lift {a} {src}" for src in sources}
    elif card == "extra":
        if pos["supply"] > 0:
            out |= {f"play extra {sq}" for sq in SQUARES if empty(sq) and board.block_ok(sq)}
    elif card == "moveblock":
        out |= _moveblock(board, pieces)
    return out


def _moveblock(board: Board, pieces: set[str]) -> set[str]:
    """§6 moveblock, judged on the board afterwards: lift the block off, then set it down."""
    out: set[str] = set()
    h = board.h
    for a in SQUARES:
        if h[a] == 0 or a in pieces:
            continue
        h1 = dict(h)
        h1[a] -= 1
        mid = Board(h1)
        # the castle it came from is not split into two
        old = board.comp[a]
        rest = {mid.comp[sq] for sq, c in board.comp.items() if c == old and h1[sq] > 0}
        if len(rest) > 1:
            continue
        too_tall = {c for c in range(mid.n) if mid.height[c] > mid.area[c]}
        for b in SQUARES:
            if b == a or b in pieces:
                continue
            if h1[b] > 0:  # on top of a castle: same castles, c one higher maybe
                c = mid.comp[b]
                count = mid.n
                fixed_ok = not too_tall and max(mid.height[c], h1[b] + 1) <= mid.area[c]
            else:
                touch = mid.touching(b)
                if len(touch) > 1:
                    continue  # would join two castles
                if not touch:  # a new one-block castle
                    count = mid.n + 1
                    fixed_ok = not too_tall
                else:  # extends exactly one castle: area + 1
                    (c,) = touch
                    count = mid.n
                    fixed_ok = too_tall <= {c} and max(mid.height[c], 1) <= mid.area[c] + 1
            if count >= 6 and fixed_ok:
                out.add(f"play moveblock {a} {b}")
    return out
