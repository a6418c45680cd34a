"""The castle tables one block later: ``Castles`` after a block is added to a square
or taken off one, worked out from the tables before (only the castle that changed,
and the knight reach on or next to it, need work)."""

from __future__ import annotations

from collections.abc import Sequence

from .board import ALL, BIT, BY_LENGTH, ORTH, ORTH_MASK, Castles, around
from .squares import _Levels

# POW[n]: the bit of bit length n (a mask's squares from the highest bit down: no
# negative ints, as in m & -m, on the way)
POW: tuple[int, ...] = (0, *(1 << n for n in range(64)))
NOT_BIT: tuple[int, ...] = tuple(ALL ^ b for b in BIT)
# CROSS[s]: the mask of s and the squares next to it
CROSS: tuple[int, ...] = tuple(ORTH_MASK[s] | BIT[s] for s in range(64))
# zone(m) of castle masks m met so far (castles change a block at a time, and games
# share their first castles)
ZONES: dict[int, int] = {}
ZONES_MAX = 1 << 14


def zone(m: int) -> int:
    """The mask of the squares of mask ``m`` and those next to one (kept)."""
    found = ZONES.get(m)
    if found is None:
        if len(ZONES) >= ZONES_MAX:
            ZONES.clear()
        found = ZONES[m] = m | around(m)
    return found


def with_block(cc: Castles, h: Sequence[int], s: int) -> Castles:
    """The tables after one block was added on s (``h`` already counts it).

    The block must not join two castles (no rule allows that); it lands on a castle,
    extends one or starts a new one.  Only that castle's entries change, so this is
    much cheaper than recomputing everything.  The block squares (``build``, when
    known) follow: only those on or next to that castle may change.
    """
    new = Castles.__new__(Castles)
    comp = cc.comp
    c = comp[s]
    if c >= 0:  # on a castle: its squares and neighbours stay, its height may not
        return _raised(cc, new, h, s, c)
    area = cc.area[:]
    height = cc.height[:]
    members = cc.members[:]
    masks = cc.member_mask[:]
    adj = cc._adj
    front = cc.front[:]
    low = cc._low[:]
    bit = BIT[s]
    comp = comp[:]
    for t in ORTH[s]:
        c = comp[t]
        if c >= 0:  # the one castle s touches
            area[c] += 1
            members[c] = [*members[c], s]
            old_mask = masks[c]
            masks[c] = m = old_mask | bit
            front[c] &= NOT_BIT[s]
            near = (ZONES.get(old_mask) or zone(old_mask)) | CROSS[s]
            break
    else:
        c = len(area)
        old_mask = 0
        m = bit
        near = CROSS[s]
        area.append(1)
        height.append(0)
        members.append([s])
        masks.append(bit)
        front.append(0)
        low.append(None)
    comp[s] = c
    le = cc.le
    if adj is not None:
        adj = adj[:]
        adj[s] = ()
    else:
        blocks = ALL & ~le[0]  # the castle squares before s
    for t in ORTH[s]:
        if comp[t] < 0:
            if adj is not None:
                a = adj[t]
                if not a:
                    adj[t] = (c,)
                    front[c] |= BIT[t]
                elif c not in a:
                    adj[t] = tuple(sorted((*a, c)))
                    for d in a:
                        front[d] &= ~BIT[t]
                continue
            touched = ORTH_MASK[t] & blocks
            if not touched:  # t touched no castle: now c alone
                front[c] |= BIT[t]
            elif touched & ~old_mask:  # t touched another castle: now two or more
                nt = ~BIT[t]
                for u in ORTH[t]:
                    d = comp[u]
                    if d >= 0 and d != c:
                        front[d] &= nt
    hs = h[s]
    if hs > height[c]:
        height[c] = hs
    new.comp = comp
    new.area = area
    new.height = height
    new.members = members
    new.member_mask = masks
    new._adj = adj
    new.front = front
    new.le = le = _le_after(le, h, s)
    new.top = top = hs if hs > cc.top else cc.top
    low[c] = None
    new._low = low
    if len(ZONES) >= ZONES_MAX:
        ZONES.clear()
    ZONES[m] = near  # zone(m)
    new.build = _build_after(cc.build, near, m, area[c], height[c], le, top, front[c])
    # A knight's reach changes only on or next to the castle that grew (its doors did).
    _forget_reach(cc, new, near)
    new.moveblock = None
    return new


