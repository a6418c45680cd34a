"""The position in words (alt text), and the legend's highlight note."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from renderer_samples import hidden_swapped, load, load_highlight

import engine
import renderer


def test_describe_is_exported():
    assert "describe" in renderer.__all__
    assert renderer.DESCRIPTION_LIMIT <= 1000 < 1024


def test_a_turn_in_play_says_phase_round_who_ap_scores_and_king():
    pos = load("late")
    text = renderer.describe(pos)
    assert "Phase 3 of 3, round 3 of 3: yellow to move, 5 AP left." in text
    # Every player with colour, shape and score, in turn order.
    assert "yellow (yellow diamond): 0 points" in text
    assert "red (red-orange circle): 8 points" in text
    assert "blue (sky-blue square): 17 points" in text
    assert "green (green triangle): 7 points" in text
    assert text.index("yellow (") < text.index("red (") < text.index("blue (")
    assert "The king is on c6; the king's castle has 2 squares, 2 high." in text
    assert "Deck: 25 cards left." in text


def test_the_player_to_move_has_stacks_the_others_counts():
    text = renderer.describe(load("personal"))
    assert "ann (red-orange circle): 6 points" in text
    assert "stacks: 3, 3, this turn's stack: 2 blocks" in text
    assert "10 in deck" in text and "8 in deck" in text
    assert "personal decks" in text


def test_setup_and_game_over():
    setup = renderer.describe(load("setup"))
    assert "Setup: green places a knight on a starting castle." in setup
    assert "The king is not placed yet." in setup
    # No cards before play: the viewer's empty hand is not mentioned.
    assert "Your hand" not in renderer.describe(load("setup"), viewer="red")
    final = renderer.describe(load("final"))
    assert "Game over: blue wins with 25 points." in final
    assert "Ranking: blue (sky-blue square): 25 points, winner" in final
    assert "to move" not in final


def test_master_card_is_named():
    text = renderer.describe(load("master"))
    assert "master variant" in text
    assert "Master card: Diagonals." in text


def test_knight_levels_are_listed():
    pos = load("late")
    text = renderer.describe(pos)
    heights = pos["heights"]
    for square in pos["knights"]["blue"]:
        assert f"{square} ({heights.get(square, 0)})" in text


def test_only_the_viewers_own_hand_is_named():
    pos = load("midgame")
    assert "Your hand: Door climb, Jump up two levels." in renderer.describe(pos, viewer="blue")
    for viewer in (None, "red"):
        text = renderer.describe(pos, viewer=viewer)
        for player, hand in pos["hands"].items():
            if player == viewer:
                continue
            for card in hand:
                assert card not in text and engine.CARDS[card] not in text, (viewer, card)
    assert "Your hand" not in renderer.describe(pos)


@pytest.mark.parametrize("viewer", [None, "red", "blue"])
def test_other_hands_and_deck_order_do_not_change_the_words(viewer):
    pos = load("midgame")
    other = hidden_swapped(pos, viewer)
    assert renderer.describe(pos, viewer=viewer) == renderer.describe(other, viewer=viewer)


def test_a_viewers_position_with_hidden_cards_is_described():
    game = engine.Game.from_position(load("midgame"))
    public = game.position("red")
    text = renderer.describe(public, viewer="red")
    assert "Your hand:" in text
    assert "hidden" not in text


def test_highlight_and_its_note():
    pos = load("late")
    text = renderer.describe(
        pos, highlight=["e1", "h4"], highlight_note="changed by blue's last turn"
    )
    assert "Framed in pink (changed by blue's last turn): e1, h4." in text
    assert "Framed in pink (changed last turn): e1." in renderer.describe(pos, highlight=["e1"])
    assert "pink" not in renderer.describe(pos)


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="Unknown viewer"):
        renderer.describe(load("late"), viewer="nobody")
    with pytest.raises(ValueError):
        renderer.describe({"format": "torres-position/1"})


def long_names_position(names: list[str]) -> dict:
    pos = load("late")
    text = json.dumps(pos)
    for old, new in zip(pos["players"], names, strict=True):
        text = text.replace(json.dumps(old), json.dumps(new))
    return json.loads(text)


def test_long_names_stay_within_the_limit_and_keep_the_essentials():
    names = ["A" * 32, "B" * 32, "C" * 32, "D" * 32]
    pos = long_names_position(names)
    text = renderer.describe(
        pos, viewer=names[0], highlight=load_highlight("late"), highlight_note="x" * 300
    )
    assert len(text) <= renderer.DESCRIPTION_LIMIT
    assert "Phase 3 of 3, round 3 of 3" in text
    assert "5 AP left" in text
    assert "The king is on c6" in text
    assert "Your hand: 7 action points, Jump over a knight." in text
    for name in names:
        assert name in text


@settings(max_examples=40, deadline=None)
@given(
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
def test_any_names_and_note_fit_discords_limit(names, note):
    """Whatever the names and note, the text fits an attachment description."""
    try:
        pos = long_names_position(names)
        engine.Game.from_position(pos)
    except (ValueError, json.JSONDecodeError):
        return  # names the notation refuses
    text = renderer.describe(pos, viewer=names[1], highlight=["e1"], highlight_note=note)
    assert 0 < len(text) <= renderer.DESCRIPTION_LIMIT


# -- the legend's highlight note ------------------------------------------------


def legend(rendering) -> str:
    return " ".join(t.text for t in rendering.texts if t.layer == "footer")


def test_the_legend_says_what_the_highlight_means():
    pos = load("late")
    r = renderer.render(pos, highlight=["e1"], highlight_note="changed this turn")
    assert "Pink frame: changed this turn" in legend(r)
    assert "last turn" not in legend(r)
    default = renderer.render(pos, highlight=["e1"])
    assert "Pink frame: changed last turn" in legend(default)
    # Nothing framed: the legend does not explain a frame that is not there.
    assert "Pink" not in legend(renderer.render(pos))


def test_the_note_changes_the_picture_and_is_deterministic():
    pos = load("late")
    a = renderer.render_board(pos, "red", ["e1"], highlight_note="changed this turn")
    b = renderer.render_board(pos, "red", ["e1"], highlight_note="changed by blue's last turn")
    assert a != b
    assert a == renderer.render_board(pos, "red", ["e1"], highlight_note="changed this turn")


def test_positional_parameters_are_unchanged_and_the_note_is_keyword_only():
    pos = load("late")
    assert renderer.render_board(pos, "red", ["e1"]) == renderer.render_board(
        pos, viewer="red", highlight=["e1"]
    )
    with pytest.raises(TypeError):
        renderer.render_board(pos, "red", ["e1"], "changed this turn")  # type: ignore[misc]
    with pytest.raises(TypeError):
        renderer.describe(pos, "red")  # type: ignore[misc]


def test_a_note_that_is_not_text_is_refused():
    with pytest.raises(ValueError, match="highlight note must be text"):
        renderer.render(load("late"), highlight=["e1"], highlight_note=3)  # type: ignore[arg-type]


def test_labels_name_the_players_in_the_picture_and_the_words():
    """The bot's display names stand next to each seat's colour and shape; seats,
    colours and what is hidden stay as they were."""
    pos = load("late")
    labels = {"red": "Ann", "blue": "Bob", "green": "Computer", "yellow": "Zoë"}
    text = renderer.describe(pos, viewer="red", labels=labels)
    assert "Zoë to move, 5 AP left" in text
    assert "Ann (red-orange circle): 8 points" in text
    assert "Your hand: 7 action points, Jump over a knight." in text
    rendering = renderer.render(pos, "red", labels=labels)
    drawn = " ".join(t.text for t in rendering.texts)
    for label in labels.values():
        assert label in drawn
    assert "Your hand (Ann)" in drawn
    assert " yellow " not in f" {drawn} "
    # The markers' letters follow the labels (A, B, C, Z), not the colour names.
    assert (
        renderer.render(pos, labels=labels).image.tobytes() != renderer.render(pos).image.tobytes()
    )


def test_labels_are_checked_and_trimmed():
    """A label is one line of at most 40 characters; a blank one falls back to the name."""
    pos = load("late")
    text = renderer.describe(pos, labels={"yellow": "  x\n" * 30, "red": "   "})
    assert ("x " * 19 + "x (yellow diamond)") in text  # 39 characters, trimmed
    assert "red (red-orange circle)" in text
    with pytest.raises(ValueError, match="label must be text"):
        renderer.describe(pos, labels={"red": 5})
