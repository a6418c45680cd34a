"""Hidden hands never leak; text stays apart and large enough for a phone."""

from __future__ import annotations

import copy
import itertools

import pytest
from renderer_samples import hidden_swapped, load

import engine
import renderer
import renderer.geometry as g

#: Scale of Discord's phone preview (about 400 px wide) and desktop one (550).
PHONE = 400 / g.WIDTH
DESKTOP = 550 / g.WIDTH


def all_text(rendering) -> str:
    """Every text, in drawing order; wrapped lines joined by spaces."""
    return " ".join(t.text for t in rendering.texts)


def card_words(card: str) -> list[str]:
    return [card, engine.CARDS[card]]


def test_only_the_viewers_own_hand_is_named():
    """Blue sees blue's cards by name; nobody else's card names appear anywhere."""
    pos = load("midgame")
    r = renderer.render(pos, viewer="blue")
    text = all_text(r)
    assert "Your hand (blue): Door climb (drawn this turn), Jump up two levels" in text
    for player, hand in pos["hands"].items():
        if player == "blue":
            continue
        for card in hand:
            for word in card_words(card):
                assert word not in text, (player, card)


def test_no_viewer_names_no_cards():
    """The public picture (no viewer) names no card at all, only counts."""
    pos = load("midgame")
    text = all_text(renderer.render(pos))
    assert "Your hand" not in text
    for card in engine.CARDS:
        for word in card_words(card):
            assert f" {word}" not in text and not text.startswith(word), card
    assert "2 cards" in text  # blue's count is public


@pytest.mark.parametrize("viewer", [None, "red", "blue"])
def test_other_hands_and_deck_order_do_not_change_the_picture(viewer):
    """Swapping the contents (same counts) of hands the viewer may not see, and the
    deck order, gives the very same bytes: nothing hidden can leak into pixels."""
    pos = load("midgame")
    other = hidden_swapped(pos, viewer)
    assert renderer.render_board(pos, viewer=viewer) == renderer.render_board(other, viewer=viewer)


def test_viewers_own_hand_does_change_their_picture():
    """The control for the test above: the viewer's own cards do show."""
    pos = load("midgame")
    other = copy.deepcopy(pos)
    other["hands"]["blue"] = ["relocate"] * 3
    assert renderer.render_board(pos, viewer="blue") != renderer.render_board(other, viewer="blue")


LAYOUT_CASES = ["setup", "midgame", "final", "master"]


@pytest.mark.parametrize("name", LAYOUT_CASES)
@pytest.mark.parametrize("viewer_index", [None, 0, 1])
def test_text_boxes_do_not_overlap_and_stay_on_the_canvas(name, viewer_index):
    """No two labels overlap, and no text leaves the canvas."""
    pos = load(name)
    viewer = None if viewer_index is None else pos["players"][viewer_index]
    r = renderer.render(pos, viewer=viewer)
    for t in r.texts:
        x0, y0, x1, y1 = t.box
        assert x0 >= 0 and y0 >= 0 and x1 <= g.WIDTH and y1 <= g.HEIGHT, t
    for a, b in itertools.combinations(r.texts, 2):
        assert not _overlap(a.box, b.box), (a, b)


def test_long_names_are_fitted_not_overlapping():
    """Long player names and huge scores shrink or get an ellipsis instead of
    running into each other."""
    pos = load("midgame")
    pos["scores"]["blue"] = 10**40
    long = ["Bartholomew-the-Magnificent", "Wilhelmina von Ostfriesland", "x" * 40, "Zoë"]
    mapping = dict(zip(pos["players"], long, strict=True))
    text = _rename(pos, mapping)
    r = renderer.render(text, viewer=long[1])
    for a, b in itertools.combinations(r.texts, 2):
        assert not _overlap(a.box, b.box), (a, b)
    assert any(t.text.endswith("…") for t in r.texts)


def _rename(pos: dict, mapping: dict[str, str]) -> dict:
    out = copy.deepcopy(pos)
    out["players"] = [mapping[p] for p in pos["players"]]
    for key in ("knights", "scores", "stacks", "hands"):
        if key in out:
            out[key] = {mapping[k]: v for k, v in out[key].items()}
    for key in ("to_move", "phase_starter", "round_starter"):
        if out.get(key):
            out[key] = mapping[out[key]]
    return out


@pytest.mark.parametrize("name", LAYOUT_CASES)
def test_key_numbers_stay_legible_at_phone_width(name):
    """Scaled to 400 px wide (a phone's preview), the map's heights and levels
    and the scores are drawn at 12 px or more, the names, the title and whose
    turn it is at 8 px or more; at 550 px (desktop) nothing is below 8 px."""
    r = renderer.render(load(name))
    map_numbers = [t for t in r.texts if t.layer == "map" and t.text.isdigit() and t.size >= 40]
    scores = [t for t in r.texts if t.layer == "panel" and t.text.isdigit() and t.size >= 40]
    players = load(name)["players"]
    names = [t for t in r.texts if t.layer == "panel" and t.text.lstrip("▶★ ") in players]
    header = [t for t in r.texts if t.layer == "header"]
    assert len(map_numbers) >= 8 and len(scores) == len(names) == len(players)
    for t in map_numbers + scores:
        assert t.size * PHONE >= 12, t
    for t in names + header:
        assert t.size * PHONE >= 7.9, t
    for t in r.texts:
        assert t.size * DESKTOP >= 8, t


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("viewer", [None, "red", "blue", "green", "yellow"])
def test_only_the_viewer_hand_leaves_the_model(viewer):
    """The data handed to the drawing code holds no other player's cards at all."""
    from renderer._model import build_view

    view = build_view(load("late"), viewer)
    for p in view.players:
        if p.name == viewer:
            assert p.hand == tuple(load("late")["hands"][viewer])
        else:
            assert p.hand is None and p.drawn == ()


