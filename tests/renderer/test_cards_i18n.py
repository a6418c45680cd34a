"""Card names and effects in German and Dutch (renderer/locales/<lang>/LC_MESSAGES/cards.po).

The msgids are the engine's English tables (engine.CARDS, CARD_HELP, MASTER_CARDS,
MASTER_CARD_HELP); the notation hints (``play jump A B``) stay as they are.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import engine
from renderer.i18n import (
    card_help,
    card_name,
    dynamic_msgids,
    master_card_help,
    master_card_name,
)

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = ("de", "nl")
TABLES = [
    (engine.CARDS, card_name),
    (engine.CARD_HELP, card_help),
    (engine.MASTER_CARDS, master_card_name),
    (engine.MASTER_CARD_HELP, master_card_help),
]
TERMS = {
    "de": {
        r"\bknights?\b": r"ritter",
        r"castle": r"burg",
        r"\bking\b": r"könig",
        r"\bblocks?\b": r"baustein",
        r"\blevels?\b": r"ebene",
        r"\bdoor\b": r"\btore?\b",
        r"action points?": r"aktionspunkt",
        r"\bphases?\b": r"phase",
        r"\bturn\b": r"zug",
        r"\bstacks?\b": r"stapel",
        r"\bpoints\b": r"punkt",
    },
    "nl": {
        r"\bknights?\b": r"ridder",
        r"castle": r"burcht",
        r"\bking\b": r"koning",
        r"\bblocks?\b": r"bouwste",
        r"\blevels?\b": r"niveau",
        r"\bdoor\b": r"deur",
        r"action points?": r"actiepunt",
        r"\bphases?\b": r"fase",
        r"\bturn\b": r"beurt",
        r"\bstacks?\b": r"stapel",
        r"\bpoints\b": r"punt",
    },
}


def _hints(text: str) -> list[str]:
    """The notation hints of an effect: ``play lift A K``, ``play extra SQ``, ``play ap6``."""
    return re.findall(r"play [a-z0-9]+(?: (?:[A-Z]{1,2}|turn))*", text)


def _po(lang: str):
    with (ROOT / "renderer" / "locales" / lang / "LC_MESSAGES" / "cards.po").open("rb") as f:
        return read_po(f, locale=lang)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_cards_po_translates_exactly_the_engine_tables(lang: str) -> None:
    entries = {m.id: m for m in _po(lang) if m.id}
    assert set(entries) == set(dynamic_msgids())
    for message in entries.values():
        assert message.string and not message.fuzzy, message.id
        assert message.string != message.id


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize(("table", "read"), TABLES)
def test_every_card_reads_in_the_language(lang: str, table: dict[str, str], read) -> None:
    """Translated for every card, with the same notation hints and numbers, in the rulebooks' words."""
    for card, english in table.items():
        text = read(lang, card)
        assert text and text != english, card
        assert _hints(text) == _hints(english), card
        assert Counter(re.findall(r"\d+", text)) == Counter(re.findall(r"\d+", english)), card
        for source, target in TERMS[lang].items():
            if re.search(source, english.lower()):
                assert re.search(target, text.lower()), (card, source, target)


def test_every_effect_gives_its_notation_hint() -> None:
    for card in engine.CARD_HELP:
        assert _hints(engine.CARD_HELP[card]), card
        assert all(hint.startswith(f"play {card}") for hint in _hints(card_help("de", card)))


def test_english_and_unknown_cards_are_unchanged() -> None:
    assert card_name("en", "vault") == engine.CARDS["vault"]
    assert card_name("de", "vault") == "Über einen Ritter springen"
    assert card_name("nl", "vault") == "Over een ridder springen"
    assert master_card_name("nl", "castles") == "Burchten"
    assert card_name("de", "nonsense") == "nonsense" and card_help("de", "nonsense") == ""
