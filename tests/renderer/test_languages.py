"""The picture and its alt text in English, German and Dutch.

Every text the renderer writes is in its catalogs (renderer/locales, the
renderer.po files) in German and Dutch with the same placeholders; a German or
Dutch picture holds no English word of ours; the layout (no overlap, on the
canvas, legible on a phone) and the alt text's limit hold in every language.
"""

from __future__ import annotations

import copy
import io
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from renderer_samples import load, load_highlight
from test_whole_games import positions_of_a_game

import engine
import renderer
import renderer.geometry as g
from renderer.i18n import CATALOGS, KEYWORDS, LANGUAGES, card_name, colour_name

ROOT = Path(__file__).resolve().parents[2]
RENDERER = ROOT / "renderer"
OTHERS = ("de", "nl")
#: The renderer's own catalog (cards.po, the card texts, is checked with the bot's).
DOMAIN = "renderer.po"


def extracted() -> dict[str | tuple[str, ...], str]:
    """Every message the renderer's source marks, as pybabel extract finds it."""
    from babel.messages.extract import extract_from_file

    found: dict[str | tuple[str, ...], str] = {}
    for path in sorted(RENDERER.glob("*.py")):
        for _line, msgid, _comments, context in extract_from_file(
            "python", str(path), keywords=KEYWORDS
        ):
            assert context is None, msgid
            found[msgid] = path.name
    return found


def own_catalog(lang: str):
    from babel.messages.pofile import read_po

    with (RENDERER / "locales" / lang / "LC_MESSAGES" / DOMAIN).open("rb") as f:
        return read_po(f, locale=lang)


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w*)\}", text))


def test_the_source_marks_texts():
    messages = extracted()
    assert len(messages) > 50
    assert "Phase {phase} of 3 · Round {round} of {rounds}" in messages
    assert ("{n} card", "{n} cards") in messages


@pytest.mark.parametrize("lang", OTHERS)
def test_every_text_is_translated_with_the_same_placeholders(lang):
    """Each marked text has a German and a Dutch translation (not fuzzy, every
    plural form), naming the same placeholders; the catalog holds nothing else."""
    catalog = own_catalog(lang)
    messages = extracted()
    assert catalog.num_plurals == 2
    for msgid in messages:
        message = catalog.get(msgid)
        assert message is not None, f"{lang}: {msgid!r} is not in {DOMAIN}"
        assert not message.fuzzy, msgid
        ids = msgid if isinstance(msgid, tuple) else (msgid,)
        strs = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strs), f"{lang}: {msgid!r} is not translated"
        want = set().union(*(placeholders(i) for i in ids))
        for s in strs:
            assert placeholders(s) <= want | {"n"}, (lang, msgid, s)
            assert placeholders(s) >= placeholders(ids[0]) - {"n"}, (lang, msgid, s)
    stale = {m.id for m in catalog if m.id} - set(messages)
    assert not stale, f"{lang}: {DOMAIN} has texts the source no longer marks: {stale}"


def test_the_catalogs_load_through_the_shared_speaker():
    assert CATALOGS.get("de").gettext("Setup") == "Aufbau"
    assert CATALOGS.get("nl").gettext("Setup") == "Opbouw"


# -- English words never show in a German or Dutch picture ------------------------


def english_fragments() -> list[str]:
    """The literal words of our English texts, between placeholders (long
    enough to be words, not "AP" or a colon)."""
    fragments = set()
    for msgid in extracted():
        for text in msgid if isinstance(msgid, tuple) else (msgid,):
            for piece in re.split(r"\{\w*\}", text):
                piece = piece.strip(" .,:;·()")
                if len(piece) >= 6:
                    fragments.add(piece)
    return sorted(fragments)


