"""The engine's refusals in German and Dutch (bot/texts/refusals.py, engine.po).

The engine names every refusal by a code with params; the bot translates the
code's English template (its msgid) and fills it, so a German player reads
exactly why, in German.
"""

from __future__ import annotations

import random
import string

import pytest

from bot.texts.i18n import CATALOGS
from bot.texts.refusals import msgids, refusal
from engine import CARDS, Game, IllegalAction, NotationError
from engine.messages import TEMPLATES
from renderer.i18n import card_name


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_every_template_is_translated_with_the_same_placeholders(lang):
    catalog = CATALOGS.catalog(lang)
    missing, differ = [], []
    for code, entry in TEMPLATES.items():
        msgid = entry if isinstance(entry, str) else entry[0]
        message = catalog.get(msgid)
        if message is None or message.fuzzy or not all(_strings(message.string)):
            missing.append(code)
            continue
        for text in _strings(message.string):
            if _fields(text) != _fields(msgid):
                differ.append((code, text))
        if not isinstance(entry, str):
            assert message.id == (entry[0], entry[1]), code
            assert len(message.string) == 2, code
    assert missing == []
    assert differ == []
    for msgid in msgids():  # the words of {levels} as well
        message = catalog.get(msgid if isinstance(msgid, str) else msgid[0])
        assert message is not None and all(_strings(message.string)), msgid


def _strings(s: str | tuple[str, ...]) -> tuple[str, ...]:
    return (s,) if isinstance(s, str) else tuple(s)


def test_msgids_lists_every_template():
    ids = msgids()
    for entry in TEMPLATES.values():
        assert (entry if isinstance(entry, str) else (entry[0], entry[1])) in ids
    assert {"one level", "two levels", "three levels", ("{n} level", "{n} levels")} <= set(ids)


def _game() -> Game:
    """red to move in a turn: a knight on f3 (level 0) next to a tower of 3 on g3."""
    pos = Game.new(2, seed=1).position()
    pos.update(stage="play", knights={"red": ["f3", "b2"], "blue": ["c3"]}, king="c6")
    pos["heights"] = {"c3": 1, "c6": 1, "g3": 3, "e8": 1, "d1": 1, "h4": 1, "a5": 1, "b2": 1}
    pos["stacks"] = {"red": [2, 2], "blue": [2, 2]}
    pos["hands"] = {"red": ["vault"], "blue": []}
    return Game.from_position(pos)


def _refused(game: Game, text: str) -> IllegalAction | NotationError:
    with pytest.raises((IllegalAction, NotationError)) as info:
        game.copy().play(text)
    return info.value


CASES = [
    (
        "move f3 f5",
        "f5 is not next to f3, and no door of a castle your knight can enter there leads out "
        "onto f5 (it must be next to a higher square of that castle).",
        "f5 liegt nicht neben f3, und kein Tor einer Burg, die dein Ritter dort betreten kann, "
        "führt hinaus auf f5 (es muss neben einem höheren Feld dieser Burg liegen).",
        "f5 ligt niet naast f3, en geen deur van een burcht die je ridder daar kan binnengaan "
        "komt uit op f5 (het moet naast een hoger veld van die burcht liggen).",
    ),
    (
        "move b2 b4",
        "b4 is not next to b2, and no castle wall next to b2 rises above your knight's level 1, "
        "so there is no door to go through.",
        "b4 liegt nicht neben b2, und keine Burgmauer neben b2 ragt über die Ebene 1 deines "
        "Ritters hinaus, also gibt es kein Tor, durch das er gehen kann.",
        "b4 ligt niet naast b2, en geen burchtmuur naast b2 komt boven niveau 1 van je ridder "
        "uit, dus er is geen deur om door te gaan.",
    ),
    (
        "move f3 g3",
        "g3 is three levels above your knight on f3; a step climbs at most one level.",
        "g3 liegt drei Ebenen höher als dein Ritter auf f3; ein Schritt steigt höchstens eine "
        "Ebene hinauf.",
        "g3 ligt drie niveaus hoger dan je ridder op f3; een stap gaat hoogstens één niveau "
        "omhoog.",
    ),
    (
        "move c3 c4",
        "The knight on c3 is blue's, not yours.",
        "Der Ritter auf c3 gehört Blau, nicht dir.",
        "De ridder op c3 is van blauw, niet van jou.",
    ),
    (
        "move f3 e3; move e3 c3",
        "c3 is not empty: blue's knight stands there.",
        "c3 ist nicht frei: Dort steht ein Ritter von Blau.",
        "c3 is niet vrij: daar staat een ridder van blauw.",
    ),
    (
        "stack 3",
        "You have no stack of 3 blocks (your stacks: 2, 2).",
        "Du hast keinen Stapel der Größe 3 (deine Stapel: 2, 2).",
        "Je hebt geen stapel van grootte 3 (je stapels: 2, 2).",
    ),
    (
        "stack 2; stack 2",
        "You already use a stack this turn (2 blocks left in it).",
        "Du nutzt in diesem Zug schon einen Stapel (noch 2 Bausteine darin).",
        "Je gebruikt deze beurt al een stapel (er zitten nog 2 bouwstenen in).",
    ),
    (
        "stack 2; build d2; stack 2",
        "You already use a stack this turn (1 blocks left in it).",
        "Du nutzt in diesem Zug schon einen Stapel (noch 1 Baustein darin).",
        "Je gebruikt deze beurt al een stapel (er zit nog 1 bouwsteen in).",
    ),
    (
        "score 5; move f3 e3",
        "A move costs 1 action point and you have no action points left.",
        "Einen Ritter zu ziehen kostet 1 Aktionspunkt, und du hast keine Aktionspunkte mehr.",
        "Een ridder verplaatsen kost 1 actiepunt en je hebt geen actiepunten meer.",
    ),
    (
        "score 4; knight f2",
        "Adding a knight costs 2 action points and you have only 1 action point left.",
        "Einen Ritter einzusetzen kostet 2 Aktionspunkte, und du hast nur noch 1 Aktionspunkt.",
        "Een ridder inzetten kost 2 actiepunten en je hebt nog maar 1 actiepunt.",
    ),
    (
        "play vault b2 b4",
        "There is no knight on b3 to jump over.",
        "Auf b3 steht kein Ritter, über den du springen kannst.",
        "Op b3 staat geen ridder om over te springen.",
    ),
    (
        "move f3 z9",
        "'z9' is not a square; squares run from a1 to h8.",
        "'z9' ist kein Feld; die Felder reichen von a1 bis h8.",
        "'z9' is geen veld; de velden lopen van a1 tot h8.",
    ),
    (
        "castle a1",
        "'castle' is an action of the setup, and the setup is over.",
        "'castle' ist eine Aktion der Vorbereitung, und die Vorbereitung ist vorbei.",
        "'castle' is een actie van de voorbereiding, en de voorbereiding is voorbij.",
    ),
]


