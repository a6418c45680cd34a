"""bot.core.review: the score chart and best castles of a finished game, and the turn review
pages (issue 36), through the service and a real store."""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import AsyncIterator

import pytest

from bot.core.errors import NoGame, NotAllowed
from bot.core.home import HomeService
from bot.core.review import Reviews
from bot.core.service import GameService, ServiceConfig, User
from bot.db.sqlite import Store
from bot.texts.review import best_castles
from engine.ai import choose_actions
from engine.summary import score_track

ANN, BOB = User(1, "Ann"), User(2, "Bob")
CHANNEL, GUILD = 7, 3


def _quick(game, seconds: float) -> list[str]:
    """A quick computer player that still builds castles and stands on them."""
    return choose_actions(game, 0.02, level="heuristic", seed=len(game.legal()))


async def _finished(store: Store, language: str = "en") -> int:
    """Ann against two computers, every seat played to the end by a quick heuristic."""
    service = GameService(store, ServiceConfig(seed=5, ai_seconds=0.01), choose_actions=_quick)
    out = await service.new(
        guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=3, bots=2, language=language
    )
    game_id = out.posts[0].game_id
    await service.start(channel_id=CHANNEL, user=ANN)
    while True:
        row = await store.game(game_id)
        assert row is not None
        if row.status == "over":
            return game_id
        game = await service._load(row)
        seats = await store.seats(game_id)
        mover = next(s for s in seats if s.name == game.to_move)
        if mover.user_id is None:
            await service.ai_step(game_id)
        else:
            await service.play(channel_id=CHANNEL, user=ANN, text="; ".join(_quick(game, 0)))


@pytest.fixture
def store() -> AsyncIterator[Store]:
    with tempfile.TemporaryDirectory() as tmp:
        s = asyncio.run(Store.open(f"{tmp}/t.db"))
        yield s
        asyncio.run(s.close())


def test_the_chart_and_the_castles_are_the_engines(store: Store) -> None:
    async def go() -> None:
        game_id = await _finished(store, "de")
        home = HomeService(store, ai_level="random")
        reviews = Reviews(store, nodes=300, samples=1)
        summary = await reviews.summary(game_id, "de")
        assert summary.png[:8] == b"\x89PNG\r\n\x1a\n"
        row = await store.game(game_id)
        seats = await store.seats(game_id)
        track = score_track(await home._record(row, seats))
        assert track.scores[-1] == row.result["scores"]
        assert summary.castles == best_castles(
            {p: track.best(p) for p in track.players}, seats, "de"
        )
        assert summary.castles.startswith("**Burgen, die am meisten brachten**")
        best = track.best(track.players[0])[0]
        assert f"{best.square} {best.points} ({best.area} × Ebene {best.level}" in summary.castles
        again = await reviews.chart(channel_id=CHANNEL, guild_id=GUILD, game_id=None, lang="en")
        assert again.png != summary.png  # in English now
        assert "`/torres review game:" in again.text

    asyncio.run(go())


def test_review_pages_swings_first_then_every_decision(store: Store) -> None:
    async def go() -> None:
        game_id = await _finished(store)
        reviews = Reviews(store, nodes=300, samples=1)
        front = await reviews.page(
            channel_id=CHANNEL, guild_id=GUILD, game_id=game_id, user_id=ANN.id
        )
        assert front.page == 0 and front.pictures == []
        assert "**Review of 🔴 Ann (red) in game #" in front.text
        assert "Largest swings" in front.text or "No decision gave away" in front.text
        seat = front.seat
        seen_swing = False
        for n in range(1, front.pages):
            page = await reviews.page(
                channel_id=CHANNEL, guild_id=GUILD, game_id=game_id, seat=seat, page=n
            )
            assert page.page == n and f"· {n}/{front.pages - 1}" in page.text
            assert "Played: `" in page.text and "Worth before:" in page.text
            # The numbers shown add up as shown (rounded worths, their difference).
            m = re.search(r"Worth before: (-?\d+); after: (-?\d+) \(([+-]\d+)\)", page.text)
            assert m and int(m[2]) - int(m[1]) == int(m[3]), page.text
            m = re.search(r"worth (-?\d+), (\d+) more", page.text)
            if m:
                after = re.search(r"after: (-?\d+)", page.text)
                assert after and int(m[1]) - int(after[1]) == int(m[2]), page.text
            assert len(page.pictures) in (1, 2)
            if len(page.pictures) == 2:
                seen_swing = True
                assert "The expert would have played `" in page.text
        assert seen_swing  # a quick heuristic gives much away somewhere
        # Deterministic: the same pages from a fresh service (the game's number is the seed).
        fresh = Reviews(store, nodes=300, samples=1)
        again = await fresh.page(
            channel_id=CHANNEL, guild_id=GUILD, game_id=game_id, user_id=ANN.id
        )
        assert again.text == front.text
        with pytest.raises(NotAllowed, match="has no seat in game"):
            await reviews.page(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id, user_id=99)

    asyncio.run(go())


def test_without_a_number_the_channels_last_finished_game_while_another_runs(
    store: Store,
) -> None:
    async def go() -> None:
        game_id = await _finished(store)
        service = GameService(store, ServiceConfig(seed=6))
        await service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2)
        await service.join(channel_id=CHANNEL, user=BOB)
        await service.start(channel_id=CHANNEL, user=ANN)
        reviews = Reviews(store, nodes=300, samples=1)
        chart = await reviews.chart(channel_id=CHANNEL, guild_id=GUILD, game_id=None)
        assert f"Game #{game_id}:" in chart.text
        front = await reviews.page(channel_id=CHANNEL, guild_id=GUILD, game_id=None, user_id=ANN.id)
        assert front.game_id == game_id
        with pytest.raises(NoGame, match="No Torres game has ended in this channel yet"):
            await reviews.chart(channel_id=CHANNEL + 1, guild_id=GUILD, game_id=None)

    asyncio.run(go())


def test_refusals(store: Store) -> None:
    async def go() -> None:
        service = GameService(store, ServiceConfig(seed=5))
        out = await service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2)
        game_id = out.posts[0].game_id
        await service.join(channel_id=CHANNEL, user=BOB)
        await service.start(channel_id=CHANNEL, user=ANN)
        reviews = Reviews(store)
        with pytest.raises(NotAllowed, match="has not finished"):
            await reviews.chart(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id)
        with pytest.raises(NotAllowed, match="has not finished"):
            await reviews.page(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id, user_id=1)
        with pytest.raises(NoGame):
            await reviews.chart(channel_id=CHANNEL, guild_id=GUILD + 1, game_id=game_id)
        await service.cancel(channel_id=CHANNEL, user=ANN, can_manage_channel=False)
        with pytest.raises(NotAllowed, match="was cancelled: it has no end to review"):
            await reviews.chart(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id)

    asyncio.run(go())
