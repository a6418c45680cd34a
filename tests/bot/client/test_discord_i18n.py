"""The Discord layer's languages: private texts in the user's, public ones in the game's."""

from __future__ import annotations

import re
import string
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from babel.messages.extract import extract_from_file
from discord import app_commands

import renderer
import renderer.replay
from bot.client.app import TorresBot, _delivery_note
from bot.client.cards import card_text
from bot.client.cog import APOLOGY, report_error
from bot.client.views import TurnButton, turn_view
from bot.core import complete as completion
from bot.core.config import BotConfig
from bot.core.errors import NotYourTurn
from bot.core.outbox import FORBIDDEN, POSTED, REJECTED, replay_post
from bot.core.service import Post
from bot.texts.i18n import CATALOGS, language, t
from engine import Game
from tests.bot.conftest import CHANNEL, GUILD, Env

ROOT = Path(__file__).resolve().parents[3]
# The Discord layer's files; their texts are in bot/locales/*/LC_MESSAGES/discord.po.
FILES = [
    "bot/client/app.py",
    "bot/client/cog.py",
    "bot/client/views.py",
    "bot/core/outbox.py",
    "bot/core/complete.py",
]
KEYWORDS = {"t": (2,), "tn": (2, 3), "tp": ((2, "c"), 3), "N_": None}


def _marked() -> list[tuple[str | None, str]]:
    """(context, msgid) of every text marked in the Discord layer's files."""
    found = []
    for name in FILES:
        for _line, message, _comments, context in extract_from_file(
            "python", ROOT / name, keywords=KEYWORDS
        ):
            msgid = message[0] if isinstance(message, tuple) else message
            found.append((context, msgid))
    return found


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_every_marked_text_is_translated(lang: str):
    """Each text marked in these files has a translation, not fuzzy, with the same placeholders."""
    catalog = CATALOGS.catalog(lang)
    marked = _marked()
    assert len(marked) >= 20
    for context, msgid in marked:
        message = catalog.get(msgid, context=context)
        assert message is not None and message.string, (lang, context, msgid)
        assert not message.fuzzy, msgid
        assert _fields(message.string) == _fields(msgid), (lang, msgid)


# -- the error handler ---------------------------------------------------------------


class _Response:
    def __init__(self, done: bool) -> None:
        self.done = done
        self.sent: list[str] = []

    def is_done(self) -> bool:
        return self.done

    async def send_message(self, text: str, *, ephemeral: bool = False) -> None:
        assert ephemeral
        self.sent.append(text)
        self.done = True


class _Followup:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, text: str, *, ephemeral: bool = False, **_: Any) -> None:
        assert ephemeral
        self.sent.append(text)


class FakeInteraction:
    """What report_error and the cog touch on a discord.Interaction, with a locale."""

    def __init__(self, locale: str, *, deferred: bool = True) -> None:
        self.type = discord.InteractionType.application_command
        self.locale = discord.Locale(locale)
        self.guild_locale = discord.Locale("en-US")
        self.response = _Response(deferred)
        self.followup = _Followup()
        self.command = None
        self.user = SimpleNamespace(id=5, display_name="Ann")
        self.channel_id = CHANNEL
        self.guild_id = GUILD
        self.client = None  # not the bot: replies go straight to send_private

    @property
    def said(self) -> list[str]:
        return self.response.sent + self.followup.sent


def _unexpected() -> Exception:
    try:
        raise KeyError("secret internal detail")
    except KeyError as exc:
        return exc


@pytest.mark.parametrize(
    ("locale", "apology", "check"),
    [
        ("de", "Entschuldigung, bei mir ist etwas schiefgegangen", "kannst du hier nicht"),
        ("nl", "Sorry, er ging bij mij iets mis", "kun je hier niet"),
        ("en-GB", "Sorry, something went wrong on my side", "can't use this command here"),
        ("fr", "Sorry, something went wrong on my side", "can't use this command here"),
    ],
)
async def test_errors_speak_the_users_language(locale: str, apology: str, check: str):
    """The apology and Discord's own refusals in the user's language; no traceback, ever."""
    ix = FakeInteraction(locale)
    await report_error(ix, _unexpected())  # type: ignore[arg-type]
    await report_error(ix, app_commands.CheckFailure())  # type: ignore[arg-type]
    await report_error(ix, app_commands.NoPrivateMessage())  # type: ignore[arg-type]
    wrapped = app_commands.CommandInvokeError.__new__(app_commands.CommandInvokeError)
    wrapped.original = _unexpected()
    await report_error(ix, wrapped)  # type: ignore[arg-type]
    first, second, third, fourth = ix.said
    assert first.startswith(apology) and fourth == first
    assert first == t(language(locale), APOLOGY)
    assert check in second
    assert "Torres" in third and "/" not in third
    for text in ix.said:
        assert "secret" not in text and "Traceback" not in text and "KeyError" not in text


