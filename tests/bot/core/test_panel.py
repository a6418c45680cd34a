"""The panel model (bot/core/panel.py), autocomplete (bot/core/complete.py) and merged posts, without Discord."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from bot.core.batch import merge_posts
from bot.core.complete import complete
from bot.core.panel import (
    DO,
    LIMIT,
    MAX_OPTIONS,
    WHAT,
    build_order,
    build_panel,
    describe,
    done_words,
    follow_group,
    grouped,
)
from bot.core.service import Post
from engine import Game
from tests.bot.conftest import random_position


def reachable(game: Game) -> set[str]:
    """Every action a player can choose on the panel: directly, or after choosing its group."""
    out: set[str] = set()
    first = build_panel(game, header="h")
    values = [o.value for s in first.selects for o in s.options]
    for value in values:
        if value.startswith(DO):
            out.add(value[len(DO) :])
        else:
            assert value.startswith(WHAT)
            panel = build_panel(game, header="h", group=value[len(WHAT) :])
            check_limits(panel)
            for o in (o for s in panel.selects[1:] for o in s.options):
                if o.value.startswith(DO):
                    out.add(o.value[len(DO) :])
                    continue
                sub = build_panel(game, header="h", group=o.value[len(WHAT) :])  # a source square
                check_limits(sub)
                out |= {x.value[len(DO) :] for s in sub.selects[1:] for x in s.options}
    return out


def check_limits(panel) -> None:  # type: ignore[no-untyped-def]
    assert len(panel.selects) <= 4  # and a row of buttons: Discord's 5 rows
    for select in panel.selects:
        assert 1 <= len(select.options) <= MAX_OPTIONS
        values = [o.value for o in select.options]
        assert len(set(values)) == len(values)
        for o in select.options:
            assert 1 <= len(o.label) <= LIMIT and 1 <= len(o.value) <= LIMIT
            assert o.description is None or len(o.description) <= LIMIT
        assert len(select.placeholder) <= 150
    assert len(panel.text) <= 2000


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 80),
    variant=st.sampled_from(["common", "personal", "master"]),
)
def test_every_legal_action_is_on_the_panel(seed: int, steps: int, variant: str) -> None:
    """Nothing is dropped to fit Discord's limits: every legal action but `end` can be chosen,
    and `end` is the End turn button whenever it is legal."""
    game = random_position(seed, steps, variant)
    if game.stage == "over":
        return
    panel = build_panel(game, header="h")
    check_limits(panel)
    legal = game.legal()
    assert panel.can_end == ("end" in legal)
    expected = {a for a in legal if a != "end"}
    offered = reachable(game)
    # Score steps are offered as `score N` too, a knight's further squares as paths
    # (`move c3 d3 e3`); each of those is legal as a whole, and each path's end is a
    # square no single step reaches.
    singles = {
        a
        for a in offered
        if not a.startswith("score ")
        and not (a.startswith("move ") and len(a.split()) > 3)
        and not a.endswith("; end")
    }
    assert singles == expected
    for a in offered - singles:
        work = game.copy()
        work.play(a)
        if a.endswith("; end"):  # the last action and End turn in one choice, only
            before = game.copy()  # when nothing but End turn is left after it
            before.play(a.removesuffix("; end"))
            assert before.ap == 0
            assert all(x == "end" or x.startswith("stack ") for x in before.legal())
            continue
        if a.startswith("move "):
            start, end = a.split()[1], a.split()[-1]
            assert f"move {start} {end}" not in legal
            assert work.ap == (game.ap or 0) - (len(a.split()) - 2)


def test_more_than_25_builds_are_split_by_rank() -> None:
    """The first turn offers 28 builds: two selects by rank, none dropped, labels in words."""
    game = Game.new(players=2, seed=3)
    while game.stage != "play":
        game.play(game.legal()[0])
    builds = [a for a in game.legal() if a.startswith("build ")]
    assert len(builds) > MAX_OPTIONS
    panel = build_panel(game, header="h", group="build")
    where = [s for s in panel.selects[1:] if s.placeholder.startswith("Build")]
    assert len(where) == 2 and all("ranks" in s.placeholder for s in where)
    # the free row offers the knight's nearest squares at once
    (other,) = [s for s in panel.selects[1:] if s not in where]
    assert other.placeholder == "Move a knight: the nearest squares"
    assert {o.value.split()[0] for o in other.options} == {DO + "move"}
    # the scores and the new knights are listed in the what select itself, and the
    # longest score also with the end of the turn
    what = [o.value for o in panel.selects[0].options]
    assert DO + "score 5" in what and DO + "score 5; end" in what
    assert any(v.startswith(DO + "knight ") for v in what) and len(what) <= MAX_OPTIONS
    assert sorted(o.value[len(DO) :] for s in where for o in s.options) == sorted(builds)
    assert where[0].options[0].label.startswith("Build on ") and "castle of" in (
        where[0].options[0].label
    )


def test_words() -> None:
    assert describe("move c3 d3") == "Knight c3 → d3 (1 AP)"
    assert describe("knight e5") == "Add a knight on e5 (2 AP)"
    assert describe("score 3") == "Score 3 steps (3 AP)"
    assert describe("keep lift bottom") == (
        "Keep Block under a knight, the other two go under your deck"
    )
    assert describe("play jump c3 c4") == "Play Jump up two levels: knight c3 → c4"
    assert describe("king pass") == "Leave the king where it is"


def test_the_panel_follows_the_knight_and_says_what_happened() -> None:
    game = Game.new(players=2, seed=3)
    while game.stage != "play":
        game.play(game.legal()[0])
    move = next(a for a in game.legal() if a.startswith("move "))
    after = game.copy()
    after.play(move)
    groups = grouped(after)
    target = move.split()[2]
    assert follow_group(move, groups) in (f"move {target}", None)
    words = done_words(move, game, after)
    assert words.startswith(describe(move)) and words.endswith("4 AP left.")
    spent = game.copy()
    spent.play("score; score; score; score; score")
    # the panel says what to do at 0 AP itself, once (tests/bot/texts/test_words.py)
    assert done_words("score 5", game, spent, panel=True) == describe("score 5") + "."
    assert build_panel(spent, header="").text.endswith("0 AP left: press End turn.")


def test_autocomplete_keeps_end_whatever_the_hint() -> None:
    """The 💡 hint comes first, and `end` is never cut to make room for it."""
    game = Game.new(players=2, seed=3)
    while game.stage != "play":
        game.play(game.legal()[0])
    legal = game.legal()
    for hint in legal:
        pairs = complete(game, "", "", hint)
        values = [v for _, v in pairs]
        assert len(values) <= 25 and "end" in values and values[0] == hint
        assert pairs[0][0].startswith("💡 ")
    square = next(a for a in legal if a.startswith("move ")).split()[2]
    assert all(square in v.split() for _, v in complete(game, "", square, None))
    (only,) = complete(game, "", "mvoe c3", None)
    assert "Did you mean `move`?" in only[0]


def test_merged_posts_list_each_decision_under_one_picture() -> None:
    a = Post(
        1, 7, "**A** played `x`\nScores: a 0\nNext: B is thinking…", {"p": 1}, frozenset({"c3"})
    )
    b = Post(1, 7, "**B** played `y`\nScores: a 1\nNext: <@5> (red)", {"p": 2}, frozenset({"d4"}))
    a.outbox_id, b.outbox_id = 1, 2
    merged = merge_posts([a, b])
    assert merged.text == "**A** played `x`\n**B** played `y`\nScores: a 1\nNext: <@5> (red)"
    assert merged.position == {"p": 2} and merged.highlight == {"c3", "d4"}
    assert merged.outbox_id == 2 and merged.merged == [a]


def test_a_card_with_hundreds_of_targets_asks_for_the_source_first() -> None:
    """Move a block can have 300+ plays: the panel asks from which square, then where to."""
    squares = [f + r for f in "abcdefgh" for r in "12345678"]
    heights = {s: 1 for i, s in enumerate(squares) if (i * 7) % 3 == 0}
    for s in ("d4", "e5", "a8", "h1"):
        heights.setdefault(s, 1)
    game = Game.from_position(
        {
            "format": "torres-position/1",
            "players": ["red", "blue"],
            "heights": heights,
            "knights": {"red": ["d4", "e5"], "blue": ["a8"]},
            "king": "h1",
            "hands": {"red": ["moveblock", "jump"], "blue": []},
            "stage": "play",
            "to_move": "red",
        }
    )
    plays = [a for a in game.legal() if a.startswith("play moveblock ")]
    assert len(plays) > MAX_OPTIONS * 3
    panel = build_panel(game, header="h", group="play moveblock")
    check_limits(panel)
    (sources,) = [s for s in panel.selects[1:] if "from which square" in s.placeholder]
    assert all(o.value.startswith(WHAT + "play moveblock ") for o in sources.options)
    assert reachable(game) >= set(plays)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 120), pick=st.integers(0, 10_000))
def test_autocomplete_always_offers_end_when_legal(seed: int, steps: int, pick: int) -> None:
    """Whatever the 💡 hint, at most 25 choices, each legal, and `end` among them when legal."""
    game = random_position(seed, steps)
    legal = game.legal()
    if not legal:
        return
    hint = legal[pick % len(legal)]
    pairs = complete(game, "", "", hint)
    values = [v for _, v in pairs]
    assert 1 <= len(values) <= 25 and set(values) <= set(legal)
    assert ("end" in values) == ("end" in legal)
    assert values[0] == hint
    assert all(1 <= len(label) <= LIMIT for label, _ in pairs)


def test_a_draw_is_named_in_the_reply() -> None:
    game = Game.new(players=2, seed=3)
    while game.stage != "play":
        game.play(game.legal()[0])
    after = game.copy()
    after.play("draw")
    (card,) = after.hand(game.to_move or "")
    assert f"You drew **{engine.CARDS[card]}**." in done_words("draw", game, after)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ("score ²", "score ²"),
        ("score \u0661", "score \u0661"),  # an Arabic-Indic 1: no number of ours
        ("stack \u0661", "stack \u0661"),
        ("stack ³", "stack ³"),
        ("play lift c3 ²", "Play Block under a knight: under knight c3, from a stack"),
        ("score 3", "Score 3 steps (3 AP)"),
    ],
)
def test_describe_reads_ascii_digits_only(action: str, words: str) -> None:
    """Words for a typed action never fail (``int("²")`` raises), nor read another
    script's digits as a number (``int("\u0661")`` is 1)."""
    assert describe(action) == words


