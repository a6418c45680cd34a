"""A whole 2-player game through the real bot process, with a SIGKILL in the middle.

alice (red) and bob (blue) play from ``/torres new`` to the final scores with
slash commands and the turn-message buttons. The test mirrors the game in its
own ``engine.Game`` (same seed, TORRES_SEED), chooses each decision from the
mirror's ``legal()`` and checks every public turn message against it: the
actions in the notation, the scores, the picture, the buttons and who is
pinged. Along the way it checks the private refusals (illegal action, out of
turn, stale button), that hands go only to their owner, that two simultaneous
"end" requests end the turn once, and that killing the bot mid-turn (after the
player's action was acknowledged) loses nothing.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

import engine
from engine import Game, IllegalAction, NotationError
from tests.bot.e2e._harness import (
    CUSTOM_ID,
    SEED,
    TIMEOUT,
    BotRunner,
    PanelDriver,
    Table,
    check_gif,
    check_png,
)
from tests.fakediscord import FakeMessage

SETUP_STAGES = {"castles", "place", "king"}


def decision_over(stage_before: str, events: list[dict[str, Any]]) -> bool:
    return stage_before in SETUP_STAGES or any(
        e.get("type") in ("turn_end", "game_over") for e in events
    )


class Match:
    """The mirror of one game and the checks on what the bot posts about it."""

    def __init__(
        self, table: Table, seats: dict[str, str], game_id: int, variant: str = "common"
    ) -> None:
        self.t = table
        self.fake = table.fake
        self.seats = seats  # colour -> user name
        self.game_id = game_id
        self.game = Game.new(players=len(seats), names=list(seats), variant=variant, seed=SEED)
        self.rng = random.Random(SEED)
        self.turn_msg: FakeMessage | None = None
        self.prev_turn_msg: FakeMessage | None = None
        self.turn_no = -1
        self.public_seq = 0  # public messages up to here have been accounted for
        self.decisions = 0
        self.turn_posts: list[FakeMessage] = []
        self.checked_posts = 0  # turn messages of finished decisions checked so far
        self.pending_events: list[dict[str, Any]] = []  # since the last turn message
        self.phases_scored = 0

    # -- the mirror --------------------------------------------------------------

    @property
    def mover(self) -> str:
        assert self.game.to_move is not None
        return self.seats[self.game.to_move]

    @property
    def waiter(self) -> str:
        return next(u for c, u in self.seats.items() if c != self.game.to_move)

    @property
    def over(self) -> bool:
        return self.game.stage == "over"

    def plan(self) -> list[str]:
        """A whole decision: setup/king choices are one action; turns are 0-2 actions then end."""
        work = self.game.copy()
        stage = work.stage
        if stage != "play":
            return [self.rng.choice(work.legal())]
        wanted = self.rng.choice((0, 1, 1, 2, 2))
        out: list[str] = []
        for _ in range(12):
            legal = work.legal()
            others = [a for a in legal if a != "end"]
            if "end" in legal and (len(out) >= wanted or not others):
                out.append("end")
                return out
            action = self.rng.choice(others or legal)
            before = work.stage
            events = work.play(action) or []
            out.append(action)
            if decision_over(before, events):
                return out
        raise AssertionError(f"no decision planned from {self.game.position()}")

    def apply(self, actions: list[str]) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        for a in actions:
            events += self.game.play(a) or []
        self.pending_events += events
        return events

    # -- checks on public posts ------------------------------------------------------

    def only_public(self, expected: FakeMessage | None) -> None:
        """Every public message since the last check is ``expected`` (or there are none)."""
        fresh = self.t.public_since(self.public_seq)
        assert fresh == ([expected] if expected else []), f"unexpected public messages: {fresh}"
        if expected is not None:
            self.public_seq = expected.seq

    async def turn_post(self, after: Any, actions: list[str]) -> FakeMessage:
        """The public turn message for a decision that just ended, checked against the mirror."""
        post = await self.t.public_after(after, "the turn message", lambda m: bool(m.attachments))
        reply = after.original
        if after.callback_type not in (6, 7):  # a confirmation is answered, then the post follows
            # docs/bot.md: the private reply comes after the public message it caused.
            assert reply is not None and reply.resolved_at is not None
            assert post.created_at <= reply.resolved_at, "the reply came before the turn message"
        self.only_public(post)
        self.turn_posts.append(post)
        self.checked_posts += 1
        assert post.kind == "channel"
        assert [a.filename for a in post.attachments] == ["board.png"]
        check_png(post.attachments[0].data)
        if self.over:
            # Then the whole game as an animation, in a message of its own: the
            # setup picture, then one frame a finished decision.
            replay = await self.t.public_after(
                after,
                "the replay",
                lambda m: [a.filename for a in m.attachments] == ["replay.gif", "chart.png"],
            )
            assert check_gif(replay.attachments[0].data) == self.checked_posts + 1
            assert replay.pinged_ids == []
            self.public_seq = replay.seq
        # docs/bot.md: the kept card of a personal-deck draw is secret, shown as `keep ? top`.
        public = [re.sub(r"^keep \S+ ", "keep ? ", a) for a in actions]
        assert f"played `{'; '.join(public)}`" in post.text, (actions, post.text)
        for event in self.pending_events:
            if event.get("type") != "phase_scored":
                continue
            # The phase's own summary, one line per player ending in the new score.
            self.phases_scored += 1
            assert f"Phase {event['phase']} scoring" in post.text, post.text
            lines = post.text.split(f"Phase {event['phase']} scoring", 1)[1].splitlines()
            for player, score in event["scores"].items():
                assert any(
                    player in line
                    and line.rstrip().endswith(f"now {score} point{'' if score == 1 else 's'}")
                    for line in lines
                ), (
                    player,
                    score,
                    post.text,
                )
        self.pending_events = []
        scores = self.game.scores
        for colour in self.seats:
            assert re.search(rf"\b{colour} {scores[colour]}\b", post.text), (
                colour,
                scores,
                post.text,
            )
        users = {c: self.fake.users[u] for c, u in self.seats.items()}
        if self.over:
            assert "**Game over!**" in post.text
            assert post.buttons == []
            players = {u.id for u in users.values()}
            assert set(post.pinged_ids) == players, "game over pings every player"
            for w in self.game.winners:
                assert f"{users[w].mention} ({w})" in post.text
        else:
            self.check_next(post)
        return post

    def check_next(self, post: FakeMessage) -> None:
        """The next player is pinged (only them), and the buttons are theirs for this turn."""
        nxt = self.fake.users[self.mover]
        assert f"Next: {nxt.mention} ({self.game.to_move})" in post.text, post.text
        assert post.pinged_ids == [nxt.id], (post.pinged_ids, nxt)
        assert re.search(r"<t:\d+:R>", post.text), "no reminder deadline as a Discord timestamp"
        ids = [CUSTOM_ID.match(b.custom_id or "") for b in post.buttons]
        assert all(ids), [b.custom_id for b in post.buttons]
        actions = [m.group(3) for m in ids if m]
        expected = (
            ["play", "end", "undo", "hand"]
            if self.game.stage in ("play", "draw-keep")
            else ["play", "hand"]
        )
        assert actions == expected, (actions, self.game.stage)
        games = {int(m.group(1)) for m in ids if m}
        turns = {int(m.group(2)) for m in ids if m}
        assert games == {self.game_id} and len(turns) == 1
        turn = turns.pop()
        assert turn > self.turn_no, "turn numbers in custom ids must grow"
        self.turn_no = turn
        self.prev_turn_msg, self.turn_msg = self.turn_msg, post

    # -- ways to play a decision -------------------------------------------------------

    async def play_slash(self, actions: list[str]) -> FakeMessage:
        """All of the decision in one ``/torres play``."""
        who = self.mover
        ix, reply = await self.t.slash(who, "play", actions="; ".join(actions))
        assert reply.text in ("Your turn is over.", "The game is over."), reply.text
        self.apply(actions)
        return await self.turn_post(ix, actions)

    async def play_then_button(self, actions: list[str]) -> FakeMessage:
        """Each action with its own ``/torres play``, then the End turn button."""
        assert actions[-1] == "end" and self.turn_msg is not None
        who = self.mover
        for a in actions[:-1]:
            ix, reply = await self.t.slash(who, "play", actions=a)
            self.apply([a])
            assert reply.text.startswith(f"Done: `{a}`"), reply.text
            if self.game.stage == "draw-keep":
                assert "keep" in reply.text, reply.text
            else:
                assert f"{self.game.ap} AP left" in reply.text, reply.text
        self.only_public(None)
        ix, reply = await self.t.click(who, self.turn_msg, "end")
        assert "turn is over" in reply.text, reply.text
        self.apply(["end"])
        return await self.turn_post(ix, actions)

    async def play_with_undo(self, actions: list[str]) -> FakeMessage:
        """A wrong first action taken back with ``/torres undo``, then the real decision."""
        who = self.mover
        trial = self.game.copy()
        wrong = next(
            (a for a in trial.legal() if a not in ("end",) and not a.startswith("draw")), None
        )
        if wrong is None:
            return await self.play_slash(actions)
        trial.play(wrong)
        assert trial.undo()
        ix, reply = await self.t.slash(who, "play", actions=wrong)
        assert reply.text.startswith(f"Done: `{wrong}`"), reply.text
        self.game.play(wrong)
        if self.turn_msg is not None and self.rng.random() < 0.5:
            # the turn message's Undo opens the panel, which says what its Undo takes back
            driver = PanelDriver(self.t.fake, who)
            panel = await driver.open(self.turn_msg, "undo")
            assert f"Press **Undo** below to take back `{wrong}`" in panel.text, panel.text
            await driver.tap(driver.button("undo"))
            assert f"Took back `{wrong}`" in panel.text, panel.text
        else:
            ix, reply = await self.t.slash(who, "undo")
            assert reply.text.startswith("Took back"), reply.text
        assert self.game.undo()
        return await self.play_slash(actions)

    async def decide(self, mode: int | None = None) -> FakeMessage:
        actions = self.plan()
        self.decisions += 1
        mode = self.decisions % 3 if mode is None else mode
        if self.game.stage != "play" or mode == 0 or actions == ["end"]:
            return await self.play_slash(actions)
        if mode == 1:
            return await self.play_then_button(actions)
        return await self.play_with_undo(actions)

    # -- refusals -------------------------------------------------------------------------

    async def refusals(self) -> None:
        """Private errors that change nothing: out of turn, illegal, malformed, others' hands."""
        mover, waiter = self.mover, self.waiter
        legal = self.game.legal()
        _, reply = await self.t.slash(waiter, "play", actions=legal[0])
        assert "not your turn" in reply.text.lower(), reply.text
        assert self.fake.users[mover].mention in reply.text or self.game.to_move in reply.text

        illegal, message = None, ""
        for candidate in ("move a1 a2", "move h8 h7", "build a1", "knight h8", "move d4 d5"):
            try:
                self.game.copy().play(candidate)
            except IllegalAction as e:
                illegal, message = candidate, str(e)
                break
            except NotationError:
                continue
        assert illegal is not None, "no illegal action found to try"
        _, reply = await self.t.slash(mover, "play", actions=illegal)
        assert message in reply.text and "Nothing was changed" in reply.text, (
            message,
            reply.text,
        )

        malformed = "<the engine accepted 'fly c3 d3'>"
        try:
            self.game.copy().play("fly c3 d3")
        except NotationError as e:
            malformed = str(e)
        _, reply = await self.t.slash(mover, "play", actions="fly c3 d3")
        assert malformed in reply.text, (malformed, reply.text)

        # All or nothing: a legal action followed by an illegal one applies neither.
        _, reply = await self.t.slash(mover, "play", actions=f"{legal[0]}; {illegal}")
        assert "Nothing was changed" in reply.text, reply.text

        _, reply = await self.t.slash("carol", "play", actions=legal[0])
        assert "not playing" in reply.text.lower(), reply.text
        assert self.turn_msg is not None
        _, reply = await self.t.click("carol", self.turn_msg, "end")
        assert "not playing" in reply.text.lower(), reply.text
        _, reply = await self.t.click(waiter, self.turn_msg, "end")
        assert "not your turn" in reply.text.lower(), reply.text
        _, reply = await self.t.click(waiter, self.turn_msg, "undo")
        assert "not your turn" in reply.text.lower(), reply.text
        self.only_public(None)

    async def hands_and_board(self) -> None:
        """``/torres hand`` and the My hand button answer privately, each with the asker's own hand."""
        assert self.turn_msg is not None
        mover, waiter = self.mover, self.waiter
        colour = {u: c for c, u in self.seats.items()}
        _, reply = await self.t.slash(mover, "hand")
        assert reply.viewer is self.fake.users[mover]
        assert "Your hand (" in reply.text and colour[mover] in reply.text.splitlines()[0]
        _, reply = await self.t.click(waiter, self.turn_msg, "hand")
        assert reply.viewer is self.fake.users[waiter]
        assert colour[waiter] in reply.text.splitlines()[0], reply.text
        assert colour[mover] not in reply.text.splitlines()[0]
        _, reply = await self.t.slash("carol", "hand")
        assert "not playing" in reply.text.lower(), reply.text
        _, reply = await self.t.slash("carol", "board")
        assert [a.filename for a in reply.attachments] == ["board.png"]
        check_png(reply.attachments[0].data)
        choices = await self.fake.autocomplete(
            mover, self.t.channel, "torres", "play", focused="actions", actions=""
        )
        legal = set(self.game.legal())
        assert choices and {c["value"] for c in choices} <= legal, choices
        assert len(choices) <= 25
        theirs = await self.fake.autocomplete(
            waiter, self.t.channel, "torres", "play", focused="actions", actions=""
        )
        # The waiting player gets one entry saying why, and no action.
        assert [c["name"].split(":")[0] for c in theirs] == ["⚠ It's not your turn"], theirs
        self.only_public(None)

    async def hands_with_cards(self) -> None:
        """Once someone holds cards: each player's hand lists exactly their own cards."""
        assert self.turn_msg is not None
        for colour, user in self.seats.items():
            if user == self.mover:
                _, reply = await self.t.slash(user, "hand")
            else:
                _, reply = await self.t.click(user, self.turn_msg, "hand")
            mine = set(self.game.hand(colour))
            for card in engine.CARDS:
                shown = f"`play {card}`" in reply.text
                assert shown == (card in mine), (colour, card, mine, reply.text)
        self.only_public(None)

    async def stale_button(self) -> None:
        """The previous turn's message can no longer be pressed: its buttons are disabled."""
        assert self.prev_turn_msg is not None
        old = self.prev_turn_msg
        # Only the latest turn message plays: the bot disabled the previous one's buttons.
        await self.fake.wait_until(
            lambda: all(b.disabled for b in old.buttons) or None, TIMEOUT, "disabled buttons"
        )
        assert old.buttons and old.edits >= 1
        self.only_public(None)

    async def simultaneous_end(self) -> FakeMessage:
        """End turn pressed and ``/torres play end`` sent at once: one ends the turn, one is refused."""
        assert (
            self.turn_msg is not None and self.game.stage == "play" and "end" in self.game.legal()
        )
        who = self.mover
        button = next(
            b for b in self.turn_msg.buttons if b.custom_id and b.custom_id.endswith(":end")
        )
        question = await (await self.fake.click(who, self.turn_msg, button.custom_id or "")).reply(
            TIMEOUT
        )
        assert "End your turn anyway?" in question.text, question.text  # 5 AP left
        yes = next(b for b in question.buttons if (b.custom_id or "").endswith(":yes"))
        a = await self.fake.click(who, question, yes.custom_id or "")
        b = await self.fake.slash(who, self.t.channel, "torres", "play", actions="end")
        ra, rb = await a.reply(TIMEOUT), await b.reply(TIMEOUT)
        texts = sorted([ra.text, rb.text])
        ok = [t for t in texts if "turn is over" in t]
        assert len(ok) == 1, texts
        refused = [t for t in texts if t not in ok][0]
        assert "earlier turn" in refused or "not your turn" in refused.lower(), refused
        self.apply(["end"])
        self.decisions += 1
        return await self.turn_post(a if "turn is over" in ra.text else b, ["end"])