STORED = ["setup", "midgame", "late", "final", "master", "personal"]


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("name", STORED)
def test_no_english_in_a_translated_picture_or_alt_text(name, lang, monkeypatch):
    from renderer import _describe, _panel

    # The master card's name and help come from cards.po (another catalog).
    for module in (_panel, _describe):
        monkeypatch.setattr(module, "master_card_name", lambda lang, card: card)
    monkeypatch.setattr(_panel, "master_card_help", lambda lang, card: "")
    pos = load(name)
    fragments = english_fragments()
    assert "to move" in fragments and "in reserve" in fragments
    for viewer in (None, pos["to_move"] or pos["players"][0]):
        r = renderer.render(pos, viewer=viewer, highlight=["e4"], language=lang)
        drawn = " ".join(t.text for t in r.texts)
        words = renderer.describe(pos, viewer=viewer, highlight=["e4"], language=lang)
        for fragment in fragments:
            assert fragment not in drawn, (lang, fragment)
            assert fragment not in words, (lang, fragment)
        # nor the seats' English colours: the players are named in the picture's language
        colours = re.compile(r"\b(red|blue|green|yellow)\b", re.IGNORECASE)
        assert not colours.findall(drawn), (lang, drawn)
        assert not colours.findall(words), (lang, words)


def test_english_is_the_default_and_other_languages_are_refused():
    pos = load("late")
    assert renderer.render_board(pos, "red") == renderer.render_board(pos, "red", language="en")
    assert renderer.describe(pos) == renderer.describe(pos, language="en")
    for bad in ("fr", "", "DE", None):
        with pytest.raises(ValueError, match="language"):
            renderer.render_board(pos, language=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="language"):
            renderer.describe(pos, language=bad)  # type: ignore[arg-type]


def test_the_words_of_a_german_and_a_dutch_picture():
    pos = load("late")
    texts = {
        lang: " ".join(t.text for t in renderer.render(pos, "red", ["e1"], language=lang).texts)
        for lang in OTHERS
    }
    assert "Phase 3/3 · Runde 3/3" in texts["de"]
    assert "Gelb am Zug · noch\u00a05\u00a0AP" in texts["de"]
    assert "Königsburg: 2 Felder, 2 hoch" in texts["de"]
    # the cards by name, as the panel and /torres hand name them
    assert "Deine Karten (Rot): 7 Aktionspunkte, Über einen Ritter springen" in texts["de"]
    assert "Fase 3/3 · Ronde 3/3" in texts["nl"]
    assert "geel aan de beurt · nog\u00a05\u00a0AP" in texts["nl"]
    assert "Je hand (rood): 7 actiepunten, Over een ridder springen" in texts["nl"]
    assert "1 stapel · 0 in voorraad · 2 kaarten" in texts["nl"]


def test_plurals_follow_the_count():
    pos = load("midgame")
    one = copy.deepcopy(pos)
    player = one["players"][0]
    one["scores"][player] = 1
    assert "1 Punkt," in renderer.describe(one, language="de")
    assert "1 punt," in renderer.describe(one, language="nl")
    assert "1 point," in renderer.describe(one)
    assert "0 Punkte," in renderer.describe(one, language="de")
    assert "0 punten," in renderer.describe(one, language="nl")


def test_the_caller_translates_the_note_and_the_default_note_is_translated():
    pos = load("late")
    r = renderer.render(pos, highlight=["e1"], language="de")
    assert "Rosa Rahmen: zuletzt geändert" in " ".join(t.text for t in r.texts)
    text = renderer.describe(
        pos, highlight=["e1"], highlight_note="von Ann geändert", language="de"
    )
    assert "Rosa umrahmt (von Ann geändert): e1." in text


def test_the_master_card_goes_through_the_card_catalogs(monkeypatch):
    """Its name and help are asked of renderer.i18n (cards.po) in the picture's language."""
    from renderer import _describe, _panel

    asked = []
    monkeypatch.setattr(_panel, "master_card_name", lambda lang, c: asked.append(lang) or "NAME")
    monkeypatch.setattr(_panel, "master_card_help", lambda lang, c: asked.append(lang) or "HELP")
    monkeypatch.setattr(_describe, "master_card_name", lambda lang, c: asked.append(lang) or "N")
    pos = load("master")
    drawn = " ".join(t.text for t in renderer.render(pos, language="nl").texts)
    assert "Meesterkaart: NAME" in drawn and "HELP" in drawn
    assert "Meesterkaart: N." in renderer.describe(pos, language="nl")
    assert set(asked) == {"nl"}


