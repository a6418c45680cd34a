"""Players' own settings (turn notices by DM, away periods), remembered for a minute: every
command asks for a pending notice and every turn message whether its player wants a DM."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.core.service import (
    Lru,
)
from bot.db.contract import GameStore
from bot.db.rows import UserSettings
from bot.texts.i18n import DEFAULT, t
from bot.texts.markup import timestamp

if TYPE_CHECKING:
    from bot.core.ratings import _Ratings


# A user's settings read here serve the next minute's commands and turn messages
# (see HomeService._user_settings); at most this many users are remembered (~200 B each).
SETTINGS_FRESH = 60.0


CACHED_SETTINGS = 4096


class HomeCore:
    """What the home's parts share: the store, the clock, the settings cache."""

    def __init__(
        self,
        store: GameStore,
        *,
        ai_level: str,
        clock: Callable[[], float] = time.time,
        clock_scale: float = 1.0,
    ) -> None:
        """*clock_scale* shortens every time per turn and away period (tests)."""
        self._store = store
        self._clock_scale = clock_scale
        self._ai_level = ai_level
        self._clock = clock
        self._ratings: dict[int | None, _Ratings] = {}
        self._rating_locks: dict[int | None, asyncio.Lock] = {}
        # Users' settings as last read or written here, with when (monotonic time):
        # every command asks for a pending notice and every turn message whether
        # its player wants a DM, and each read is a database round trip.
        self._settings: Lru[int, tuple[float, UserSettings]] = Lru(CACHED_SETTINGS)

    # -- /torres settings and turn notices by DM ---------------------------------------

    async def settings(self, *, user_id: int, dm: bool | None = None, lang: str = DEFAULT) -> str:
        """Change the settings given, and say what they all are now."""
        current = await self._store.user_settings(user_id)
        if dm is not None:
            # Turning DMs on (again) clears an old refusal: the next one is news.
            current = replace(current, dm=dm, dm_refused=False if dm else current.dm_refused)
            await self._save_settings(current)
        if dm is not None:
            lines = [t(lang, "**Your Torres settings** (saved)")]
        else:
            lines = [t(lang, "**Your Torres settings**")]
        if current.dm:
            lines.append(
                t(
                    lang,
                    "• `dm`: on — when it becomes your turn I send you a direct message with a "
                    "link to the game and its picture, instead of pinging you in the channel.",
                )
            )
        else:
            lines.append(
                t(
                    lang,
                    "• `dm`: off — I ping you in the game's channel when it is your turn "
                    "(`/torres settings dm:True` sends a direct message instead).",
                )
            )
        away = current.away_until
        if away is not None and away > self._clock():
            lines.append(
                t(
                    lang,
                    "• away until {time} (`/torres away days:0` ends it).",
                    time=timestamp(away, "f"),
                )
            )
        return "\n".join(lines)

    async def _user_settings(self, user_id: int) -> UserSettings:
        """A user's settings, from memory if read or written here in the last
        ``SETTINGS_FRESH`` seconds. A change made by another process (another shard)
        shows here that much later at most; this process's own changes at once."""
        known = self._settings.get(user_id)
        if known is not None and time.monotonic() - known[0] < SETTINGS_FRESH:
            return known[1]
        return self._remember(await self._store.user_settings(user_id))

    def _remember(self, settings: UserSettings) -> UserSettings:
        self._settings[settings.user_id] = (time.monotonic(), settings)
        return settings

    async def _save_settings(self, settings: UserSettings) -> None:
        self._settings.pop(settings.user_id, None)  # unknown until the write is done
        await self._store.set_user_settings(settings)
        self._remember(settings)

    async def wants_dm(self, user_id: int) -> bool:
        return (await self._user_settings(user_id)).dm

    async def dm_refused(self, user_id: int) -> None:
        """Remember that a turn notice could not be sent by DM, to tell the user once."""
        current = await self._store.user_settings(user_id)
        if not current.dm_refused:
            await self._save_settings(replace(current, dm_refused=True))

    async def pending_notice(self, user_id: int, lang: str = DEFAULT) -> str | None:
        """What the user must hear once, privately, at their next command (then forgotten).

        *lang* is the user's (the command's ``interaction.locale``).
        """
        if not (await self._user_settings(user_id)).dm_refused:
            return None
        current = await self._store.user_settings(user_id)  # read again: it changes once
        if not current.dm_refused:
            self._remember(current)
            return None
        await self._save_settings(replace(current, dm_refused=False))
        return t(
            lang,
            "I could not send you a direct message about your turn: Discord refused it "
            "(your direct messages are closed to me). I pinged you in the game's channel "
            "instead. Allow direct messages from this server's members in its Privacy "
            "Settings, or turn DM notices off with `/torres settings dm:False`.",
        )