def _position(**fields) -> Game:  # type: ignore[no-untyped-def]
    return Game.from_position(
        {
            "format": "torres-position/1",
            "players": ["red", "blue"],
            "stage": "play",
            "to_move": "red",
            "king": "h1",
            **fields,
        }
    )


def test_blocks_that_depend_on_each_other_are_refused_as_a_set() -> None:
    """d4 joins the castle on c4, e4 the one on e5; after either, the other would touch
    both castles. Each alone is offered; together the engine refuses them, in any order."""
    game = _position(heights={"c4": 1, "e5": 1}, knights={"red": ["a1"], "blue": ["h8"]})
    legal = game.legal()
    assert "build d4" in legal and "build e4" in legal
    assert build_order(game, ["d4", "e4"]) is None
    assert build_order(game, ["d4", "c5"]) == "build d4; build c5"


def test_after_a_card_the_panel_shows_what_it_set_up() -> None:
    """A card that moves a knight leaves that knight's moves open (1 AP: single steps,
    few enough for one select)."""
    game = _position(
        heights={"c3": 1, "c4": 3, "d4": 1, "c5": 1},
        knights={"red": ["c3"], "blue": ["h8"]},
        hands={"red": ["jump"], "blue": []},
        turn={"ap": 1, "stack": None, "drawn": [], "played": False, "revealed": []},
    )
    jump = next(a for a in game.legal() if a.startswith("play jump c3 "))
    after = game.copy()
    after.play(jump)
    target = jump.split()[-1]
    assert follow_group(jump, grouped(after)) == f"move {target}"