async def open_game(t: Table) -> int:
    """Lobby: open, a second open refused, join, a third player refused, start."""
    ix, reply = await t.slash("alice", "new", players=2)
    m = re.search(r"game #(\d+)", reply.text)
    assert m, reply.text
    game_id = int(m.group(1))
    lobby = t.lobby or await t.public_after(ix, "the lobby message")  # a card, with a thread
    assert t.user("alice").mention in lobby.text and f"#{game_id}" in lobby.text

    _, reply = await t.slash("carol", "new")
    assert "thread" in reply.text, reply.text
    _, reply = await t.slash("bob", "start")
    assert "author" in reply.text, reply.text
    ix, reply = await t.slash("bob", "join")
    assert f"game #{game_id}" in reply.text, reply.text
    await t.public_after(ix, "the join note", lambda m: "bob" in m.text.lower())
    _, reply = await t.slash("carol", "join")
    assert "full" in reply.text, reply.text
    return game_id


async def test_whole_game_with_kill_and_restart(runner: BotRunner) -> None:
    t = Table(runner)
    game_id = await open_game(t)
    match = Match(t, {"red": "alice", "blue": "bob"}, game_id)
    match.public_seq = t.fake.last_seq

    ix, reply = await t.slash("alice", "start")
    assert f"Game #{game_id} started" in reply.text, reply.text
    start = await t.public_after(ix, "the start message", lambda m: bool(m.attachments))
    match.only_public(start)
    check_png(start.attachments[0].data)
    assert f"{t.user('alice').mention}" in start.text and f"{t.user('bob').mention}" in start.text
    match.check_next(start)
    match.turn_posts.append(start)

    refusals_done = stale_done = simultaneous_done = killed = cards_done = False
    while not match.over:
        assert match.decisions < 200, "the game does not end"
        in_play = match.game.stage == "play"
        if in_play and not refusals_done:
            await match.refusals()
            await match.hands_and_board()
            refusals_done = True
        elif in_play and refusals_done and not stale_done and match.prev_turn_msg is not None:
            await match.stale_button()
            stale_done = True
        if in_play and not cards_done and any(match.game.hand(c) for c in match.seats):
            await match.hands_with_cards()
            cards_done = True
        if in_play and stale_done and not simultaneous_done:
            await match.simultaneous_end()
            simultaneous_done = True
            continue
        if in_play and not killed and match.game.phase == 2:
            await kill_mid_turn(runner, match)
            killed = True
            continue
        await match.decide()

    assert refusals_done and stale_done and simultaneous_done and killed and cards_done
    assert match.phases_scored == 3
    final = match.turn_posts[-1]
    for colour, user in match.seats.items():
        name = t.user(user).display_name
        assert f"{colour} ({name}): {match.game.scores[colour]}" in final.text, final.text

    # The bot's own record agrees with the mirror: every acknowledged action is there.
    status, position = runner.db_row("SELECT status, position FROM games WHERE id = ?", game_id)
    assert status == "over"
    assert json.loads(position) == match.game.position()

    # Hidden information: public messages name a card only where it was played.
    for m in t.fake.channel_messages(t.channel):
        text = re.sub(r"play [a-z0-9]+", "play ·", m.text)
        for card, label in engine.CARDS.items():
            assert label not in text and not re.search(rf"\b{card}\b", text), (card, m.text)

    # The channel is free again; a new game can be opened.
    _, reply = await t.slash("bob", "play", actions="end")
    assert "no torres game" in reply.text.lower(), reply.text
    ix, reply = await t.slash("bob", "new")
    assert re.search(r"game #\d+", reply.text), reply.text


