"""What a command asks of the database: every read is a round trip (to PostgreSQL, a
network one), so the service reads a game with its seats at once, keeps the turn's
actions in memory, and the home keeps users' settings for a minute. Memory must
never disagree with the database."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from bot.core import home as home_module
from bot.core.errors import NoGame, NotAllowed
from bot.core.home import HomeService
from bot.core.service import GameService, User, _random_decision
from bot.db.rows import UserSettings
from bot.db.sqlite import Store
from engine import Game
from tests.bot.conftest import ANN, BOB, CHANNEL, CONFIG, GUILD, Env, random_ai

USERS = {u.id: u for u in (ANN, BOB)}


class Counting:
    """The store, counting the calls of each of its methods."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if not callable(attr):
            return attr

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return attr(*args, **kwargs)

        return counted


async def _started(service: GameService) -> None:
    await service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2)
    await service.join(channel_id=CHANNEL, user=BOB)
    await service.start(channel_id=CHANNEL, user=ANN)
    await service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    await service.play(channel_id=CHANNEL, user=BOB, text="place f6")
    await service.play(channel_id=CHANNEL, user=BOB, text="king d1")


async def _mover(env: Env) -> tuple[User, Game]:
    row, seats = await env.store.game_and_seats(1)
    assert row is not None and row.position is not None
    game = Game.from_position(row.position)
    if game.over:
        return ANN, game
    seat = next(s for s in seats if s.name == game.to_move)
    assert seat.user_id is not None
    return USERS[seat.user_id], game


async def test_a_command_reads_the_game_and_seats_once_and_the_log_never(env: Env):
    counting = Counting(env.store)
    service = GameService(counting, CONFIG, clock=env.clock, choose_actions=random_ai)  # type: ignore[arg-type]
    await _started(service)
    game = Game.from_position((await env.store.game(1)).position)  # type: ignore[union-attr]
    first = next(a for a in game.legal() if a.startswith(("move", "build", "knight")))
    counting.calls.clear()
    await service.play(channel_id=CHANNEL, user=ANN, text=first)
    # The channel's game is remembered from the commands before: no lookup.
    assert counting.calls == Counter(game_lock=1, game_and_seats=1, record=1)
    undone = await service.undo(channel_id=CHANNEL, user=ANN)
    assert undone.reply.startswith(f"Took back `{first}`")
    await service.play(channel_id=CHANNEL, user=ANN, text=first)
    counting.calls.clear()
    out = await service.end_turn(game_id=1, turn=(await env.store.game(1)).turn_no, user=ANN)  # type: ignore[union-attr]
    assert len(out.posts) == 1 and f"played `{first}; end`" in out.posts[0].text
    assert counting.calls == Counter(game_lock=1, game_and_seats=1, record=1)
    # The post knows which rows were queued before it (none marked sent here), so the
    # poster reads the outbox only if one of them is news to it.
    unsent = [i for i, _, _ in await env.store.unsent(1)]
    assert unsent[-1] == out.posts[0].outbox_id
    assert out.posts[0].earlier == tuple(unsent[:-1]) and len(unsent) > 1
    # The panel: opening it and a tap, no log read and no separate seats read.
    turn = (await env.store.game(1)).turn_no  # type: ignore[union-attr]
    counting.calls.clear()
    await service.panel_open(game_id=1, turn=turn, user=BOB)
    assert counting.calls == Counter(game_and_seats=1)


