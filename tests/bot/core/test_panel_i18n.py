"""The play panel in German and Dutch: texts, Discord's limits in every language, the catalog."""

from __future__ import annotations

import inspect
import random
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from babel.messages.extract import extract_from_file
from hypothesis import given, settings
from hypothesis import strategies as st

import bot
import engine
from bot.core.panel import (
    BUTTON_LIMIT,
    DO,
    LIMIT,
    MAX_OPTIONS,
    PLACEHOLDER_LIMIT,
    WHAT,
    PanelModel,
    ap_line,
    build_panel,
    describe,
    done_words,
    end_question,
    group_label,
)
from bot.texts.i18n import CATALOGS, LANGUAGES, t
from engine import Game
from renderer.i18n import KEYWORDS
from renderer.i18n import card_name as renderer_card_name
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env, random_position

BOT = Path(bot.__file__).parent
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def play_until(variant: str, wanted: Callable[[Game], bool], players: int = 2) -> Game:
    """The first position of some random games of *variant* where *wanted* holds."""
    for seed in range(200):
        rng = random.Random(seed)
        game = Game.new(players=players, variant=variant, seed=seed)
        for _ in range(400):
            if wanted(game):
                return game
            legal = game.legal()
            if not legal:
                break
            game.play(rng.choice(legal))
    raise AssertionError(f"no {variant} position found")


def all_panels(game: Game, lang: str) -> list[PanelModel]:
    """The panel as first shown and after each choice of a group (and of a source square)."""
    first = build_panel(game, header="h", lang=lang)
    out = [first]
    todo = [o.value for s in first.selects for o in s.options if o.value.startswith(WHAT)]
    seen = set()
    while todo:
        value = todo.pop()
        if value in seen:
            continue
        seen.add(value)
        panel = build_panel(game, header="h", group=value[len(WHAT) :], lang=lang)
        out.append(panel)
        todo += [o.value for s in panel.selects[1:] for o in s.options if o.value.startswith(WHAT)]
    return out


def texts_of(panel: PanelModel) -> list[str]:
    return [
        panel.text,
        *(s.placeholder for s in panel.selects),
        *(o.label for s in panel.selects for o in s.options),
        *(o.description for s in panel.selects for o in s.options if o.description),
    ]


def check_limits(panel: PanelModel) -> None:
    """Discord's limits hold, and no text had to be cut to hold them."""
    assert len(panel.selects) <= 4 and len(panel.text) <= 2000
    for select in panel.selects:
        assert 1 <= len(select.options) <= MAX_OPTIONS
        assert len(select.placeholder) <= PLACEHOLDER_LIMIT
        assert not select.placeholder.endswith("…"), select.placeholder
        for o in select.options:
            assert 1 <= len(o.label) <= LIMIT and 1 <= len(o.value) <= LIMIT
            assert not o.label.endswith("…"), o.label
            assert o.description is None or len(o.description) <= LIMIT


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 120),
    variant=st.sampled_from(["common", "personal", "master"]),
)
def test_discord_limits_hold_in_every_language(seed: int, steps: int, variant: str) -> None:
    """Random positions: each panel and sub-panel fits Discord in English, German and Dutch,
    offers the same values in each, and no label is truncated to fit."""
    game = random_position(seed, steps, variant)
    if game.stage == "over":
        return
    values: dict[str, list[list[str]]] = {}
    for lang in LANGUAGES:
        panels = all_panels(game, lang)
        for panel in panels:
            check_limits(panel)
        values[lang] = [[o.value for s in p.selects for o in s.options] for p in panels]
        for action in game.legal():
            assert len(describe(action, game, lang=lang)) <= LIMIT
    assert values["de"] == values["en"] and values["nl"] == values["en"]


def test_every_card_fits_every_label_in_every_language() -> None:
    """The longest words a card can be named in: each card in each label that names one
    (random positions may never hold the card with the longest name)."""
    for lang in LANGUAGES:
        for card in engine.CARDS:
            texts = [
                describe(f"keep {card} top", lang=lang),
                describe(f"keep {card} bottom", lang=lang),
                describe(f"play {card} c3 c4", lang=lang),
                describe(f"play {card} c3", lang=lang),
                describe(f"play {card} c3 turn", lang=lang),
                describe(f"play {card} c3 3", lang=lang),
                describe(f"play {card} c3 c4 d4", lang=lang),
                group_label(f"play {card}", 2, lang),
                group_label(f"play {card} c3", 2, lang),
            ]
            for text in texts:
                assert len(text) <= LIMIT, text
            long_group = group_label(f"play {card} c3", 2, lang)
            for placeholder in (
                t(lang, "{what} from {square}: choose", what=long_group, square="c3")
                + " (ranks 1–8)",
                t(lang, "{what}, from which square?", what=long_group) + " (ranks 1–8)",
            ):
                assert len(placeholder) <= PLACEHOLDER_LIMIT, placeholder