def _raised(cc: Castles, new: Castles, h: Sequence[int], s: int, c: int) -> Castles:
    """``with_block`` of a block on castle c's square s."""
    hs = h[s]
    height = cc.height
    if hs > height[c]:
        height = height[:]
        height[c] = hs
    new.height = height
    le = cc.le
    # Only c's doors at s's old level or higher change, and the reach of knights
    # next to s or that high on or next to c.
    m = cc.member_mask[c]
    z = ZONES.get(m) or zone(m)
    near = (z & ~le[hs - 2]) | CROSS[s]  # hs >= 2
    new.le = le = _le_after(le, h, s)
    new.comp = cc.comp
    new.area = area = cc.area
    new.members = cc.members
    new.member_mask = cc.member_mask
    new._adj = cc._adj
    new.front = cc.front
    new.top = top = hs if hs > cc.top else cc.top
    new.build = _build_after(cc.build, z, m, area[c], height[c], le, top, cc.front[c])
    low = cc._low[:]  # c's entry is new (a dict of its own, or None)
    doors = low[c]
    if doors:
        kept = {}
        below = hs - 1
        for k, v in doors.items():
            if k < below:
                kept[k] = v
        low[c] = kept
    new._low = low
    _forget_reach(cc, new, near)
    new.moveblock = None
    return new


def lowered(cc: Castles, h: Sequence[int], s: int) -> Castles:
    """The tables after one block was taken off s, which still has one (``h``
    already counts it): the castles keep their squares, only castle c's height
    and doors (and the reach next to it) may change."""
    new = Castles.__new__(Castles)
    comp = cc.comp
    c = comp[s]
    height = cc.height[:]
    height[c] = max(map(h.__getitem__, cc.members[c]))
    if type(cc.le) is not list:  # board._Levels: a new one
        le: Sequence[int] = _Levels(h)
    else:
        le = cc.le[:]
        le[h[s]] |= BIT[s]
    new.comp = comp
    new.area = cc.area
    new.height = height
    new.members = cc.members
    new.member_mask = cc.member_mask
    new._adj = cc._adj
    new.front = cc.front
    new.le = le
    new.top = cc.top
    low = cc._low[:]
    low[c] = None
    new._low = low
    m = cc.member_mask[c]
    _forget_reach(cc, new, m | around(m))
    new.build = new.moveblock = None
    return new


def _forget_reach(old: Castles, new: Castles, near: int) -> None:
    """``new`` keeps ``old``'s knight reach but for starts on the squares of ``near``."""
    reach = old.reach.copy()
    keys = old.reach_keys
    drop = keys & near
    while drop:
        n = drop.bit_length()
        del reach[BY_LENGTH[n]]
        drop ^= POW[n]
    new.reach = reach
    new.reach_keys = keys & ~near


def _le_after(le: Sequence[int], h: Sequence[int], s: int) -> Sequence[int]:
    """The level masks ``le`` after one block more on s (``h`` already counts it)."""
    if type(le) is not list:  # board._Levels (an absurdly tall tower): a new one
        return _Levels(h)
    hs = h[s]
    le = le[:]
    le[hs - 1] &= NOT_BIT[s]
    if len(le) < hs + 2:
        le.append(ALL)
    return le


def _build_after(
    found: int | None,
    near: int,
    m: int,
    size: int,
    hc: int,
    le: Sequence[int],
    top: int,
    front: int,
) -> int | None:
    """The block squares after castle ``m`` (``size`` squares, ``hc`` high, frontier
    ``front``) changed: only those of ``near`` (the castle and next to it) may differ
    from ``found`` (None: not worked out yet, and left so)."""
    if found is None:
        return None
    found &= ~near
    if hc <= size:
        found |= m & le[size - 1 if size <= top else top]
    if hc <= size + 1:
        found |= front
    return found