# -- layout in every language ------------------------------------------------------


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_clean(r, what) -> None:
    for t in r.texts:
        x0, y0, x1, y1 = t.box
        assert x0 >= 0 and y0 >= 0 and x1 <= g.WIDTH and y1 <= g.HEIGHT, (what, t)
    for a, b in itertools.combinations(r.texts, 2):
        assert not _overlap(a.box, b.box), (what, a, b)


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize(
    ("variant", "players", "seed"), [("common", 4, 1), ("personal", 2, 5), ("master", 4, 4)]
)
def test_every_stage_of_a_game_is_laid_out_cleanly(variant, players, seed, lang):
    """German and Dutch run longer than English: still no text overlaps another
    or leaves the canvas, none is cut with an ellipsis, and the panel's small
    print is never much smaller than the English."""
    for i, pos in enumerate(positions_of_a_game(variant, players, seed, every=15)):
        viewer = pos["to_move"] or pos["players"][0]
        hl = ["e4", "a1"] if i % 2 else []
        english = renderer.render(pos, viewer, hl)
        r = renderer.render(pos, viewer, hl, language=lang)
        assert_clean(r, (lang, pos["stage"], i))
        assert not [t for t in r.texts if t.text.endswith("…")], (lang, i)
        smallest = min(t.size for t in r.texts)
        assert smallest >= min(t.size for t in english.texts) - 3, (lang, i)


@pytest.mark.parametrize("lang", OTHERS)
def test_long_names_and_a_full_master_hand_fit_in_every_language(lang):
    game = engine.Game.new(players=4, variant="master", seed=9, master_card="castles")
    pos = game.position()
    long = "Maximiliane-Konstantina von und zu Hohenlohe"
    labels = {"red": long, "blue": "Bartholomew", "green": "Wilhelmina", "yellow": "Zoë"}
    pos["hands"]["red"] = sorted(engine.CARDS)
    note = "durch die letzten drei Aktionen von Maximiliane-Konstantina geändert"
    r = renderer.render(pos, "red", ["a1"], highlight_note=note, labels=labels, language=lang)
    assert_clean(r, lang)
    footer = " ".join(t.text for t in r.texts if t.layer == "footer")
    for card in engine.CARDS:
        assert card_name(lang, card) in footer
    assert note in footer


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("name", ["setup", "midgame", "final", "master", "personal"])
def test_phone_legibility_in_every_language(name, lang):
    """At Discord's phone preview (400 px wide) the header and the names are
    drawn at 7.9 px or more, the heights and scores at 12 px, as in English,
    and the smallest print is about as large as the English picture's."""
    phone = 400 / g.WIDTH
    r = renderer.render(load(name), language=lang)
    players = [colour_name(lang, p) for p in load(name)["players"]]
    header = [t for t in r.texts if t.layer == "header"]
    names = [t for t in r.texts if t.layer == "panel" and t.text.lstrip("▶★ ") in players]
    assert len(names) == len(players)
    for t in header + names:
        assert t.size * phone >= 7.9, t
    for t in r.texts:
        if t.text.isdigit() and t.size >= 40:
            assert t.size * phone >= 12, t
    # The smallest print (marker letters, a long row squeezed) is about the
    # English picture's.
    english = renderer.render(load(name))
    assert min(t.size for t in r.texts) >= min(t.size for t in english.texts) - 2


# -- the alt text in every language ------------------------------------------------