def test_buttons_and_questions_fit_in_every_language() -> None:
    from bot.client.panel_views import _BUTTONS, CONFIRM, KEEP_PLAYING, button_label

    for lang in LANGUAGES:
        for text in [*(b[0] for b in _BUTTONS.values()), CONFIRM, KEEP_PLAYING]:
            label = button_label(text, lang)
            assert 1 <= len(label) <= BUTTON_LIMIT and not label.endswith("…")
        assert len(end_question(99, lang)) <= 2000


def english_free(en: PanelModel, other: PanelModel) -> None:
    """Every option reads differently from the English one (only the values are shared)."""
    assert [o.value for s in en.selects for o in s.options] == [
        o.value for s in other.selects for o in s.options
    ]
    for s_en, s_other in zip(en.selects, other.selects, strict=True):
        assert s_en.placeholder != s_other.placeholder
        for a, b in zip(s_en.options, s_other.options, strict=True):
            assert a.label != b.label, a.label
            assert a.description is None or a.description != b.description, a.description


def test_setup_in_german_and_dutch() -> None:
    game = Game.new(players=2, seed=3)
    assert game.stage in ("castles", "place")
    de = build_panel(game, header="h", lang="de")
    nl = build_panel(game, header="h", lang="nl")
    assert "Aufbau: Setze deinen ersten Ritter auf eine Startburg." in de.text
    assert "Opbouw: zet je eerste ridder op een startburcht." in nl.text
    en = build_panel(game, header="h")
    english_free(en, de)
    english_free(en, nl)
    assert de.selects[-1].options[0].label.startswith("Erster Ritter auf ")
    assert nl.selects[-1].options[0].label.startswith("Eerste ridder op ")
    assert de.selects[-1].options[0].description.startswith("Ebene ")  # type: ignore[union-attr]
    # The king after setup: its own words.
    king = play_until("common", lambda g: g.stage == "king")
    de = build_panel(king, header="h", lang="de", group="king")
    labels = [o.label for s in de.selects for o in s.options]
    assert any(x.startswith("König nach ") for x in labels), labels


def test_master_setup_places_starting_blocks_in_each_language() -> None:
    game = Game.new(players=3, variant="master", seed=4)
    assert game.stage == "castles"
    de = build_panel(game, header="h", lang="de")
    nl = build_panel(game, header="h", lang="nl")
    assert "Aufbau: Setze einen Startbaustein." in de.text
    assert "Opbouw: plaats een startbouwsteen." in nl.text
    assert de.selects[0].options[0].label == "Startbaustein setzen"
    assert nl.selects[0].options[0].label == "Startbouwsteen plaatsen"
    assert all(o.label.startswith("Startbaustein auf ") for s in de.selects[1:] for o in s.options)
    assert all(o.label.startswith("Startbouwsteen op ") for s in nl.selects[1:] for o in s.options)
    where = [s.placeholder for s in de.selects[1:]]
    assert all(re.search(r"\(Reihen? \d(–\d)?\)$", p) for p in where), where


def test_master_version_play_in_german_and_dutch() -> None:
    game = play_until("master", lambda g: g.stage == "play" and g.round > 1)
    for lang, words in (("de", ("noch **", "Kartenhand: ")), ("nl", ("nog **", "hand: "))):
        panels = all_panels(game, lang)
        assert all(w in panels[0].text for w in words), panels[0].text
        english = all_panels(game, "en")
        for en, other in zip(english, panels, strict=True):
            english_free(en, other)


def test_cards_in_hand_in_german_and_dutch() -> None:
    def with_cards(g: Game) -> bool:
        return g.stage == "play" and any(a.startswith("play ") for a in g.legal())

    game = play_until("common", with_cards)
    me = game.to_move
    assert me is not None
    for lang in ("de", "nl"):
        panel = build_panel(game, header="h", lang=lang)
        for card in game.hand(me):
            assert renderer_card_name(lang, card) in panel.text
        plays = [o for s in panel.selects for o in s.options if " play " in f" {o.value[2:]}"]
        assert plays
        verb = "spielen" if lang == "de" else "spelen"
        assert all(verb in o.label for o in plays), [o.label for o in plays]
        english_free(build_panel(game, header="h"), panel)
        for o in plays:
            if o.value.startswith(WHAT):
                sub = build_panel(game, header="h", group=o.value[len(WHAT) :], lang=lang)
                english_free(build_panel(game, header="h", group=o.value[len(WHAT) :]), sub)
                assert all(verb in x.label for s in sub.selects[1:] for x in s.options)


