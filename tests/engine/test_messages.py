"""Refusals carry a stable code and params (engine/messages.py, docs/notation.md).

Every ``IllegalAction`` and ``NotationError`` the engine raises names a code of
``TEMPLATES``; its English text is that template filled with its params, the
same text as before codes existed (the CLI's and the tests' contract).
"""

from __future__ import annotations

import ast
import pickle
import random
import string
from pathlib import Path

import pytest

from engine import CARDS, Game, IllegalAction, NotationError
from engine.messages import TEMPLATES, english, level_words, template

ENGINE = Path(__file__).resolve().parents[2] / "engine"

# A value for every placeholder a template may have (and every param a code needs).
SAMPLE: dict[str, str | int] = {
    "ap": 1,
    "area": 3,
    "card": "jump",
    "cards": "jump, lift",
    "castles": 5,
    "column": 12,
    "count": 7,
    "digits": 5000,
    "dst": "d4",
    "dst_level": 3,
    "error": "No such file or directory",
    "form": "castle SQ",
    "format": "torres-position/1",
    "height": 4,
    "high": 3,
    "key": "phase",
    "left": 2,
    "level": 1,
    "levels": 2,
    "line": 1,
    "low": 1,
    "most": 4300,
    "names": 3,
    "option": "--seed",
    "other": "blue",
    "over": "c4",
    "path": "game.json",
    "player": "red",
    "players": 2,
    "s1": "c3",
    "s2": "d4",
    "s3": "e3",
    "s4": "d2",
    "size": 2,
    "square": "c3",
    "src": "c3",
    "stacks": "2, 2",
    "stage": "castles",
    "stages": "castles, place",
    "target": 3,
    "text": "move z9",
    "value": "'x'",
    "verb": "castle",
}
DERIVED = {"levels", "card_name"}  # shown from params["levels"] and params["card"]


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def _forms(entry: str | tuple[str, str, str]) -> list[str]:
    return [entry] if isinstance(entry, str) else list(entry[:2])


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_every_template_formats_with_its_params(code):
    """Each template (each plural form) fills from its params; an exception made
    from the code says exactly the filled template."""
    entry = TEMPLATES[code]
    for form in _forms(entry):
        fields = _fields(form)
        assert fields <= set(SAMPLE) | DERIVED, fields - set(SAMPLE)
        params = {f: SAMPLE[f] for f in fields if f != "card_name"}
        if "card_name" in fields:
            params["card"] = "jump"
        if not isinstance(entry, str):
            params[entry[2]] = 1 if form == entry[0] else 2
        values = dict(params)
        if "levels" in fields:
            values["levels"] = level_words(int(params["levels"]))
        if "card_name" in fields:
            values["card_name"] = CARDS["jump"]
        text = form.format(**values)
        assert template(code, params) == form
        assert english(code, params) == text
        assert "{" not in text and "}" not in text
        for exc in (
            NotationError(code=code, params=params),
            IllegalAction("end", code=code, params=params),
        ):
            assert str(exc) == text
            assert (exc.code, exc.params) == (code, params)
        assert IllegalAction("end", code=code, params=params).reason == text


def _calls() -> list[tuple[str, ast.Call]]:
    out = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                out.append((path.name, node))
    return out


# Codes put together at run time: (where, the codes that can come out).
DYNAMIC = {
    "position._cards": [
        f"position_{w}_{k}"
        for w in ("hand", "drawn", "revealed", "common_deck", "deck")
        for k in ("not_list", "not_card")
    ],
    "common.joins": ["block_joins_2", "block_joins_3", "block_joins_4"],
    "common.need_ap": ["ap_knight_short"],  # the only action costing 2 AP
    "position.read_position": [  # check_names' codes, as a position's
        "position_players_not_list",
        "position_player_count",
        "position_player_name_empty",
        "position_player_names_same",
    ],
}


def test_codes_in_the_source_are_templates_and_every_template_is_used():
    """Every code literal given to a refusal helper is a template; every template
    is raised somewhere (as a literal or one of the codes put together above)."""
    helpers = {"illegal", "notation_error", "_bad", "need_ap", "who", "_land_one_up"}
    used: set[str] = set()
    for name, call in _calls():
        if call.func.id not in helpers:  # type: ignore[attr-defined]
            continue
        for arg in call.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                assert arg.value in TEMPLATES, (name, arg.value)
                used.add(arg.value)
    for codes in DYNAMIC.values():
        assert set(codes) <= set(TEMPLATES)
        used.update(codes)
    # Codes chosen by a conditional expression or kept in a table.
    source = "\n".join(p.read_text() for p in ENGINE.rglob("*.py") if p.name != "messages.py")
    used.update(c for c in TEMPLATES if f'"{c}"' in source)
    assert sorted(set(TEMPLATES) - used) == []


