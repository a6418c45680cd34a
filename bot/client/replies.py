"""How the bot answers an interaction: privately, once, in time, and with a clear message
when something was refused or went wrong.

Shared by every command and button: the slash commands (cog, home_cog), the turn message's
buttons (views) and the play panel (panel_views). Discord forgets an interaction not
answered within 3 s, and may deliver one twice; both are handled here.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

import discord
from discord import app_commands

from bot.core.errors import NoGame, NotAllowed, ServiceError
from bot.core.service import ID_MAX, User
from bot.db.rows import committed_here
from bot.texts.i18n import N_, language, t
from bot.texts.markup import shorten

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

# English msgids; shown as t(lang, APOLOGY) in the user's language.
APOLOGY = N_(
    "Sorry, something went wrong on my side; nothing was changed. "
    "The error has been logged for the bot's operator."
)

# When the request had already committed its change, "nothing was changed" would be false.
APOLOGY_AFTER_COMMIT = N_(
    "Sorry, something went wrong on my side after your command was carried out; "
    "`/torres board` shows the game as it is now. "
    "The error has been logged for the bot's operator."
)


def user_of(interaction: discord.Interaction) -> User:
    """Who interacted, with their Discord language (the service words private replies in it)."""
    return User(interaction.user.id, interaction.user.display_name, locale=str(interaction.locale))


def lang_of(interaction: discord.Interaction) -> str:
    """The language of the user who interacted: private texts speak it."""
    return language(getattr(interaction, "locale", None))


def whole(value: float | None, lang: str) -> int | None:
    """A whole-number option as it arrived: discord.py reads JSON with orjson, which
    gives a number beyond 64 bits as a float (``1.8446744073709552e+19``); it is made an
    ``int`` again, so that it is checked and shown as the number sent. A fraction
    (only a forged request carries one) is refused."""
    if value is None:
        return None
    if isinstance(value, float) and not value.is_integer():
        raise NotAllowed(
            t(lang, "{number} is not a whole number; nothing was changed.", number=value)
        )
    return int(value)


def game_number(value: float | None, lang: str) -> int | None:
    """A ``game:`` option, refused with the game's number unless it can name a game.

    Discord offers only numbers from 1, but a request can carry any (Discord's own
    limit is 2^53); one beyond the database's integers must not reach it.
    """
    number = whole(value, lang)
    if number is not None and not 0 < number <= ID_MAX:
        raise NoGame(
            t(
                lang,
                "There is no game #{game} on this server (`/torres history` lists them).",
                game=number,
            )
        )
    return number


def sent_at(interaction: discord.Interaction) -> float:
    """When the player sent the command: the time in its snowflake id, by Discord's clock."""
    return interaction.created_at.timestamp()


T = TypeVar("T")

# Discord forgets an interaction not answered within 3 s of its creation. A
# button whose answer is the work's result (the panel, a confirmation) answers
# with it when the work is quick, in one request; when it is not done this long
# after the interaction reached us (or 2 s after Discord made it), the
# interaction is acknowledged first and the answer follows as an edit.
ANSWER_WITHIN = 1.0

ANSWER_BY = 2.0


async def answer_in_time(
    interaction: discord.Interaction, work: Awaitable[T], acknowledge: Callable[[], Awaitable[Any]]
) -> T:
    """The result of *work*; *acknowledge* is awaited meanwhile if it takes too long."""
    task = asyncio.ensure_future(work)
    age = max(0.0, time.time() - interaction.created_at.timestamp())
    done, _ = await asyncio.wait({task}, timeout=max(0.0, min(ANSWER_WITHIN, ANSWER_BY - age)))
    if not done:
        try:
            await acknowledge()
        except discord.HTTPException:  # too late already: the work goes on, the answer fails
            log.warning("could not acknowledge interaction %s in time", interaction.id)
    return await task


