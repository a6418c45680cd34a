"""``/torres rules`` in English, German and Dutch (issue 11, item 7).

The German and Dutch topics are gettext entries (bot/locales/<lang>/LC_MESSAGES/rules.po)
whose msgids are the English topics. They must say the same rules: the same notation
examples and card ids (backticked, never translated), the same numbers, in the words of
the German and Dutch rulebooks.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot.texts.i18n import LANGUAGES
from bot.texts.rules import DEFAULT_TOPIC, TOPICS, rules_text, topic_text

ROOT = Path(__file__).resolve().parents[3]
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
UNKNOWN = "No rules topic called '{topic}'."

# English word (as it appears in a topic, outside the notation) -> the rulebooks' word.
# Stems are matched case-insensitively, so "Königsburg", "bouwstenen", "Aktionskarten" count.
TERMS = {
    "de": {
        r"\bknights?\b": r"ritter",
        r"castle": r"burg",
        r"\bking": r"könig",
        r"action cards?": r"aktionskarte",
        r"\bblocks?\b": r"baustein",
        r"\blevels?\b": r"ebene",
        r"\bdoors?\b": r"\btore?\b",
        r"action points?": r"aktionspunkt",
        r"\bphases?\b": r"phase",
        r"\bturn\b": r"zug",
        r"marker": r"wertungsstein",
        r"\bstacks?\b": r"stapel",
    },
    "nl": {
        r"\bknights?\b": r"ridder",
        r"castle": r"burcht",
        r"\bking": r"koning",
        r"action cards?": r"actiekaart",
        r"\bblocks?\b": r"bouwste",
        r"\blevels?\b": r"niveau",
        r"\bdoors?\b": r"deur",
        r"action points?": r"actiepunt",
        r"\bphases?\b": r"fase",
        r"\bturn\b": r"beurt",
        r"marker": r"scorefiche",
        r"\bstacks?\b": r"stapel",
    },
}
# English words that must not be left standing in a translation (outside the notation).
ENGLISH = r"\b(knights?|castles?|blocks?|levels?|turn|phases|scoring|king|the|and|you|your)\b"


def _notation(text: str) -> list[str]:
    return re.findall(r"`[^`]+`", text)


def _prose(text: str) -> str:
    return re.sub(r"`[^`]+`", " ", text)


def _numbers(text: str) -> Counter[str]:
    return Counter(re.findall(r"\d+", text))


def _po(lang: str):
    with (ROOT / "bot" / "locales" / lang / "LC_MESSAGES" / "rules.po").open("rb") as f:
        return read_po(f, locale=lang)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_rules_po_holds_exactly_the_topics_translated(lang: str) -> None:
    """One entry per topic (plus the unknown-topic line), none fuzzy or empty, none left over."""
    catalog = _po(lang)
    entries = {m.id: m for m in catalog if m.id}
    assert set(entries) == {*TOPICS.values(), UNKNOWN}
    for message in entries.values():
        assert message.string and not message.fuzzy, message.id[:40]
        assert message.string != message.id
    assert "{topic}" in entries[UNKNOWN].string


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("topic", list(TOPICS))
def test_every_topic_fits_in_one_discord_message(lang: str, topic: str) -> None:
    text = topic_text(lang, topic)
    assert 0 < len(text) <= 2000
    if lang != "en":
        assert text != TOPICS[topic]


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("topic", list(TOPICS))
def test_translation_keeps_the_notation_and_the_numbers(lang: str, topic: str) -> None:
    """Same backticked notation examples and card ids, in the same order; same numbers."""
    english, text = TOPICS[topic], topic_text(lang, topic)
    assert _notation(text) == _notation(english)
    assert _numbers(text) == _numbers(english)
    assert text.startswith("**") and text.split("\n", 1)[0].count("**") == 2
    assert text.count("\n") == english.count("\n")
    assert text.count("•") == english.count("•")


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("topic", list(TOPICS))
def test_translation_speaks_the_rulebooks_words(lang: str, topic: str) -> None:
    """Each glossary word of the English topic has its rulebook counterpart in the translation."""
    english, text = _prose(TOPICS[topic]).lower(), _prose(topic_text(lang, topic)).lower()
    for source, target in TERMS[lang].items():
        if re.search(source, english):
            assert re.search(target, text), (topic, source, target)
    left = re.findall(ENGLISH, text)
    assert not left, (topic, left)


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("de", ["Ritter", "Burg", "König", "Königsburg", "Aktionskarte", "Baustein", "Ebene"]),
        ("nl", ["ridder", "burcht", "koning", "actiekaart", "bouwsteen", "niveau", "deur"]),
    ],
)
def test_the_rulebooks_key_terms_appear(lang: str, words: list[str]) -> None:
    every = "\n".join(topic_text(lang, topic) for topic in TOPICS)
    for word in words:
        assert word in every, word
    assert "Ritter" in topic_text("de", "moving") and "Burg" in topic_text("de", "building")
    assert "ridder" in topic_text("nl", "moving") and "burcht" in topic_text("nl", "building")


def test_topic_keys_are_english_and_lookup_ignores_case() -> None:
    for lang in LANGUAGES:
        assert topic_text(lang, None) == topic_text(lang, DEFAULT_TOPIC)
        assert topic_text(lang, " SCORING ") == topic_text(lang, "scoring")
    assert topic_text("de", "king").startswith("**Der König**")
    assert topic_text("nl", "king").startswith("**De koning**")
    assert rules_text("king") == topic_text("en", "king") == TOPICS["king"]


def test_unknown_topic_and_unknown_language() -> None:
    """An unknown topic is named and the overview follows; other languages read English."""
    assert topic_text("de", "schach") == (
        "Kein Regelthema namens „schach“.\n\n" + topic_text("de", DEFAULT_TOPIC)
    )
    assert topic_text("nl", "schaak").startswith("Geen regelonderwerp met de naam ‘schaak’.\n\n")
    assert topic_text("fr", "cards") == TOPICS["cards"]
    for lang in LANGUAGES:
        assert len(topic_text(lang, "x" * 6000)) <= 2000