def test_personal_decks_keep_in_german_and_dutch() -> None:
    game = play_until("personal", lambda g: g.stage == "draw-keep")
    de = build_panel(game, header="h", lang="de", group="keep")
    nl = build_panel(game, header="h", lang="nl", group="keep")
    assert "Gezogen, behalte eine: " in de.text and "Getrokken, houd er één: " in nl.text
    keep_de = [o.label for s in de.selects[1:] for o in s.options]
    keep_nl = [o.label for s in nl.selects[1:] for o in s.options]
    assert keep_de and all(" behalten, " in x and "Kartenstapel" in x for x in keep_de), keep_de
    assert keep_nl and all(" houden, " in x and "trekstapel" in x for x in keep_nl), keep_nl
    assert de.selects[0].placeholder == "…oder wähle etwas anderes"
    english_free(build_panel(game, header="h", group="keep"), de)
    assert ap_line(game, lang="de").startswith("Behalte jetzt eine der gezogenen Karten: `keep ")
    assert ap_line(game, lang="nl").startswith("Houd nu een van de getrokken kaarten: `keep ")


def test_replies_and_plurals() -> None:
    game = play_until("common", lambda g: g.stage == "play" and g.ap == 5)
    after = game.copy()
    after.play("score; score; score; score; score")
    assert done_words("score 5", game, after, panel=True, lang="de") == (
        "Wertungsstein 5 Felder vorrücken (5 AP)."  # the panel says what to do at 0 AP
    )
    assert done_words("score 5", game, after, panel=True, lang="nl") == (
        "Scorefiche 5 velden vooruit (5 AP)."
    )
    assert describe("score 1", lang="de") == "Wertungsstein 1 Feld vorrücken (1 AP)"
    assert describe("stack 1", lang="nl") == "Stapel van 1 bouwsteen nemen (0 AP)"
    assert describe("stack 3", lang="nl") == "Stapel van 3 bouwstenen nemen (0 AP)"
    assert describe("move c3 d3 d4", lang="de") == "Ritter c3 → d3 → d4 (2 AP)"
    assert end_question(1, "de").startswith("Du hast noch **1 AP**. Zug trotzdem beenden?")
    assert end_question(3, "nl").startswith("Je hebt nog **3 AP**. Beurt toch beëindigen?")
    # Values and notation stay as they are: only words are translated.
    assert describe("play jump c3 c4", lang="de").endswith(": Ritter c3 → c4")
    assert ap_line(after, lang="de") == "0 AP übrig: Drücke „Zug beenden“ oder spiele `end`."


# -- the service: the panel speaks the language of the user who presses it ------------


async def test_the_service_panel_speaks_the_users_language(env: Env) -> None:
    from bot.core.panel import DO

    ann_de = replace(ANN, locale="de")
    bob_nl = replace(BOB, locale="nl")
    await env.service.new(
        guild_id=GUILD, channel_id=CHANNEL, user=ann_de, players=2, variant="common", bots=0
    )
    await env.service.join(channel_id=CHANNEL, user=bob_nl)
    await env.service.start(channel_id=CHANNEL, user=ann_de)
    row = await env.store.game(1)
    assert row is not None
    opened = await env.service.panel_open(game_id=1, turn=row.turn_no, user=ann_de)
    assert opened.model.text.startswith("**Du bist am Zug** in Partie #1 (")
    assert "Aufbau)" in opened.model.text
    value = opened.model.selects[-1].options[0].value
    assert value.startswith(DO + "place ")
    done = await env.service.panel_press(
        game_id=1, turn=row.turn_no, user=ann_de, op="do", value=value
    )
    assert done.model.closed and done.model.text.startswith("**")
    assert (
        "Du hast `place " in done.model.text
        and "die Zugnachricht steht im Kanal" in done.model.text
    )
    stale = await env.service.panel_press(game_id=1, turn=row.turn_no, user=bob_nl, op="hint")
    assert stale.model.closed and stale.model.text.startswith("Deze beurt is voorbij (")
    row = await env.store.game(1)
    assert row is not None
    opened = await env.service.panel_open(game_id=1, turn=row.turn_no, user=bob_nl)
    assert opened.model.text.startswith("**Jij bent aan de beurt** in spel #1 (")
    assert opened.model.selects[0].placeholder in ("Wat wil je doen?", "…of kies iets anders")
    question = await env.service.confirmable(what="resign", channel_id=CHANNEL, user=bob_nl)
    assert question.question.startswith("Opgeven in spel #1?") and question.confirm_label == (
        "Opgeven"
    )
    cancel = await env.service.confirmable(what="cancel", channel_id=CHANNEL, user=ann_de)
    assert cancel.question.startswith("Partie #1 für alle abbrechen?")
    assert cancel.confirm_label == "Partie abbrechen"


