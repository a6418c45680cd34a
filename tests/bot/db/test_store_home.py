"""The store's queries for bot.core.home, against both backends (SQLite and a real PostgreSQL):
a player's games, ended games, results (written once) and their order."""

from __future__ import annotations

from bot.db.contract import GameStore
from bot.db.rows import ResultRow, ResultSeat, UserSettings
from tests.bot.db.test_store import _new_game, backend  # noqa: F401 - the fixture, both backends


async def _play(store: GameStore, game_id: int, seq: int, *, now: float, ends_turn: bool) -> None:
    got, _ = await store.record(
        game_id,
        expected_seq=seq - 1,
        player="red",
        user_id=1,
        kind="play",
        action="end",
        position={"to_move": "blue" if ends_turn else "red"},
        turn_ended=ends_turn,
        result=None,
        now=now,
    )
    assert got == seq


async def test_a_players_unfinished_games_with_when_their_turn_began(backend):  # noqa: F811
    """Open and running games where the user sits (not resigned); the turn's start time."""
    store = await backend.open()
    running = await _new_game(store, channel=10, author=1)
    await store.add_seat(running, 2, "bob", 1500.0)
    await store.start_game(
        running,
        seats=[(1, "ann", "red", False), (2, "bob", "blue", False)],
        initial={"to_move": "red"},
        now=2000.0,
    )
    opened = await _new_game(store, channel=11, author=2)
    await store.add_seat(opened, 1, "ann", 1600.0)
    other = await _new_game(store, channel=12, author=3)  # ann is not in it
    over = await _new_game(store, channel=13, author=1)
    await store.finish(over, status="cancelled", result={"reason": "cancelled"}, now=3000.0)
    games = await store.user_games(1)
    assert [(g.id, since) for g, since in games] == [(running, 2000.0), (opened, 1000.0)]
    await _play(store, running, 1, now=2100.0, ends_turn=False)
    games = await store.user_games(1)
    assert games[0][1] == 2000.0, "an action within the turn does not restart its time"
    await _play(store, running, 2, now=2200.0, ends_turn=True)
    await _play(store, running, 3, now=2300.0, ends_turn=False)
    games = await store.user_games(1)
    assert games[0][1] == 2200.0 and games[0][0].position == {"to_move": "red"}
    assert [g.id for g, _ in await store.user_games(3)] == [other]
    assert await store.user_games(99) == []
    await store.close()


async def test_ended_games_of_a_channel_or_a_server_newest_first(backend):  # noqa: F811
    store = await backend.open()
    ids = []
    for i in range(5):
        ids.append(await _new_game(store, channel=20 + i % 2))
        if i < 4:
            await store.finish(ids[-1], status="over" if i % 2 else "cancelled", result={}, now=5.0)
    assert [g.id for g in await store.past_games(channel_id=20)] == [ids[2], ids[0]]
    assert [g.id for g in await store.past_games(guild_id=5)] == ids[3::-1]
    assert [g.id for g in await store.past_games(guild_id=5, limit=2)] == [ids[3], ids[2]]
    assert await store.past_games(guild_id=6) == []
    await store.close()


def _result(game_id: int, finished: float, guild: int | None = 5) -> ResultRow:
    return ResultRow(
        game_id=game_id,
        guild_id=guild,
        channel_id=10,
        variant="common",
        started_at=1.0,
        finished_at=finished,
        seats=(
            ResultSeat(1, "red", 1, "ann", None, 40, 2),
            ResultSeat(2, "blue", None, "Computer", "search", 52, 1),
        ),
    )


async def test_results_are_written_once_and_read_in_finishing_order(backend):  # noqa: F811
    store = await backend.open()
    a = await _new_game(store, channel=30)
    b = await _new_game(store, channel=31)
    c = await _new_game(store, channel=32)
    for game_id in (a, b):
        await store.finish(game_id, status="over", result={"reason": "finished"}, now=9.0)
    await store.finish(c, status="cancelled", result={"reason": "cancelled"}, now=9.0)
    assert await store.games_without_result() == [a, b]
    assert await store.results_version(5) == (0, 0)
    assert await store.add_result(_result(b, finished=100.0))
    assert not await store.add_result(_result(b, finished=100.0)), "a result is written once"
    assert await store.add_result(_result(a, finished=200.0))
    assert await store.games_without_result() == []
    assert await store.results_version(5) == (2, max(a, b))
    got = await store.results(5)
    assert [r.game_id for r in got] == [b, a]
    assert got[1] == _result(a, finished=200.0)
    assert await store.results(6) == []
    await store.close()


async def test_user_settings_default_and_saved(backend):  # noqa: F811
    store = await backend.open()
    assert await store.user_settings(7) == UserSettings(7)
    await store.set_user_settings(UserSettings(7, dm=True))
    await store.set_user_settings(UserSettings(7, dm=True, dm_refused=True, away_until=50.5))
    assert await store.user_settings(7) == UserSettings(7, True, True, 50.5)
    assert await store.user_settings(8) == UserSettings(8)
    await store.close()
