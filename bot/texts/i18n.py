"""The bot's languages: its catalogs (``bot/locales``) and who hears which language.

Private replies speak the language of the user who asked (``interaction.locale``);
public posts speak the game's language, chosen at ``/torres new``.  Mark every
text a user reads with ``t`` / ``tn`` / ``tp`` from here (``N_`` for constants
translated where they are shown); docs/bot.md says how to add a language.
"""

from __future__ import annotations

from pathlib import Path

from renderer.i18n import DEFAULT, LANGUAGES, N_, Catalogs, Speaker, language

__all__ = ["CATALOGS", "DEFAULT", "LANGUAGES", "N_", "game_language", "language", "t", "tn", "tp"]

CATALOGS = Catalogs(Path(__file__).parent.parent / "locales")
_SPEAKER = Speaker(CATALOGS)
t = _SPEAKER.t
tn = _SPEAKER.tn
tp = _SPEAKER.tp


def game_language(chosen: str | None, guild_locale: object, user_locale: object) -> str:
    """A new game's language: the one chosen, else the server's, else the author's.

    The server's preferred locale counts only when it is one we speak and not
    US English, Discord's default that most servers never changed.
    """
    if chosen in LANGUAGES:
        return chosen
    guild = str(getattr(guild_locale, "value", guild_locale) or "")
    if guild and guild != "en-US" and guild.split("-")[0].lower() in LANGUAGES:
        return language(guild)
    return language(user_locale)
