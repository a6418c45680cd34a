"""The words of German and Dutch texts (issue 33, item 11): plurals that follow the
number, the rulebooks' distinct words for the card deck and the block stacks, one
instruction at a time, and a taken-back action named once."""

from __future__ import annotations

import random

import pytest

from bot.core.panel import build_panel
from bot.db.rows import SeatRow
from bot.texts import posts as texts
from bot.texts.i18n import t, tp
from engine import Game


def _seats(names: list[str]) -> list[SeatRow]:
    return [SeatRow(1, i, 100 + i, f"P{i}", n, False, False, 0.0) for i, n in enumerate(names)]


@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [
        ("en", "castle a1: 1 square × level 2 = 2", "castle c3: 2 squares × level 1 = 2"),
        ("de", "Burg a1: 1 Feld × Ebene 2 = 2", "Burg c3: 2 Felder × Ebene 1 = 2"),
        ("nl", "burcht a1: 1 veld × niveau 2 = 2", "burcht c3: 2 velden × niveau 1 = 2"),
    ],
)
def test_a_castle_of_one_square_is_one_square(lang: str, one: str, two: str):
    """ "1 Felder" / "1 squares" no more: the castle's area takes the plural it needs."""
    event = {
        "type": "phase_scored",
        "phase": 1,
        "points": {"red": {"castles": 2, "king": 0}, "blue": {"castles": 2, "king": 0}},
        "scores": {"red": 2, "blue": 2},
    }
    position = {
        "heights": {"a1": 2, "c3": 1, "d3": 1},
        "knights": {"red": ["a1"], "blue": ["c3"]},
    }
    text = texts.phase_summary(event, _seats(["red", "blue"]), position, lang)
    assert one in text and two in text


def test_the_german_lobby_says_sie_of_a_partie():
    """ "Partie" is feminine: the author starts *sie*, not *es*."""
    text = t("de", "{author} can start it with `/torres start`.", author="<@1>")
    assert text == "<@1> kann sie mit `/torres start` starten."


def _zero_ap_with_a_card() -> Game:
    """A turn with no AP left and a card that can still be played (cards cost 0 AP)."""
    rng = random.Random(1)
    game = Game.new(players=2, seed=1)
    while game.stage != "over":
        legal = game.legal()
        if game.stage == "play" and game.ap == 0 and any(a.startswith("play ") for a in legal):
            return game
        game.play(rng.choice([a for a in legal if not a.startswith("play ")] or legal))
    raise AssertionError("no such turn")


@pytest.mark.parametrize("lang", ["en", "de", "nl"])
def test_at_0_ap_with_a_card_the_panel_gives_one_instruction(lang: str):
    """Not "0 AP left: press End turn." and "Choose what to do" together: one line
    that says both ways on."""
    game = _zero_ap_with_a_card()
    text = build_panel(game, header="", note="Done: …", lang=lang).text
    assert text.endswith(t(lang, "0 AP left: play a card, or press End turn."))
    assert t(lang, "Choose what to do; then where.") not in text
    assert t(lang, "0 AP left: press End turn.") not in text


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_the_rules_overview_lists_its_topics_in_the_readers_language(lang: str):
    """The topics as Discord shows the option's choices to this reader, not the English keys."""
    from bot.texts.rules import TOPICS, topic_text

    last = topic_text(lang, None).splitlines()[-1]
    for key in TOPICS:
        if key != "overview":
            assert f"*{tp(lang, 'command', key)}*" in last
            assert f"`{key}`" not in last
    assert topic_text(lang, "nonsense").endswith(last)


def test_a_taken_back_action_is_named_once():
    """Not "Took back `build e2` (Build on e2 (1 AP))": notation, then its words."""
    text = t("en", "Took back `{action}` — {description}.", action="build e2", description="x")
    assert text == "Took back `build e2` — x."
    assert t("de", "Took back `{action}` — {description}.", action="a", description="b") == (
        "Zurückgenommen: `a` — b."
    )


@pytest.mark.parametrize(("lang", "bare"), [("de", r"\bStapel\b"), ("nl", r"\bstapels?\b")])
def test_the_card_deck_and_the_block_stacks_have_different_words(lang: str, bare: str):
    """The rulebooks' words: a card deck is a Kartenstapel / trekstapel, so the bare
    Stapel / stapel always means a stack of blocks."""
    import re

    from bot.texts.i18n import CATALOGS as BOT
    from renderer.i18n import CATALOGS as RENDERER

    checked = 0
    for catalogs in (BOT, RENDERER):
        for m in catalogs.catalog(lang):
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            if not m.id or not any(re.search(r"\bdecks?\b", i) for i in ids):
                continue
            strs = m.string if isinstance(m.string, tuple) else (m.string,)
            for s in strs:
                assert not re.search(bare, s), (m.id, s)
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("lang", ["en", "de", "nl"])
def test_the_stacks_read_the_same_in_the_panel_the_picture_and_the_alt_text(lang: str):
    """One wording for the block stacks, not "stacks 3 3 3 3", "turn stack 0" and
    "stacks left: 3, 3": the panel, the picture's row and the alt text agree."""
    import renderer

    game = Game.new(players=2, seed=3)
    while game.stage != "play":
        game.play(game.legal()[0])
    for chosen in (False, True):
        if chosen:
            game.play(next(a for a in game.legal() if a.startswith("stack ")))
        me = game.to_move
        panel = build_panel(game, header="", lang=lang).text
        pos = game.position()
        drawn = [x.text for x in renderer.render(pos, me, language=lang).texts]
        alt = renderer.describe(pos, viewer=me, language=lang)
        stack = (pos.get("turn") or {}).get("stack")
        sizes = ", ".join(str(s) for s in pos["stacks"][me])
        if chosen:
            words = [
                renderer.i18n.tn(
                    lang, "this turn's stack: {n} block", "this turn's stack: {n} blocks", stack
                )
            ]
            assert words[0] in panel
        else:
            words = [renderer.i18n.t(lang, "stacks: {sizes}", sizes=sizes)]
            assert t(lang, "stacks: {stacks}", stacks=sizes) == words[0]
            assert words[0] in panel
        for w in words:
            assert any(w in line for line in drawn), (w, drawn)
            assert w in alt, (w, alt)


def test_a_typed_command_at_0_ap_with_a_card_says_the_card_can_still_be_played():
    """The private reply to a typed command agrees with the panel: a card is still free."""
    from bot.core.panel import ap_line

    assert ap_line(_zero_ap_with_a_card(), lang="de").endswith(
        " 0 AP übrig: Spiele eine Karte oder drücke „Zug beenden“ oder spiele `end`."
    )