def long_names(pos: dict, names: list[str]) -> dict:
    text = json.dumps(pos)
    for old, new in zip(pos["players"], names, strict=True):
        text = text.replace(json.dumps(old), json.dumps(new))
    return json.loads(text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_alt_text_stays_within_the_limit_on_many_positions(lang):
    """Along whole games of every variant, with 32-character names, a viewer
    and a long note, the alt text keeps to 1,000 characters and says the
    essentials first."""
    count = 0
    for variant, players, seed in [("common", 4, 1), ("personal", 3, 2), ("master", 4, 4)]:
        for i, pos in enumerate(positions_of_a_game(variant, players, seed, every=10)):
            names = [chr(65 + k) * 32 for k in range(players)]
            for p in (pos, long_names(pos, names)):
                viewer = p["to_move"] or p["players"][0]
                for note in (None, "x" * 300):
                    text = renderer.describe(
                        p, viewer=viewer, highlight=["e1", "h8"], highlight_note=note, language=lang
                    )
                    assert 0 < len(text) <= renderer.DESCRIPTION_LIMIT, (lang, variant, i)
                    assert not text.endswith("…"), (lang, variant, i, len(text))
                    count += 1
    assert count > 100


@settings(max_examples=30, deadline=None)
@given(
    lang=st.sampled_from(LANGUAGES),
    names=st.lists(
        st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=32)
        .map(str.strip)
        .filter(bool),
        min_size=4,
        max_size=4,
        unique=True,
    ),
    note=st.none() | st.text(max_size=400),
)
def test_any_names_and_note_fit_discords_limit_in_every_language(lang, names, note):
    try:
        pos = long_names(load("late"), names)
        engine.Game.from_position(pos)
    except (ValueError, json.JSONDecodeError):
        return
    text = renderer.describe(
        pos, viewer=names[1], highlight=["e1"], highlight_note=note, language=lang
    )
    assert 0 < len(text) <= renderer.DESCRIPTION_LIMIT


def test_the_alt_text_in_german_and_dutch():
    pos = load("late")
    de = renderer.describe(pos, viewer="red", highlight=load_highlight("late"), language="de")
    assert de.startswith(
        "Torres-Spielplan (gemeinsamer Kartenstapel). Phase 3 von 3, Runde 3 von 3: "
    )
    assert "Gelb ist am Zug, noch 5 AP." in de
    assert "Rot (rotoranger Kreis): 8 Punkte" in de
    assert "Der König steht auf c6; die Königsburg hat 2 Felder, 2 hoch." in de
    assert "Deine Karten: 7 Aktionspunkte, Über einen Ritter springen." in de
    nl = renderer.describe(pos, viewer="red", language="nl")
    assert "geel is aan de beurt, nog 5 AP." in nl
    assert "blauw (hemelsblauw vierkant): 17 punten" in nl
    assert "Trekstapel: nog 25 kaarten." in nl
    final = renderer.describe(load("final"), language="de")
    assert "Spielende: Blau gewinnt mit 25 Punkten." in final
    assert final.count("Rangfolge: ") == 1


# -- command lines and the animation -----------------------------------------------


def test_the_command_line_takes_a_language(tmp_path):
    src = tmp_path / "position.json"
    pos = load("late")
    src.write_text(json.dumps(pos))
    out = tmp_path / "board.png"
    done = subprocess.run(
        [sys.executable, "-m", "renderer", "--position", str(src), "--out", str(out)]
        + ["--viewer", "red", "--language", "de", "--describe"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == renderer.render_board(pos, "red", [], language="de")
    assert done.stdout.strip() == renderer.describe(pos, viewer="red", language="de")
    bad = subprocess.run(
        [sys.executable, "-m", "renderer", "--position", str(src), "--out", str(out)]
        + ["--language", "fr"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "language" in bad.stderr


def test_the_animation_and_the_replay_command_take_a_language(tmp_path, capsys):
    from renderer import replay

    game = engine.Game.new(players=2, seed=4)
    positions = [game.position()]
    english = replay.animate(positions, width=300)
    dutch = replay.animate(positions, width=300, language="nl")
    assert english != dutch
    with Image.open(io.BytesIO(dutch)) as im:
        assert im.width == 300
    with pytest.raises(ValueError, match="language"):
        replay.animate(positions, language="fr")
    out = tmp_path / "demo"
    args = ["--ai", "2", "--out", str(out), "--level", "random", "--seed", "3"]
    assert replay.main([*args, "--language", "de", "--width", "200"]) == 0
    capsys.readouterr()
    first = out / "decision-001.png"
    assert first.exists()
    with pytest.raises(SystemExit):
        replay.main([*args, "--language", "xx"])