def test_at_0_ap_with_a_card_to_play_one_instruction() -> None:
    game = _position(
        heights={"c3": 1, "c4": 3, "d4": 1, "c5": 1},
        knights={"red": ["c3"], "blue": ["h8"]},
        hands={"red": ["jump"], "blue": []},
        turn={"ap": 0, "stack": None, "drawn": [], "played": False, "revealed": []},
    )
    assert any(a.startswith("play jump") for a in game.legal())
    text = build_panel(game, header="h").text
    assert "0 AP left: play a card, or press End turn." in text
    assert "press End turn." not in text.replace("play a card, or press End turn.", "")
    assert "Choose" not in text


def test_the_last_action_can_end_the_turn_in_the_same_choice() -> None:
    """A card kept with no AP left: the keep choices again, under "…and end your turn",
    each the kept card and `end`; with AP left, not."""
    game = Game.new(players=2, names=["red", "blue"], variant="personal", seed=5)
    while game.stage != "play":
        game.play(game.legal()[0])
    spent = game.copy()
    spent.play("score 4; draw")
    assert spent.stage == "draw-keep" and spent.ap == 0
    panel = build_panel(spent, header="h")
    check_limits(panel)
    keeps = [a for a in spent.legal() if a.startswith("keep ")]
    (ending,) = [s for s in panel.selects if s.placeholder == "…and end your turn: choose"]
    assert [o.value for o in ending.options] == [f"{DO}{a}; end" for a in keeps]
    for o in ending.options:
        after = spent.copy()
        after.play(o.value[len(DO) :])
        assert after.to_move == "blue"
    early = game.copy()
    early.play("draw")
    assert not any("end your turn" in s.placeholder for s in build_panel(early, header="h").selects)
