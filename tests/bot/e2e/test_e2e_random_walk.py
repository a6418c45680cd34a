"""A seeded random walk of commands and button presses from players and bystanders.

Each step is chosen at random (legal moves, illegal ones, someone else's move,
undo, stale and current buttons, hands); the test's own engine mirror predicts
whether the bot must accept or refuse it, and every few steps the bot's stored
position must equal the mirror's. This checks "only the player to move changes
the game, illegal actions change nothing" over many situations rather than a few.
"""

from __future__ import annotations

import json
import random

import pytest

from engine import Game, IllegalAction, NotationError
from tests.bot.e2e._harness import (
    CUSTOM_ID,
    SEED,
    TIMEOUT,
    BotRunner,
    PanelDriver,
    Table,
    open_game,
)
from tests.fakediscord import FakeMessage

SEATS = {"red": "alice", "blue": "bob"}
PEOPLE = ("alice", "bob", "carol")
CANDIDATES = (
    "move a1 b1",
    "move d1 d2",
    "build h8",
    "build c3",
    "knight c4",
    "score",
    "draw",
    "play ap6",
    "play jump c3 c4",
    "stack 3",
    "king a1",
    "place c3",
    "end",
    "fly away",
)
ACCEPTED = ("Done: ", "Your turn is over.", "The game is over.", "Took back")


def accepted(text: str) -> bool:
    return text.startswith(ACCEPTED)


class Walk:
    def __init__(self, runner: BotRunner, game_id: int, seed: int) -> None:
        self.runner = runner
        self.t = Table(runner)
        self.game_id = game_id
        self.game = Game.new(players=2, names=list(SEATS), variant="common", seed=SEED)
        self.rng = random.Random(seed)
        self.turn_msgs: list[FakeMessage] = []
        self.log: list[str] = []

    @property
    def mover(self) -> str:
        assert self.game.to_move is not None
        return SEATS[self.game.to_move]

    def decided(self, stage_before: str, events: list[dict]) -> bool:
        return stage_before in ("castles", "place", "king") or any(
            e.get("type") in ("turn_end", "game_over") for e in events
        )

    async def expect(
        self, who: str, how: str, arg: str, should_accept: bool, *, via: FakeMessage | None = None
    ):
        if via is not None:
            ix, reply = await self.t.click(who, via, arg)
        elif how == "undo":
            ix, reply = await self.t.slash(who, "undo")
        else:
            ix, reply = await self.t.slash(who, "play", actions=arg)
        self.log.append(f"{who} {how} {arg!r} -> {reply.text[:80]!r}")
        assert accepted(reply.text) == should_accept, "\n".join(self.log[-8:])
        return ix, reply

    async def after_decision(self, ix) -> None:
        post = await self.t.public_after(ix, "the turn message", lambda m: bool(m.attachments))
        if self.game.stage != "over":
            nxt = self.t.user(self.mover)
            assert post.pinged_ids == [nxt.id], post.text
            self.turn_msgs.append(post)

    def button_msg(self, action: str) -> FakeMessage | None:
        if not self.turn_msgs:
            return None
        msg = self.turn_msgs[-1]
        return msg if any((b.custom_id or "").endswith(":" + action) for b in msg.buttons) else None

    async def step(self) -> None:
        kind = self.rng.choice(
            ["legal", "legal", "legal", "illegal", "other", "undo", "end_button", "stale", "hand"]
        )
        game = self.game
        if kind == "legal":
            action = self.rng.choice(game.legal())
            stage = game.stage
            work = game.copy()
            events = work.play(action) or []
            ix, _ = await self.expect(self.mover, "play", action, True)
            self.game = work
            if self.decided(stage, events):
                await self.after_decision(ix)
        elif kind == "illegal":
            action = self.rng.choice(CANDIDATES)
            if action in game.legal():
                return
            try:
                game.copy().play(action)
            except (IllegalAction, NotationError):
                pass
            else:
                return  # legal in a form legal() does not list: not a refusal test
            await self.expect(self.mover, "play", action, False)
        elif kind == "other":
            who = self.rng.choice([p for p in PEOPLE if p != self.mover])
            await self.expect(who, "play", self.rng.choice(game.legal()), False)
        elif kind == "undo":
            who = self.mover if self.rng.random() < 0.8 else self.rng.choice(PEOPLE)
            work = game.copy()
            ok = who == self.mover and game.stage in ("play", "draw-keep") and work.undo()
            msg = self.button_msg("undo") if self.rng.random() < 0.5 else None
            if msg is not None:
                # the turn message's Undo opens the mover's panel (or refuses): nothing yet
                _, panel = await self.expect(who, "button", "undo", False, via=msg)
                if ok:
                    assert "Press **Undo** below to take back" in panel.text, panel.text
                    driver = PanelDriver(self.t.fake, who)
                    driver.panel = panel
                    await driver.tap(driver.button("undo"))
                    assert "Took back" in panel.text, panel.text
            else:
                await self.expect(who, "undo", "", bool(ok))
            if ok:
                self.game = work
        elif kind == "end_button":
            msg = self.button_msg("end")
            if msg is None:
                return
            who = self.mover if self.rng.random() < 0.8 else self.rng.choice(PEOPLE)
            ok = who == self.mover and "end" in game.legal()
            ix, _ = await self.expect(who, "button", "end", ok, via=msg)
            if ok:
                events = self.game.play("end") or []
                assert self.decided("play", events)
                await self.after_decision(ix)
        elif kind == "stale":
            old = [m for m in self.turn_msgs[:-1] if m.buttons]
            if not old:
                return
            # Only the latest turn message plays: the bot disabled the buttons of the others.
            msg = self.rng.choice(old)
            await self.t.fake.wait_until(
                lambda: all(b.disabled for b in msg.buttons) or None,
                10,
                "the old turn message's buttons to be disabled",
            )
            assert all(CUSTOM_ID.match(b.custom_id or "") for b in msg.buttons)
            self.log.append(f"stale {msg.id}: buttons disabled")
        elif kind == "hand":
            who = self.rng.choice(PEOPLE)
            _, reply = await self.t.slash(who, "hand")
            if who in SEATS.values():
                colour = next(c for c, u in SEATS.items() if u == who)
                assert reply.text.startswith("Your hand (") and colour in reply.text.splitlines()[0]
            else:
                assert "not playing" in reply.text.lower(), reply.text

    def stored_position(self) -> dict:
        [position] = self.runner.db_row("SELECT position FROM games WHERE id = ?", self.game_id)
        return json.loads(position)


@pytest.mark.parametrize("seed", [11, 12])
async def test_random_walk_of_commands(runner: BotRunner, seed: int) -> None:
    t = Table(runner)
    game_id = await open_game(t)
    start = await t.fake.wait_for_message(
        lambda m: bool(m.attachments), channel=t.channel, public=True, timeout=TIMEOUT
    )
    walk = Walk(runner, game_id, seed=seed)
    walk.t.channel = t.channel  # where the game plays (its thread)
    walk.turn_msgs.append(start)
    for i in range(160):
        if walk.game.stage == "over":
            break
        await walk.step()
        if i % 20 == 19:
            assert walk.stored_position() == walk.game.position(), "\n".join(walk.log[-10:])
    assert walk.stored_position() == walk.game.position(), "\n".join(walk.log[-10:])
    refused = [line for line in walk.log if not accepted(line.split("-> ")[-1].strip("'\""))]
    assert len(walk.log) > 100 and len(refused) > 20, "the walk must exercise both outcomes"