async def test_a_refusal_worded_by_the_service_passes_unchanged():
    """The service words refusals in the user's language; the handler adds nothing."""
    ix = FakeInteraction("de", deferred=False)
    await report_error(ix, NotYourTurn("Du bist nicht am Zug."))  # type: ignore[arg-type]
    assert ix.said == ["Du bist nicht am Zug."]
    ix = FakeInteraction("nl", deferred=False)
    await report_error(ix, NotYourTurn(""))  # type: ignore[arg-type]
    assert ix.said == [t("nl", APOLOGY)] and "Content-Type" not in ix.said[0]


def test_delivery_notes_in_the_users_language():
    assert "Berechtigungen" in _delivery_note({FORBIDDEN}, "de")
    assert "Links insluiten" in _delivery_note({FORBIDDEN}, "nl")
    assert "refused the public message" in _delivery_note({REJECTED})
    assert "weigerde" in _delivery_note({REJECTED}, "nl")
    assert _delivery_note({POSTED}, "de") == ""


# -- buttons and public posts ----------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("en", ["Play", "End turn", "Undo", "My hand"]),
        ("de", ["Spielen", "Zug beenden", "Rückgängig", "Meine Kartenhand"]),
        ("nl", ["Spelen", "Beurt beëindigen", "Ongedaan maken", "Mijn hand"]),
    ],
)
def test_turn_buttons_speak_the_games_language(lang: str, labels: list[str]):
    """Labels follow the game's language; custom ids stay the same in every language."""
    view = turn_view(7, 3, ("play", "end", "undo", "hand"), lang)
    assert [item.item.label for item in view.children] == labels
    assert [item.custom_id for item in view.children] == [
        f"torres:7:3:{a}" for a in ("play", "end", "undo", "hand")
    ]


async def test_a_button_rebuilt_from_its_custom_id_still_answers():
    match = re.fullmatch(r"torres:(?P<game>\d+):(?P<turn>\d+):(?P<action>\w+)", "torres:7:3:undo")
    button = await TurnButton.from_custom_id(None, None, match)  # type: ignore[arg-type]
    assert (button.game_id, button.turn, button.action) == (7, 3, "undo")


@pytest.mark.parametrize(("lang", "words"), [("de", "vom ersten Ritter"), ("nl", "eerste ridder")])
def test_the_replay_post_keeps_the_games_language(lang: str, words: str):
    after = Post(CHANNEL, 4, "Game over", replay=True, language=lang)
    post = replay_post(after)
    assert post.language == lang and post.animation and words in post.text
    assert "#4" in post.text and "`replay.gif`" in post.text


class _Channel:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def send(self, text: str | None = None, **kwargs: Any) -> object:
        if text is None:  # a turn card (Components V2): its text is in its Text Display
            text = card_text(kwargs["view"])
        self.sent.append((text, kwargs))
        return object()  # not a discord.Message: nothing to retire


@pytest.fixture
def pictures(monkeypatch) -> list[tuple[str, str]]:
    """A stand-in for the renderer that insists on the language keyword; what it drew."""
    drawn: list[tuple[str, str]] = []

    def render_board(position, viewer, highlight, *, highlight_note, labels, language):
        drawn.append(("png", language))
        return b"\x89PNG"

    def describe(position, *, viewer, highlight, highlight_note, labels, language):
        drawn.append(("alt", language))
        return f"board in {language}"

    # The picture and its alt text from one reading of the position (Renderer.picture).
    def read_view(position, viewer, highlight, *, highlight_note, labels, language):
        return SimpleNamespace(language=language)

    def view_png(view):
        drawn.append(("png", view.language))
        return b"\x89PNG"

    def describe_view(view):
        drawn.append(("alt", view.language))
        return f"board in {view.language}"

    def animate(positions, highlights, *, language):
        drawn.append(("gif", language))
        return b"GIF89a"

    monkeypatch.setattr(renderer, "render_board", render_board)
    monkeypatch.setattr(renderer, "describe", describe)
    monkeypatch.setattr(renderer, "read_view", read_view)
    monkeypatch.setattr(renderer, "view_png", view_png)
    monkeypatch.setattr(renderer, "describe_view", describe_view)
    monkeypatch.setattr(renderer.replay, "animate", animate)
    return drawn


@pytest.mark.parametrize("lang", ["de", "nl"])
async def test_public_posts_speak_the_games_language(
    env: Env, pictures: list[tuple[str, str]], lang: str
):
    """Late note, buttons, picture and alt text of a turn message: all in the game's language."""
    bot = TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)
    channel = _Channel()
    bot.get_channel = lambda _id: channel  # type: ignore[method-assign]
    try:
        post = Post(
            CHANNEL,
            1,
            "text",
            position=Game.new(2, seed=1).position(),
            turn=2,
            buttons=("play", "end"),
            language=lang,
        )
        assert await bot.send_post(post, late=True) == POSTED
        ((text, kwargs),) = channel.sent
        assert text.startswith(t(lang, "*(Posted late after a restart.)*"))
        assert text != post.text and "Posted late" not in text
        buttons = [
            b for b in kwargs["view"].walk_children() if isinstance(b, discord.ui.DynamicItem)
        ]
        assert [b.item.label for b in buttons] == [
            "Spielen" if lang == "de" else "Spelen",
            "Zug beenden" if lang == "de" else "Beurt beëindigen",
        ]
        (file,) = kwargs["files"]
        assert file.description == f"board in {lang}"
        assert pictures == [("png", lang), ("alt", lang)]
    finally:
        bot.renderer.close()


