"""Background work kept to one task a game: the computer players' moves (bot.client.app)
and the lobby card's updates (bot.client.lobby)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


class PerGame:
    """Runs *work* for a game in the background, one task a game at a time: a kick
    while the game's task runs has it run *work* once more when it is done (it may be
    past its last look at the game), so kicks are coalesced and none is lost."""

    def __init__(self, work: Callable[[int], Awaitable[None]], name: str) -> None:
        self._work = work
        self._name = name
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()  # games kicked while their task was running

    def kick(self, game_id: int) -> None:
        """Run the work for *game_id*, or once more after the run under way."""
        task = self.tasks.get(game_id)
        if task is not None and not task.done():
            self._again.add(game_id)
            return
        self.tasks[game_id] = asyncio.create_task(
            self._run(game_id), name=f"{self._name}-{game_id}"
        )

    async def _run(self, game_id: int) -> None:
        try:
            while True:
                self._again.discard(game_id)
                await self._work(game_id)
                if game_id not in self._again:
                    return
        finally:
            self.tasks.pop(game_id, None)
