"""Languages: gettext catalogs, written as Babel ``.po`` files and read at start-up.

The picture and the bot speak English, German and Dutch. Texts are marked in
the source with :func:`t` (and :func:`tn` for plurals, :func:`tp` for a short
word that needs a context, :func:`N_` for a constant translated later), and
``pybabel extract`` finds them by those names (see docs/bot.md, "Adding a
language"). The catalogs are read from the ``.po`` files themselves, every
``*.po`` file of a language's ``LC_MESSAGES`` folder merged into one, so no
compiled ``.mo`` file is kept in the tree.

This module is shared by the renderer (its catalogs live in
``renderer/locales``) and the bot (``bot/locales``): each makes one
:class:`Catalogs` for its folder.
"""

from __future__ import annotations

import gettext
import io
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

LANGUAGES = ("en", "de", "nl")
DEFAULT = "en"
# What pybabel extract must look for (docs/bot.md): t(lang, msgid, ...),
# tn(lang, singular, plural, n, ...), tp(lang, context, msgid, ...), N_(msgid).
KEYWORDS = {"t": (2,), "tn": (2, 3), "tp": ((2, "c"), 3), "N_": None}


def language(locale: object) -> str:
    """Our language for a Discord locale (``"de"``, ``"nl"``, ``"en-GB"``…); else English."""
    code = str(getattr(locale, "value", locale) or "").split("-")[0].lower()
    return code if code in LANGUAGES else DEFAULT


class Catalogs:
    """The translations of one folder of ``<lang>/LC_MESSAGES/*.po`` files, loaded once."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._loaded: dict[str, gettext.NullTranslations] = {}
        self._lock = threading.Lock()

    def get(self, lang: str) -> gettext.NullTranslations:
        found = self._loaded.get(lang)
        if found is None:
            with self._lock:
                found = self._loaded.get(lang)
                if found is None:
                    found = self._loaded[lang] = self._load(lang)
        return found

    def catalog(self, lang: str) -> Catalog:
        """Every ``.po`` file of *lang* merged into one Babel catalog (tests read it)."""
        from babel.messages.catalog import Catalog
        from babel.messages.pofile import read_po

        merged: Catalog | None = None
        for path in sorted((self.directory / lang / "LC_MESSAGES").glob("*.po")):
            with path.open("rb") as f:
                cat = read_po(f, locale=lang)
            if merged is None:
                merged = cat
                continue
            for message in cat:
                if message.id:
                    merged[message.id] = message
        return merged if merged is not None else Catalog(locale=lang)

    def _load(self, lang: str) -> gettext.NullTranslations:
        if lang == DEFAULT or lang not in LANGUAGES:
            return gettext.NullTranslations()
        from babel.messages.mofile import write_mo

        buf = io.BytesIO()
        write_mo(buf, self.catalog(lang))  # fuzzy entries are left out, as msgfmt does
        buf.seek(0)
        return gettext.GNUTranslations(buf)


def _format(text: str, params: dict[str, object]) -> str:
    return text.format(**params) if params else text


class Speaker:
    """The four marking functions bound to one folder of catalogs.

    A module does ``t, tn, tp = Speaker(CATALOGS).functions()`` (or imports
    them from its package's ``i18n`` module), so the names pybabel looks for
    are plain function names.
    """

    def __init__(self, catalogs: Catalogs) -> None:
        self.catalogs = catalogs

    def t(self, lang: str, msgid: str, /, **params: object) -> str:
        """*msgid* in *lang*, with ``{name}`` placeholders filled from *params*."""
        return _format(self.catalogs.get(lang).gettext(msgid), params)

    def tn(self, lang: str, singular: str, plural: str, n: int, /, **params: object) -> str:
        """The plural form for *n* (``{n}`` is filled with *n*)."""
        return _format(self.catalogs.get(lang).ngettext(singular, plural, n), {"n": n, **params})

    def tp(self, lang: str, context: str, msgid: str, /, **params: object) -> str:
        """*msgid* in *lang*, told apart from the same English word by *context*."""
        return _format(self.catalogs.get(lang).pgettext(context, msgid), params)


def N_(msgid: str) -> str:  # noqa: N802 - the name gettext tools look for
    """Marks a constant for extraction; translate it where it is shown, with ``t``."""
    return msgid


# The picture's own texts (header, legend, panel labels, alt text).
CATALOGS = Catalogs(Path(__file__).parent / "locales")
_SPEAKER = Speaker(CATALOGS)
t = _SPEAKER.t
tn = _SPEAKER.tn
tp = _SPEAKER.tp


# Card names and effects: the engine keeps them in English (its contract); the
# picture and the bot show them translated from these catalogs (cards.po).
def card_name(lang: str, card: str) -> str:
    import engine

    return t(lang, engine.CARDS[card]) if card in engine.CARDS else card


def card_help(lang: str, card: str) -> str:
    import engine

    return t(lang, engine.CARD_HELP[card]) if card in engine.CARD_HELP else ""


def master_card_name(lang: str, card: str) -> str:
    import engine

    return t(lang, engine.MASTER_CARDS[card]) if card in engine.MASTER_CARDS else card


def master_card_help(lang: str, card: str) -> str:
    import engine

    return t(lang, engine.MASTER_CARD_HELP[card]) if card in engine.MASTER_CARD_HELP else ""


# The seats' colours: the engine and the notation call the seats red, blue, green
# and yellow (seat ids); every sentence names them in the reader's language.
COLOUR_WORDS = {"red": N_("red"), "blue": N_("blue"), "green": N_("green"), "yellow": N_("yellow")}


def colour_name(lang: str, seat: str) -> str:
    """The colour of the seat *seat* in *lang* ("Grün" for "green"); any other name as it is."""
    return t(lang, COLOUR_WORDS[seat]) if seat in COLOUR_WORDS else seat


def dynamic_msgids() -> list[str]:
    """Message ids taken from the engine's tables rather than marked in the source."""
    import engine

    return [
        *engine.CARDS.values(),
        *engine.CARD_HELP.values(),
        *engine.MASTER_CARDS.values(),
        *engine.MASTER_CARD_HELP.values(),
    ]
