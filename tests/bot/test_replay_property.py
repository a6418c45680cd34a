"""Property: whatever sequence of accepted plays and undos, the log replays to the snapshot."""

from __future__ import annotations

import asyncio
import random
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.errors import ServiceError
from bot.service import GameService, ServiceConfig, User
from bot.store import Store

PLAYERS = [User(1, "a"), User(2, "b"), User(3, "c")]


async def _session(seed: int, steps: list[int], variant: str, players: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(f"{tmp}/t.db")
        try:
            service = GameService(store, ServiceConfig(seed=seed))
            users = PLAYERS[:players]
            await service.new(
                guild_id=1, channel_id=9, user=users[0], players=players, variant=variant
            )
            for u in users[1:]:
                await service.join(channel_id=9, user=u)
            await service.start(channel_id=9, user=users[0])
            rng = random.Random(seed)
            for step in steps:
                row = await store.game(1)
                assert row is not None
                if row.status != "running":
                    break
                game = await service._load(row)
                seats = await store.seats(1)
                user = next(
                    u for u in users for s in seats if s.user_id == u.id and s.name == game.to_move
                )
                try:
                    if step == 0:
                        await service.undo(channel_id=9, user=user)
                    else:
                        legal = game.legal()
                        # mostly single actions, sometimes two in one command
                        text = rng.choice(legal)
                        if step == 2 and text != "end":
                            after = game.copy()
                            after.play(text)
                            if after.to_move == game.to_move and after.legal():
                                text += "; " + rng.choice(after.legal())
                        await service.play(channel_id=9, user=user, text=text)
                except ServiceError:
                    pass  # refused requests change nothing; the final check covers that
            row = await store.game(1)
            assert row is not None
            replayed = await service.replay(1)
            assert replayed.position() == row.position
        finally:
            await store.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**20),
    steps=st.lists(st.integers(0, 3), min_size=1, max_size=80),
    variant=st.sampled_from(["common", "personal", "master"]),
    players=st.integers(2, 3),
)
def test_log_replays_to_snapshot(seed: int, steps: list[int], variant: str, players: int) -> None:
    """Random plays (some two at once), undos and refusals: replay == snapshot."""
    asyncio.run(_session(seed, steps, variant, players))
