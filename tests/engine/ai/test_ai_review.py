"""The expert's review of a player's decisions (engine.ai.review) and the score track
(engine.summary): deterministic, blind to what the player could not see, and
agreeing with the engine's scores."""

from __future__ import annotations

import random

import pytest

import engine.ai.review as review_module
from engine import Game, decision_over
from engine.ai._hidden import HIDDEN, sample_position
from engine.ai.review import MUCH, player_views, review_decision, review_game, swings
from engine.record import Decision, Record
from engine.summary import score_track

_FAST = {"nodes": 400, "samples": 2}


def _random_decision(game: Game, rng: random.Random, *, draw: bool = True) -> list[str]:
    world = game.copy()
    out: list[str] = []
    while True:
        stage, legal = world.stage, world.legal()
        if not draw:
            legal = [a for a in legal if a != "draw"] or legal
        others = [a for a in legal if a != "end"]
        action = "end" if "end" in legal and (not others or len(out) >= 6) else rng.choice(legal)
        events = world.play(action)
        out.append(action)
        if decision_over(stage, events):
            return out


def _record(players: int, seed: int, variant: str = "common") -> Record:
    rng = random.Random(seed)
    rec = Record(variant=variant, seed=seed, players=("red", "blue", "green", "yellow")[:players])
    game = rec.new_game()
    while game.stage != "over":
        player = game.to_move
        actions = _random_decision(game, rng)
        game.play("; ".join(actions))
        rec.decisions.append(Decision(player, tuple(actions)))
    return rec


@pytest.mark.parametrize(
    ("players", "seed", "variant"), [(2, 1, "common"), (3, 2, "personal"), (4, 3, "master")]
)
def test_the_track_holds_the_engines_scores_after_every_decision(players, seed, variant):
    rec = _record(players, seed, variant)
    track = score_track(rec)
    game = rec.new_game()
    assert track.scores[0] == game.scores
    castle_points: dict[int, dict[str, int]] = {}  # the engine's, per phase and player
    for n, d in enumerate(rec.decisions, start=1):
        for e in game.play("; ".join(d.actions)):
            if e.get("type") == "phase_scored":
                castle_points[e["phase"]] = {p: v["castles"] for p, v in e["points"].items()}
        assert track.scores[n] == game.scores, n
    assert [p for p, _ in track.scorings] == [1, 2, 3]
    assert track.scorings[-1][1] == len(rec.decisions)
    # Every castle that scored, phase by phase, adds up to the engine's castle points.
    for player in rec.players:
        found = track.best(player, 1000)
        assert found == sorted(found, key=lambda c: -c.points)
        assert all(c.points == c.area * c.level > 0 for c in found)
        for phase in (1, 2, 3):
            mine = sum(c.points for c in found if c.phase == phase)
            assert mine == castle_points[phase][player], (player, phase)


def test_a_review_is_the_same_for_the_same_seed_and_differs_for_another():
    rec = _record(2, 5)
    one = review_game(rec, "red", seed=7, **_FAST)
    two = review_game(rec, "red", seed=7, **_FAST)
    assert one == two
    assert [r.number for r in one] == [
        n for n, d in enumerate(rec.decisions, start=1) if d.player == "red"
    ]
    other = review_game(rec, "red", seed=8, **_FAST)
    assert [r.suggested for r in other] != [r.suggested for r in one]
    for r in swings(one):
        assert r.loss >= MUCH and r.suggested != r.played


def test_a_personal_draw_ends_the_suggestion_and_its_worth_follows_every_sampled_draw(
    monkeypatch,
):
    """The cards a personal draw reveals in the expert's sampled world are made up: the
    suggestion stops at the draw, and the expert continues after it in every world."""
    rec = _record(3, 11, "personal")
    continued = []
    real = review_module._expert

    def spy(world, me, rng, nodes):
        continued.append(world.stage)
        return real(world, me, rng, nodes)

    monkeypatch.setattr(review_module, "_expert", spy)
    reviews = review_game(rec, "red", **_FAST)
    drawn = [r for r in reviews if "draw" in r.suggested]
    assert drawn
    for r in reviews:
        assert not any(a.startswith("keep ") for a in r.suggested), r.suggested
    for r in drawn:
        assert r.suggested[-1] == "draw", r.suggested
        assert (r.suggested_position or {}).get("stage") == "play"
    # One continuation after the draw in each further sampled world.
    assert continued.count("draw-keep") == len(drawn) * (_FAST["samples"] - 1)