def test_names_the_font_cannot_draw_become_question_marks():
    """Emoji and CJK names (Discord display names) are drawn with "?" for the
    missing glyphs, never as empty boxes, and the markers fall back to digits."""
    names = {"red": "Zoë 🎲", "blue": "山田", "green": "Ελένη", "yellow": "👍🏽"}
    pos = _rename(load("midgame"), names)
    r = renderer.render(pos, viewer="山田")
    panel = {t.text for t in r.texts if t.layer == "panel"}
    assert {"Zoë ?", "▶ ??", "Ελένη"} <= panel
    assert "Your hand (??): Door climb (drawn this turn), Jump up two levels" in all_text(r)
    # The letters on the panel's markers fall back to seat numbers.
    markers = [t for t in r.texts if t.layer == "panel" and t.box[2] < g.PANEL_BOX[0] + 80]
    assert sorted(t.text for t in markers) == ["1", "2", "3", "4"]


def _draw_keep_position() -> dict:
    """A personal-decks game stopped while the player to move chooses a card."""
    import random

    game = engine.Game.new(players=2, names=["ann", "bob"], variant="personal", seed=5)
    rng = random.Random(5)
    while game.stage != "draw-keep":
        actions = game.legal()
        draws = [a for a in actions if a == "draw"]
        game.play(draws[0] if draws and game.stage == "play" else rng.choice(actions))
    return game.position()


def test_revealed_cards_show_only_to_the_player_choosing():
    """During draw-keep the chooser sees the revealed cards; the other player and
    the public picture do not, and their pictures equal those of any other reveal."""
    pos = _draw_keep_position()
    chooser = pos["to_move"]
    other = next(p for p in pos["players"] if p != chooser)
    revealed = pos["turn"]["revealed"]
    assert revealed
    mine = all_text(renderer.render(pos, viewer=chooser))
    assert "Drawn, keep one: " + ", ".join(engine.CARDS[c] for c in revealed) in mine
    swapped = copy.deepcopy(pos)
    swapped["turn"]["revealed"] = ["relocate"] * len(revealed)
    for viewer in (other, None):
        assert "Drawn, keep one" not in all_text(renderer.render(pos, viewer=viewer))
        assert renderer.render_board(pos, viewer=viewer) == renderer.render_board(
            swapped, viewer=viewer
        )


def test_a_full_master_hand_always_fits_with_the_master_card():
    """Four players, the master card and a ten-card hand under a long name: the
    whole hand and the master card's name are drawn, on the canvas, apart."""
    game = engine.Game.new(players=4, variant="master", seed=9, master_card="castles")
    long = "Maximiliane-Konstantina von und zu Hohenlohe"
    pos = _rename(game.position(), {"red": long, "blue": "b", "green": "g", "yellow": "y"})
    pos["hands"][long] = sorted(engine.CARDS)
    r = renderer.render(pos, viewer=long)
    footer = " ".join(t.text for t in r.texts if t.layer == "footer")
    assert "Master card: " + engine.MASTER_CARDS["castles"] in footer
    for card in engine.CARDS:
        assert engine.CARDS[card] in footer
    for t in r.texts:
        assert t.box[3] <= g.HEIGHT and t.box[2] <= g.WIDTH, t
    for a, b in itertools.combinations(r.texts, 2):
        assert not _overlap(a.box, b.box), (a, b)


@pytest.mark.parametrize("name", ["setup", "late", "final", "master", "personal"])
def test_no_empty_band_at_the_bottom_or_top(name):
    """The panel is filled from top to bottom (the old portrait picture left
    ~100 px empty at the bottom), and the map with its labels spans the height."""
    pos = load(name)
    for viewer in [None, pos["players"][0]]:
        r = renderer.render(pos, viewer=viewer, highlight=["e4"])
        panel = [t for t in r.texts if t.box[0] >= g.PANEL_BOX[0]]
        assert min(t.box[1] for t in panel) < g.PANEL_BOX[1] + 40
        assert max(t.box[3] for t in panel) > g.PANEL_BOX[3] - 30
        labels = [t for t in r.texts if t.layer == "edge"]
        assert max(t.box[3] for t in labels) > g.HEIGHT - 60


def test_with_room_to_spare_the_rows_grow_for_the_phone():
    """Two players leave room: names and scores are drawn larger than with four."""

    def name_sizes(pos):
        r = renderer.render(pos)
        return {t.size for t in r.texts if t.text.lstrip("▶★ ") in pos["players"]}

    two, four = name_sizes(load("personal")), name_sizes(load("late"))
    assert min(two) > max(four)


def test_the_highlight_note_shows_even_when_room_runs_short():
    """A full master hand under a long name, and a long note: the note is drawn
    whole (the map key gives way first)."""
    game = engine.Game.new(players=4, variant="master", seed=9, master_card="castles")
    long = "Maximiliane-Konstantina von und zu Hohenlohe"
    pos = _rename(game.position(), {"red": long, "blue": "b", "green": "g", "yellow": "y"})
    pos["hands"][long] = sorted(engine.CARDS)
    note = "changed by Maximiliane-Konstantina's last turn (3 actions)"
    r = renderer.render(pos, viewer=long, highlight=["a1"], highlight_note=note)
    footer = " ".join(t.text for t in r.texts if t.layer == "footer")
    assert f"Pink frame: {note}" in footer
    assert engine.CARDS["vault"] in footer and "Master card: Castles" in footer
    for a, b in itertools.combinations(r.texts, 2):
        assert not _overlap(a.box, b.box), (a, b)
    assert max(t.box[3] for t in r.texts) <= g.HEIGHT