@pytest.mark.parametrize(("text", "en", "de", "nl"), CASES, ids=[c[0] for c in CASES])
def test_real_refusals_in_german_and_dutch(text, en, de, nl):
    exc = _refused(_game(), text)
    assert str(exc) == en
    assert refusal("en", exc) == en
    assert refusal("de", exc) == de
    assert refusal("nl", exc) == nl


def test_joined_castles_are_listed_in_the_language():
    exc = _refused(_game(), "build b3")
    assert exc.code == "block_joins_2"
    assert str(exc) == (
        "A block on b3 would join the castles on b2 and c3; castles may touch only diagonally."
    )
    assert refusal("de", exc) == (
        "Ein Baustein auf b3 würde die Burgen auf b2 und c3 verbinden; "
        "Burgen dürfen sich nur diagonal berühren."
    )
    assert refusal("nl", exc) == (
        "Een bouwsteen op b3 zou de burchten op b2 en c3 verbinden; "
        "burchten mogen elkaar alleen diagonaal raken."
    )


def test_card_names_come_from_the_card_catalog():
    """A card is named by its id (notation) and its translated name."""
    exc = _refused(_game(), "play jump f3 f4")
    assert exc.code == "card_not_in_hand"
    assert (
        refusal("de", exc) == f"Du hast keine Karte jump ({card_name('de', 'jump')}) auf der Hand."
    )
    assert refusal("nl", exc) == f"Je hebt geen kaart jump ({card_name('nl', 'jump')}) in je hand."
    assert refusal("en", exc) == f"You have no jump card ({CARDS['jump']}) in your hand."


def test_setup_and_notation_refusals():
    game = Game.new(3, seed=4)
    exc = _refused(game, "move c3 d3")
    assert refusal("de", exc) == (
        "Es ist die Vorbereitung: Setze deinen ersten Ritter mit 'place SQ' auf eine Startburg."
    )
    assert refusal("nl", exc) == (
        "Het is de voorbereiding: zet je eerste ridder met 'place SQ' op een startburcht."
    )
    exc = _refused(game, "frobnicate c3")
    assert refusal("nl", exc) == (
        "'frobnicate c3' is geen actie; acties beginnen met castle, place, king, knight, move, "
        "stack, build, draw, keep, play, score of end."
    )
    exc = _refused(game, "")
    assert refusal("de", exc) == (
        "Keine Aktion angegeben; gib eine ein, zum Beispiel 'move c3 d3' oder 'end'."
    )


def test_unknown_code_falls_back_to_english():
    assert refusal("de", IllegalAction("end", "Not now.")) == "Not now."
    assert refusal("nl", NotationError("Bad input.")) == "Bad input."
    assert refusal("de", ValueError("plain")) == "plain"
    odd = IllegalAction("end", "The reason.")
    odd.code, odd.params = "no_such_code", {}
    assert refusal("de", odd) == "The reason."
    broken = IllegalAction("end", "Missing params.")
    broken.code, broken.params = "no_own_knight", {}  # the template needs {square}
    assert refusal("nl", broken) == "Missing params."


def test_other_languages_read_english():
    exc = _refused(_game(), "move f3 g3")
    assert refusal("fr", exc) == refusal("en", exc) == str(exc)


def test_random_refusals_render_in_every_language():
    """English through the catalogs is the engine's text; German and Dutch fill
    every placeholder."""
    rng = random.Random(5)
    squares = [f + r for f in "abcdefgh" for r in "12345678"]
    checked = 0
    for n, variant in [(2, "personal"), (3, "common"), (4, "master")]:
        game = Game.new(n, variant=variant, seed=n)
        for _ in range(120):
            if game.over:
                break
            texts = [
                f"{a.split()[0]} {rng.choice(squares)} {rng.choice(squares)}"
                for a in game.legal()[:3]
            ]
            texts += [f"play {c} {rng.choice(squares)} {rng.choice(squares)}" for c in CARDS]
            texts += ["draw", "score", "stack 1", f"build {rng.choice(squares)}"]
            for text in texts:
                try:
                    game.copy().play(text)
                except (IllegalAction, NotationError) as exc:
                    assert refusal("en", exc) == str(exc)
                    for lang in ("de", "nl"):
                        out = refusal(lang, exc)
                        assert out != str(exc) or exc.code == "", (lang, out)
                        assert "{" not in out and "}" not in out, out
                    checked += 1
            game.play(rng.choice(game.legal()))
    assert checked > 500