async def test_a_channels_remembered_game_is_checked_under_the_lock(env: Env):
    """A command goes straight to the channel's game as this process last saw it; when
    another process ended that game (and opened the next one in the channel), the
    command acts on the channel's game of now, or is refused as with no memory."""
    await _started(env.service)
    other = await Env.reopen(env)  # another bot process on the same database
    try:
        await other.service.cancel(channel_id=CHANNEL, user=ANN, can_manage_channel=False)
        await other.service.new(guild_id=GUILD, channel_id=CHANNEL, user=BOB, players=2)
        await other.service.join(channel_id=CHANNEL, user=ANN)
        await other.service.start(channel_id=CHANNEL, user=BOB)
        _, game = await _mover(env)  # game 1: cancelled as it stood
        row2, seats2 = await env.store.game_and_seats(2)
        assert row2 is not None and row2.position is not None
        fresh = Game.from_position(row2.position)
        first = USERS[next(s.user_id for s in seats2 if s.name == fresh.to_move)]  # type: ignore[index]
        action = fresh.legal()[0]
        out = await env.service.play(channel_id=CHANNEL, user=first, text=action)
        assert out.posts and out.posts[0].game_id == 2
        assert (await env.store.game(1)).position == game.position()  # type: ignore[union-attr]
        assert (await env.store.game(2)).last_seq == row2.last_seq + 1  # type: ignore[union-attr]
        await other.service.cancel(channel_id=CHANNEL, user=BOB, can_manage_channel=False)
        with pytest.raises(NoGame, match="There is no Torres game in this channel"):
            await env.service.play(channel_id=CHANNEL, user=first, text=action)
        with pytest.raises(NoGame, match="There is no Torres game in this channel"):
            await env.service.undo(channel_id=CHANNEL, user=first)
    finally:
        await other.store.close()


async def test_the_turns_actions_in_memory_equal_the_log(env: Env):
    """Random play with undos, draws and multi-action commands: after every command the
    turn's actions this service keeps equal those a restarted service reads from the log,
    and every turn message names the actions the log holds for that turn."""
    await _started(env.service)
    rng = random.Random(5)
    undone = turns = 0
    for _ in range(150):
        user, game = await _mover(env)
        if game.over:
            break
        roll = rng.random()
        if roll < 0.2:
            try:  # nothing to take back at a turn's start or after a draw
                await env.service.undo(channel_id=CHANNEL, user=user)
                undone += 1
            except NotAllowed:
                pass
        elif roll < 0.35:
            row = await env.store.game(1)
            assert row is not None
            decision = "; ".join(_random_decision(game, rng))
            out = await env.service.play(channel_id=CHANNEL, user=user, text=decision)
            if out.posts:
                turns += 1
                logged = await Env.reopen(env)
                entries = await logged.store.actions(1, after_seq=row.turn_start_seq)
                played: list[str] = []
                for entry in entries:
                    if entry.kind == "play":
                        played.extend(a.strip() for a in entry.action.split(";"))
                    elif entry.kind == "undo":
                        played.pop()
                public = [a if not a.startswith("keep") else "keep" for a in played]
                assert any("; ".join(public) in line for line in out.posts[0].text.splitlines()), (
                    public,
                    out.posts[0].text,
                )
                await logged.store.close()
        else:
            action = rng.choice(game.legal())
            await env.service.play(channel_id=CHANNEL, user=user, text=action)
        restarted = await env.reopen()
        assert await env.service.turn_actions(1) == await restarted.service.turn_actions(1)
        await restarted.store.close()
    assert undone >= 5 and turns >= 10, (undone, turns)


async def test_settings_from_memory_follow_this_process_at_once_and_others_within_a_minute(
    env: Env, monkeypatch
):
    now = [1000.0]
    monkeypatch.setattr(home_module.time, "monotonic", lambda: now[0])
    counting = Counting(env.store)
    home = HomeService(counting, ai_level="heuristic")  # type: ignore[arg-type]
    assert not await home.wants_dm(ANN.id)
    assert await home.pending_notice(ANN.id) is None
    assert counting.calls["user_settings"] == 1, "the second read came from memory"
    # This process's own changes show at once.
    await home.settings(user_id=ANN.id, dm=True)
    assert await home.wants_dm(ANN.id)
    await home.dm_refused(ANN.id)
    assert await home.pending_notice(ANN.id) is not None
    assert await home.pending_notice(ANN.id) is None, "told once"
    # Another process's change (written straight to the database) shows within a minute.
    await env.store.set_user_settings(UserSettings(ANN.id, dm=False, dm_refused=True))
    now[0] += home_module.SETTINGS_FRESH - 1
    assert await home.wants_dm(ANN.id)
    now[0] += 2
    assert not await home.wants_dm(ANN.id)
    assert await home.pending_notice(ANN.id) is not None