async def defer_private(interaction: discord.Interaction) -> None:
    """Acknowledge privately (Discord shows "thinking…"); the answer follows."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)


async def answer_private(interaction: discord.Interaction, text: Awaitable[str]) -> None:
    """Answer privately with *text* once it is ready, deferring first if it is slow."""
    await send_private(
        interaction, await answer_in_time(interaction, text, partial_defer(interaction))
    )


def partial_defer(interaction: discord.Interaction) -> Callable[[], Awaitable[None]]:
    """:func:`defer_private` for this interaction, as :func:`answer_in_time` takes it."""
    return lambda: defer_private(interaction)


async def send_private(interaction: discord.Interaction, text: str) -> None:
    """Answer privately with *text*, whether or not the interaction was already deferred."""
    await respond_private(interaction, shorten(text))


async def respond_private(
    interaction: discord.Interaction, content: str | None = None, **message: Any
) -> None:
    """A private message answering *interaction*: the response itself when quick, or
    the follow-up that resolves its deferral (``answer_in_time``)."""
    if interaction.response.is_done():
        # None (a file or view alone) goes as no content; discord.py's stubs want a str.
        await interaction.followup.send(content, ephemeral=True, **message)  # type: ignore[arg-type]
    else:
        await interaction.response.send_message(content, ephemeral=True, **message)


async def respond_in_time(
    interaction: discord.Interaction, message: Awaitable[dict[str, Any]]
) -> None:
    """Answer privately with *message* once it is ready (acknowledged first when slow),
    a message built for an edit (``attachments``) sent as a new one takes it (``files``);
    what goes wrong is reported to the user."""
    try:
        kwargs = await answer_in_time(interaction, message, partial_defer(interaction))
        files = kwargs.pop("attachments", [])
        if files:
            kwargs["files"] = files
        await respond_private(interaction, **kwargs)
    except Exception as exc:  # noqa: BLE001 - every error is reported to the user here
        await report_error(interaction, exc)


def picture_file(picture: tuple[bytes, str | None]) -> discord.File:
    """A board picture (``Renderer.picture``: the PNG and its description, the position
    in words) as an attachment."""
    png, alt = picture
    return discord.File(io.BytesIO(png), filename="board.png", description=alt)


async def edit_in_place(interaction: discord.Interaction, **message: Any) -> None:
    """Answer a button or menu by editing its message: with the response itself when
    quick, or after the deferred update (``answer_in_time``)."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**message)
    else:
        await interaction.response.edit_message(**message)


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Refusals: their message, privately. Anything else: logged, and a short apology.

    Every text is in the user's language; no traceback ever reaches the user.
    """
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if interaction.type is discord.InteractionType.autocomplete:
        log.exception("autocomplete failed", exc_info=error)
        return
    lang = lang_of(interaction)
    if isinstance(error, ServiceError):
        # The service words its refusals in the user's language already; a
        # message it could not word so (the store's Busy) is an English msgid.
        # (An empty msgid would fetch the catalog's header: never look that up.)
        text = t(lang, error.message) if error.message else t(lang, APOLOGY)
    elif isinstance(error, app_commands.NoPrivateMessage):
        text = t(lang, "Torres games live in server channels and threads, not in direct messages.")
    elif isinstance(error, app_commands.CheckFailure):
        text = t(lang, "You can't use this command here.")
    else:
        command = interaction.command.qualified_name if interaction.command else "a button"
        log.error(
            "unexpected error in %s (user %s, channel %s)",
            command,
            interaction.user.id,
            interaction.channel_id,
            exc_info=error,
        )
        text = t(lang, APOLOGY_AFTER_COMMIT) if committed_here() else t(lang, APOLOGY)
    # The bot's own reply retries while Discord answers 429 or 5xx.
    reply = getattr(interaction.client, "reply_private", None)
    try:
        if reply is not None and interaction.response.is_done():
            await reply(interaction, text)
        else:
            await send_private(interaction, text)
    except discord.HTTPException:
        log.exception("could not tell user %s about an error", interaction.user.id)


SEEN_INTERACTIONS = 4096  # interaction ids remembered against a second delivery

_seen: OrderedDict[int, None] = OrderedDict()


def first_delivery(interaction: discord.Interaction[Any]) -> bool:
    """False for an interaction this process has already taken: Discord may deliver one
    twice (e.g. when the gateway replays events after a resume), and the second must
    neither act again nor answer (the answer would be refused, the first's may be lost).

    Autocomplete requests (one per keystroke) are not remembered: they change nothing,
    and thousands of them would push the presses and commands out of the memory."""
    if interaction.type is discord.InteractionType.autocomplete:
        return True
    if interaction.id in _seen:
        log.info("interaction %s delivered again; ignored", interaction.id)
        return False
    _seen[interaction.id] = None
    if len(_seen) > SEEN_INTERACTIONS:
        _seen.popitem(last=False)
    return True


class OncePerInteraction:
    """A mixin for the bot's components: a second delivery of a press does nothing."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return first_delivery(interaction)


def bound(match: re.Match[str]) -> list[Any]:
    """A custom id's fields in its template's order: ASCII digits as numbers, the rest as
    text, a missing optional field as None."""
    return [v if v is None or not (v.isascii() and v.isdigit()) else int(v) for v in match.groups()]


class BoundItem(OncePerInteraction):
    """A mixin for the ``DynamicItem``s: one rebuilt after a restart takes its custom id's
    fields, in the template's order, as its constructor's first arguments."""

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> Self:
        return cast("Self", cast("Any", cls)(*bound(match)))