async def test_end_turn_with_ap_left_asks_in_the_users_language(env: Env) -> None:
    ann_nl = replace(ANN, locale="nl")
    await env.service.new(
        guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2, variant="common", bots=0
    )
    await env.service.join(channel_id=CHANNEL, user=BOB)
    await env.service.start(channel_id=CHANNEL, user=ANN)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    await env.service.play(channel_id=CHANNEL, user=BOB, text="place f6")
    await env.service.play(channel_id=CHANNEL, user=BOB, text="king d1")
    row = await env.store.game(1)
    assert row is not None
    asked = await env.service.panel_press(game_id=1, turn=row.turn_no, user=ann_nl, op="end")
    assert asked.model.confirm_end
    assert "Je hebt nog **5 AP**. Beurt toch beëindigen?" in asked.model.text
    assert "fase 1, ronde 1)" in asked.model.text
    shown = await env.service.panel_press(game_id=1, turn=row.turn_no, user=ann_nl, op="back")
    assert shown.note == "tot nu toe veranderd in deze beurt"  # the picture's legend
    assert "nog **5 AP**" in shown.model.text and "Kies hieronder een actie" in (shown.model.text)
    built = next(
        o.value
        for s in shown.model.selects
        for o in s.options
        if o.value.startswith(WHAT + "move ")
    )
    moves = await env.service.panel_press(
        game_id=1, turn=row.turn_no, user=ann_nl, op="what", value=built
    )
    chosen = next(
        o
        for s in moves.model.selects
        if s.placeholder.startswith("Ridder")
        for o in s.options
        if len(o.value.split()) == 3  # one step
    )
    assert chosen.label.startswith("Ridder ")
    done = await env.service.panel_press(
        game_id=1, turn=row.turn_no, user=ann_nl, op="do", value=chosen.value
    )
    assert "Gedaan: Ridder c3 → " in done.model.text and "nog **4 AP**" in done.model.text
    assert chosen.value.startswith(DO + "move c3 ")


# -- the catalog -------------------------------------------------------------------


def marked(path: Path, lines: Callable[[int], bool] = lambda n: True) -> set[str]:
    with path.open("rb") as f:
        return {
            m[1] if isinstance(m[1], str) else m[1][0]
            for m in extract_from_file("python", f.name, keywords=KEYWORDS)
            if lines(m[0])
        }


def service_panel_lines() -> dict[Path, set[int]]:
    """The lines of the panel's functions in the game service's modules (bot/core/presses.py,
    bot/core/seating.py; the rest of those files is not this catalog's)."""
    from bot.core.service import GameService

    out: dict[Path, set[int]] = {}
    for name in PANEL_FUNCTIONS:
        function = getattr(GameService, name)
        source, first = inspect.getsourcelines(function)
        path = Path(inspect.getsourcefile(function) or "")
        out.setdefault(path, set()).update(range(first, first + len(source)))
    return out


PANEL_FUNCTIONS = (
    "panel_open",
    "panel_press",
    "confirmable",
    "_may_cancel",
    "end_needs_confirm",
    "_panel_header",
    "_closed_panel",
    "_panel_state",
    "_several",
)


def test_every_panel_text_is_in_german_and_dutch() -> None:
    """Each text marked in the panel's code has a German and a Dutch translation with the
    same placeholders in panel.po, and panel.po holds nothing else."""
    ids = (
        marked(BOT / "core" / "panel.py")
        | marked(BOT / "texts" / "panel_words.py")
        | marked(BOT / "client" / "panel_views.py")
    )
    for path, lines in service_panel_lines().items():
        ids |= marked(path, lines.__contains__)
    for lang in ("de", "nl"):
        from babel.messages.pofile import read_po

        with (BOT / "locales" / lang / "LC_MESSAGES" / "panel.po").open("rb") as f:
            po = read_po(f, locale=lang)
        ours = {m.id if isinstance(m.id, str) else m.id[0]: m for m in po if m.id}
        assert ids == set(ours), (ids - set(ours), set(ours) - ids)
        for key, message in ours.items():
            assert not message.fuzzy, key
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            sources = message.id if isinstance(message.id, tuple) else (message.id,)
            want = set(PLACEHOLDER.findall(" ".join(sources)))
            for s in strings:
                assert s, f"{lang}: {key!r} is not translated"
                got = set(PLACEHOLDER.findall(s))
                if len(sources) > 1:  # tn fills {n} itself: a plural form may leave it out
                    got, want = got | {"n"}, want | {"n"}
                assert got == want, (lang, key, s)
        assert CATALOGS.get(lang).gettext("What do you want to do?") != "What do you want to do?"