async def kill_mid_turn(runner: BotRunner, match: Match) -> None:
    """Act, get the acknowledgement, SIGKILL the bot, restart it, then end the turn with the old button."""
    t = match.t
    who = match.mover
    legal = [a for a in match.game.legal() if a != "end" and not a.startswith("draw")]
    assert legal, "nothing to do before the kill"
    first = match.rng.choice(legal)
    ix, reply = await t.slash(who, "play", actions=first)
    assert reply.text.startswith(f"Done: `{first}`"), reply.text
    match.apply([first])
    old_turn_msg = match.turn_msg
    assert old_turn_msg is not None

    await runner.restart_after_kill()
    assert runner.starts == 2

    # After the restart: the board shows the acknowledged action, the old buttons still work.
    _, reply = await t.slash(who, "board")
    check_png(reply.attachments[0].data)
    ix, reply = await t.click(who, old_turn_msg, "end")
    assert "turn is over" in reply.text, reply.text
    match.apply(["end"])
    match.decisions += 1
    await match.turn_post(ix, [first, "end"])


@pytest.mark.parametrize(
    ("variant", "names"),
    [("personal", ("alice", "bob")), ("master", ("alice", "bob", "carol"))],
)
async def test_whole_game_in_other_variants(
    runner: BotRunner, variant: str, names: tuple[str, ...]
) -> None:
    """Personal decks (draw, keep) and the master version with 3 players, start to finish."""
    t = Table(runner)
    ix, reply = await t.slash("alice", "new", players=len(names), variant=variant)
    game_id = int(re.search(r"game #(\d+)", reply.text).group(1))  # type: ignore[union-attr]
    for who in names[1:]:
        await t.slash(who, "join")
    colours = ["red", "blue", "green", "yellow"][: len(names)]
    match = Match(t, dict(zip(colours, names, strict=True)), game_id, variant)
    match.public_seq = t.fake.last_seq
    ix, reply = await t.slash("alice", "start")
    start = await t.public_after(ix, "the start message", lambda m: bool(m.attachments))
    match.only_public(start)
    match.check_next(start)
    while not match.over:
        assert match.decisions < 300, "the game does not end"
        await match.decide()
    final = match.turn_posts[-1]
    assert "**Game over!**" in final.text
    status, position = runner.db_row("SELECT status, position FROM games WHERE id = ?", game_id)
    assert status == "over" and json.loads(position) == match.game.position()
    if variant == "personal":  # kept and held cards never show in public
        for m in t.fake.channel_messages(t.channel):
            text = re.sub(r"play [a-z0-9]+", "play ·", m.text)
            for card, label in engine.CARDS.items():
                assert label not in text and not re.search(rf"\b{card}\b", text), (card, m.text)