@pytest.mark.parametrize("variant", ["common", "personal", "master"])
def test_a_review_reads_only_the_players_views(monkeypatch, variant):
    """What review_game hands on per decision hides every other hand and every deck;
    the expert's choices are whole decisions (a personal deck's draw included)."""
    seen = []
    real = review_module.review_decision

    def spy(before, after, played, player, **kw):
        seen.append((before, after, player))
        return real(before, after, played, player, **kw)

    monkeypatch.setattr(review_module, "review_decision", spy)
    rec = _record(3, 11, variant)
    reviews = review_module.review_game(rec, "blue", **_FAST)
    assert seen and len(seen) == len(reviews)
    for r in reviews:
        if r.stage == "play" and r.suggested:
            assert r.suggested[-1] in ("end", "draw"), r.suggested
    for before, after, player in seen:
        for view in (before, after):
            for who, hand in view["hands"].items():
                if who != player:
                    assert set(hand) <= {HIDDEN}
            for deck in view["decks"].values():
                assert set(deck) <= {HIDDEN}
            assert view.get("seed") is None


@pytest.mark.parametrize("seed", [3, 4])
def test_the_same_view_under_other_hidden_deals_gets_the_same_review(seed):
    """Two games the player cannot tell apart (other hands and the deck order dealt
    anew): their decision is reviewed the same in both."""
    rng = random.Random(seed)
    game = Game.new(3, seed=seed)
    while not (game.stage == "play" and game.round >= 2 and game.to_move == "green"):
        game.play("; ".join(_random_decision(game, rng)))
    me = "green"
    view = game.position(viewer=me)
    other = Game.from_position(sample_position(view, me, random.Random(seed + 100)))
    assert other.position(viewer=me) == view
    assert other.position() != game.position()  # another deal of what green cannot see
    actions = _random_decision(game, rng, draw=False)
    results = []
    for world in (game, other):
        before = world.position(viewer=me)
        world.play("; ".join(actions))
        results.append(
            review_decision(before, world.position(viewer=me), actions, me, number=9, **_FAST)
        )
    assert results[0] == results[1]


class _Dealt(Record):
    """A record whose game starts from a given position (another deal of the cards)."""

    __slots__ = ("start",)

    def new_game(self) -> Game:
        return Game.from_position(self.start)


@pytest.mark.parametrize("variant", ["common", "personal"])
def test_player_views_are_the_same_under_other_hidden_deals(variant):
    """player_views, all a review reads (the bot's workers too), is blind to the other
    hands and the deck order: the same under another deal the player cannot tell apart."""
    rng = random.Random(21)
    rec = _record(3, 21, variant)
    me = "blue"
    start = rec.new_game()
    other = _Dealt(variant=variant, seed=0, players=rec.players)
    other.start = sample_position(start.position(viewer=me), me, random.Random(5))
    assert other.new_game().position() != start.position()
    # Decisions both deals allow: no card played or drawn (those tell the deals apart).
    game, twin = start, other.new_game()
    for _ in range(12):
        world = game.copy()
        actions: list[str] = []
        while True:
            stage = world.stage
            legal = [a for a in world.legal() if a != "draw" and not a.startswith("play ")]
            moves = [a for a in legal if a != "end"]
            action = (
                "end" if "end" in legal and (not moves or len(actions) >= 4) else rng.choice(legal)
            )
            actions.append(action)
            if decision_over(stage, world.play(action)):
                break
        other.decisions.append(Decision(game.to_move, tuple(actions)))
        game.play("; ".join(actions))
        twin.play("; ".join(actions))
    dealt = Record(variant=variant, seed=rec.seed, players=rec.players)
    dealt.decisions = list(other.decisions)
    views = player_views(dealt, me)
    assert views and views == player_views(other, me)
    with pytest.raises(ValueError, match="does not play"):
        player_views(dealt, "purple")