def _mutations(rng: random.Random, game: Game) -> list[str]:
    legal = game.legal()
    squares = [f + r for f in "abcdefgh" for r in "12345678"]
    out = []
    for a in rng.sample(legal, min(len(legal), 6)):
        words = a.split()
        for i, w in enumerate(words):
            if w in squares:
                out.append(" ".join([*words[:i], rng.choice(squares), *words[i + 1 :]]))
    knights = [sq for sqs in game.position()["knights"].values() for sq in sqs]
    for k in rng.sample(knights, min(2, len(knights))):
        out.append(f"move {k} {rng.choice(squares)}")
        out.append(f"play {rng.choice(list(CARDS))} {k} {rng.choice(squares)}")
    out += [f"build {rng.choice(squares)}", f"knight {rng.choice(squares)}", "draw", "score"]
    out += [f"stack {rng.randrange(6)}", "play ap6", f"keep {rng.choice(list(CARDS))} top"]
    out += [rng.choice(["foo", "move c3", "stack x", "play nocard", "score 0", "king", ""])]
    return out


def test_refusals_of_random_games_say_their_template():
    """Illegal and malformed actions in random games (every variant, 2 to 4 players):
    each refusal has a code, plain params, and says the filled template."""
    rng = random.Random(11)
    seen: set[str] = set()
    for n, variant in [(2, "common"), (3, "personal"), (4, "master"), (2, "master")]:
        game = Game.new(n, variant=variant, seed=rng.randrange(1000))
        for _ in range(150):
            if game.over:
                break
            for text in _mutations(rng, game):
                trial = game.copy()
                try:
                    trial.play(text)
                except (IllegalAction, NotationError) as exc:
                    assert exc.code in TEMPLATES, (text, str(exc))
                    assert all(type(v) in (str, int) for v in exc.params.values())
                    assert str(exc) == english(exc.code, exc.params)
                    back = pickle.loads(pickle.dumps(exc))
                    assert (str(back), back.code, back.params) == (str(exc), exc.code, exc.params)
                    seen.add(exc.code)
            game.play(rng.choice(game.legal()))
    assert len(seen) >= 40, sorted(seen)


def test_texts_are_as_before():
    """A few refusals word for word as the engine always said them."""
    pos = Game.new(2, seed=1).position()
    pos.update(stage="play", knights={"red": ["f3"], "blue": ["c3"]}, king="c6")
    pos["heights"] = {"c3": 1, "c6": 1, "f3": 0, "f4": 3, "e8": 1, "d1": 1, "h4": 1, "a5": 1}
    pos["stacks"] = {"red": [2, 2], "blue": [2, 2]}
    game = Game.from_position(pos)

    def why(text: str) -> IllegalAction | NotationError:
        with pytest.raises((IllegalAction, NotationError)) as info:
            game.copy().play(text)
        return info.value

    e = why("move f3 f4")
    assert (e.code, e.params) == ("step_too_high", {"src": "f3", "dst": "f4", "levels": 3})
    assert str(e) == "f4 is three levels above your knight on f3; a step climbs at most one level."
    e = why("move f3 f6")
    assert e.code == "no_door"
    assert str(e) == (
        "f6 is not next to f3, and no door of a castle your knight can enter there leads out "
        "onto f6 (it must be next to a higher square of that castle)."
    )
    e = why("move c3 c4")
    assert str(e) == "The knight on c3 is blue's, not yours."
    assert e.params == {"square": "c3", "player": "blue"}
    assert str(why("move f3 c6")) == "c6 is not empty: the king stands there."
    assert str(why("stack 3")) == "You have no stack of 3 blocks (your stacks: 2, 2)."
    assert str(why("play jump f3 f4")) == (
        "You have no jump card (Jump up two levels) in your hand."
    )
    e = why("move z9 c3")
    assert (e.code, e.params) == ("not_a_square", {"text": "z9"})
    assert str(e) == "'z9' is not a square; squares run from a1 to h8."
    g2 = game.copy()
    g2.play("stack 2")
    with pytest.raises(IllegalAction) as info:
        g2.play("stack 2")
    assert str(info.value) == "You already use a stack this turn (2 blocks left in it)."
    assert info.value.params == {"left": 2}


def test_exceptions_made_the_old_way_still_work():
    """Code outside the engine may still raise them with a text only (code "")."""
    e = IllegalAction("move c3 d3", "Because.")
    assert (str(e), e.reason, e.action, e.code, e.params) == (
        "Because.",
        "Because.",
        "move c3 d3",
        "",
        {},
    )
    n = NotationError("Bad.")
    assert (str(n), n.code, n.params) == ("Bad.", "", {})


def test_docs_list_every_code():
    """docs/notation.md has a row for every code with its English template."""
    docs = (ENGINE.parent / "docs" / "notation.md").read_text()
    for code, entry in TEMPLATES.items():
        text = entry if isinstance(entry, str) else f"{entry[0]} (plural by `{entry[2]}`)"
        assert f"| `{code}` | {text.replace('|', chr(92) + '|')} |" in docs, code