async def test_the_replay_is_animated_in_the_games_language(
    env: Env, pictures: list[tuple[str, str]]
):
    bot = TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)
    channel = _Channel()
    bot.get_channel = lambda _id: channel  # type: ignore[method-assign]

    async def frames(game_id: int) -> list[dict[str, Any]]:
        return [Game.new(2, seed=1).position()]

    env.service.replay_frames = frames  # type: ignore[method-assign]
    try:
        post = replay_post(Post(CHANNEL, 1, "over", replay=True, language="nl"))
        assert await bot.send_post(post) == POSTED
        assert pictures == [("gif", "nl")]
        assert "ridder" in channel.sent[0][0]
    finally:
        bot.renderer.close()


# -- /torres new ---------------------------------------------------------------------


class _Deferring(FakeInteraction):
    def __init__(self, locale: str, guild_locale: str) -> None:
        super().__init__(locale, deferred=False)
        self.guild_locale = discord.Locale(guild_locale)

        async def defer(**_: Any) -> None:
            self.response.done = True

        self.response.defer = defer  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("locale", "guild", "chosen", "spoken", "note"),
    [
        ("de", "en-US", None, "de", "Öffentliche Nachrichten dieser Partie: Deutsch."),
        ("de", "nl", None, "nl", "Öffentliche Nachrichten dieser Partie: Nederlands."),
        ("nl", "de", "en", "en", None),
        ("fr", "en-US", None, "en", "The game's public messages are in English."),
    ],
)
async def test_new_sets_the_games_language(
    env: Env, locale: str, guild: str, chosen: str | None, spoken: str, note: str | None
):
    """Chosen, else the server's (not US English), else the author's; the reply names it."""
    bot = TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)
    delivered = []

    async def answer(interaction: Any, outcome: Any) -> None:
        delivered.append(await outcome)

    bot.answer = answer  # type: ignore[method-assign]
    group = bot.tree.get_command("torres")
    new = group.get_command("new")  # type: ignore[union-attr]
    try:
        ix = _Deferring(locale, guild)
        await new.callback(group, ix, language=chosen)  # type: ignore[union-attr, arg-type]
        (outcome,) = delivered
        row = await env.store.active_game(CHANNEL)
        assert row is not None and row.language == spoken
        if note is None:
            assert "\n" not in outcome.reply
        else:
            assert outcome.reply.endswith("\n" + note)
    finally:
        bot.renderer.close()


def test_new_offers_the_three_languages(env: Env):
    bot = TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)
    (group,) = bot.command_payload()
    new = next(o for o in group["options"] if o["name"] == "new")
    option = next(o for o in new["options"] if o["name"] == "language")
    assert [(c["name"], c["value"]) for c in option["choices"]] == [
        ("English", "en"),
        ("Deutsch", "de"),
        ("Nederlands", "nl"),
    ]
    assert not option.get("required")
    bot.renderer.close()


# -- autocomplete --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "unknown", "nothing"),
    [
        ("de", "Unbekanntes Wort `mvoe`. Meintest du `move`?", "Keine erlaubte Aktion passt"),
        ("nl", "Onbekend woord `mvoe`. Bedoelde je `move`?", "Geen toegestane actie past"),
    ],
)
def test_autocomplete_explains_in_the_users_language(lang: str, unknown: str, nothing: str):
    """The single explaining entry speaks the user's language; its value stays the notation."""
    game = Game.new(2, seed=1)
    [(label, value)] = completion.complete(game, "", "mvoe c3", None, lang=lang)
    assert label == "⚠ " + unknown and value == "mvoe c3"
    [(label, value)] = completion.complete(game, "", "place h9", None, lang=lang)
    assert label.startswith("⚠ " + nothing) and value == "place h9"


def test_autocomplete_labels_ask_for_the_users_language(monkeypatch):
    """Labels come from bot.core.panel.describe in the user's language; values stay canonical."""
    asked: list[str] = []

    def describe(action: str, game: Game, *, lang: str) -> str:
        asked.append(lang)
        return f"[{lang}] {action}"

    monkeypatch.setattr(completion, "describe", describe)
    game = Game.new(2, seed=1)
    choices = completion.complete(game, "", "place c", None, lang="nl")
    assert choices and set(asked) == {"nl"}
    for label, value in choices:
        assert label == f"[nl] {value} · {value}" and value.startswith("place c")
