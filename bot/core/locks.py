"""The game's lock: one change of a game at a time.

This process's asyncio lock, then the store's (other processes wait: PostgreSQL's advisory
lock; SQLite has one process per file). The registry is per store, so every service over
one store (the game service, the home's clocks and seats) takes the same lock for a game.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.db.contract import GameStore

Locks = weakref.WeakValueDictionary[int, asyncio.Lock]

# A lock lives while someone holds or awaits it; then it goes, so that finished
# games leave no lock behind (a new one is made when needed).
_REGISTRY: weakref.WeakKeyDictionary[GameStore, Locks] = weakref.WeakKeyDictionary()


def game_locks(store: GameStore) -> Locks:
    """This process's locks of *store*'s games (held or awaited ones only)."""
    locks = _REGISTRY.get(store)
    if locks is None:
        locks = _REGISTRY[store] = weakref.WeakValueDictionary()
    return locks


@asynccontextmanager
async def game_lock(store: GameStore, game_id: int) -> AsyncIterator[None]:
    """Hold game *game_id*'s lock: this process's, then the database's."""
    locks = game_locks(store)
    lock = locks.get(game_id)
    if lock is None:
        lock = locks[game_id] = asyncio.Lock()
    async with lock, store.game_lock(game_id):
        yield
