"""End-to-end: a game in a thread of its own (issue 35), the default of ``/torres new``.

The channel keeps one lobby card per game, edited in place (open, running, over), with
Join / Leave / Start / Cancel; the game's turn posts, pictures and scoring go to its
thread, whose members are the players. Two games run at once from one channel, each
driven by taps from the lobby to the result; the channel gets at most three posts per
game. ``thread:False`` plays in the channel as before; without the permission to start
threads the game plays in the channel and the author is told why, once.
"""

from __future__ import annotations

import re

from engine import Game
from renderer._model import PLAYER_COLOURS
from tests.bot.e2e._harness import SEED, TIMEOUT, BotRunner, PanelDriver, Table
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage
from tests.fakediscord._model import CREATE_PUBLIC_THREADS, MANAGE_THREADS


def new_threads(fake: FakeDiscord) -> list[object]:
    """Threads of #games the bot started (the fixture's ``games-2`` was there before)."""
    return [c for c in fake.threads("games") if c.starter_message_id is not None]


def cards(fake: FakeDiscord, channel: str = "games") -> list[FakeMessage]:
    """The lobby cards in *channel*: public posts that started a thread."""
    return [m for m in fake.channel_messages(channel) if fake.thread_of(m) is not None]


def lobby_button(card: FakeMessage, op: str) -> str:
    cid = next((b.custom_id for b in card.buttons if (b.custom_id or "").endswith(":" + op)), None)
    assert cid, f"the card has no {op} button: {[b.label for b in card.buttons]}"
    return cid


async def tap_card(fake: FakeDiscord, who: str, card: FakeMessage, op: str) -> FakeMessage:
    """*who* presses a lobby card's button; the answer is private."""
    ix = await fake.click(who, card, lobby_button(card, op))
    reply = await ix.reply(TIMEOUT)
    assert reply.ephemeral and reply.viewer is fake.users[who], reply
    return reply


class Seat:
    """One game in its thread, played by taps: an engine mirror and its players."""

    def __init__(self, fake: FakeDiscord, card: FakeMessage, players: dict[str, str]) -> None:
        self.fake = fake
        self.card = card
        thread = fake.thread_of(card)
        assert thread is not None
        self.thread = thread
        self.players = players  # seat colour -> user
        self.game = Game.new(players=2, names=list(players), seed=SEED)
        self.post: FakeMessage | None = None
        self.decisions = 0

    async def next_post(self, after: int) -> FakeMessage:
        return await self.fake.wait_for_message(
            lambda m: bool(m.attachments),
            channel=self.thread,
            after=after,
            public=True,
            timeout=TIMEOUT,
            what=f"the next turn message in {self.thread.name}",
        )

    async def decide(self) -> None:
        """The mover's decision by taps: Play, then one choice (setup, king) or End turn."""
        assert self.post is not None and self.game.to_move is not None
        who = self.players[self.game.to_move]
        legal = self.game.legal()
        action = "end" if "end" in legal else legal[0]
        driver = PanelDriver(self.fake, who)
        await driver.open(self.post)
        seq = self.fake.last_seq
        if action == "end":
            await driver.end()
        else:
            await driver.do(action)
        self.game.play(action)
        self.decisions += 1
        self.post = await self.next_post(seq)


async def test_two_games_at_once_each_in_its_own_thread(runner: BotRunner) -> None:
    fake = runner.fake
    t = Table(runner)
    # alice and carol each open a game in #games: a card each, a thread each.
    _, reply_a = await Table(runner).slash("alice", "new")
    _, reply_c = await Table(runner).slash("carol", "new")
    card_a, card_c = cards(fake)
    game_a = int(re.search(r"game #(\d+)", reply_a.text)[1])  # type: ignore[index]
    game_c = int(re.search(r"game #(\d+)", reply_c.text)[1])  # type: ignore[index]
    assert game_a != game_c
    seat_a = Seat(fake, card_a, {"red": "alice", "blue": "bob"})
    seat_c = Seat(fake, card_c, {"red": "carol", "blue": "dana"})
    for seat, game_id, author in ((seat_a, game_a, "alice"), (seat_c, game_c, "carol")):
        assert f"<#{seat.thread.id}>" in (reply_a if author == "alice" else reply_c).text
        assert seat.thread.parent_id == fake.channels["games"].id
        assert seat.thread.name.startswith(f"Torres game #{game_id}")
        assert seat.thread.members == {fake.bot_user.id, fake.users[author].id}
        assert f"**Torres game #{game_id}**" in seat.card.text
        assert fake.users[author].mention in seat.card.text and seat.card.pinged_ids == []
        assert "Press **Join**" in seat.card.text
        assert [b.label for b in seat.card.buttons] == ["Join", "Leave", "Start", "Cancel"]
        assert fake.channel_messages(seat.thread) == []  # the card is the lobby

    # In the channel itself, a command must say which game: there are two.
    _, which = await t.slash("bob", "board")
    assert "several Torres games" in which.text, which.text
    assert f"#{game_a} in <#{seat_a.thread.id}>" in which.text
    assert f"#{game_c} in <#{seat_c.thread.id}>" in which.text

    # The lobby by taps: Start too early is refused, Join, then Start.
    early = await tap_card(fake, "alice", card_a, "start")
    assert "at least 2 players" in early.text, early.text
    joined = await tap_card(fake, "bob", card_a, "join")
    assert joined.text.startswith(f"You joined game #{game_a}"), joined.text
    await tap_card(fake, "dana", card_c, "join")
    await fake.wait_until(
        lambda: fake.users["bob"].id in seat_a.thread.members or None, TIMEOUT, "bob in thread"
    )
    assert "2 of 2 seats taken: Alice, Bob." in card_a.text, card_a.text
    # The join note goes to the thread, pinging nobody (the card names the author once).
    (join_post,) = fake.channel_messages(seat_a.thread)
    assert "Bob joined" in join_post.text and join_post.pinged_ids == [], join_post
    assert "**Start** on the game's card" in join_post.text, join_post.text
    assert card_a.text.count(fake.users["alice"].mention) == 1
    refused = await tap_card(fake, "bob", card_a, "start")
    assert "Only the game's author" in refused.text, refused.text
    seq = fake.last_seq
    started = await tap_card(fake, "alice", card_a, "start")
    assert started.text == f"Game #{game_a} started.", started.text
    seat_a.post = await seat_a.next_post(seq)
    seq = fake.last_seq
    await tap_card(fake, "carol", card_c, "start")
    seat_c.post = await seat_c.next_post(seq)
    assert fake.users["dana"].id in seat_c.thread.members
    for seat in (seat_a, seat_c):
        # The turn post is one card (Components V2): the accent is the colour of the player
        # to move, the text names them, the picture sits in it with its alt text.
        post = seat.post
        assert post is not None and post.v2 and post.content == ""
        assert post.attachments[0].description
        assert post.gallery == [
            {
                "media": {"url": "attachment://board.png"},
                "description": post.attachments[0].description,
                "spoiler": False,
            }
        ]
        mover = seat.game.to_move
        assert mover is not None
        r, g, b = PLAYER_COLOURS[list(seat.players).index(mover)]
        assert post.accent_colors == [(r << 16) | (g << 8) | b]
        assert f"{fake.users[seat.players[mover]].mention} ({mover})" in post.text
        assert [b.label for b in post.buttons] == ["Play", "My hand"]
        await fake.wait_until(
            lambda s=seat: "to move" in s.card.text or None, TIMEOUT, "the running card"
        )
        assert seat.card.buttons == []  # the lobby is over: no buttons on the card

    # Both games by taps, turn about, to the end.
    while seat_a.game.stage != "over" or seat_c.game.stage != "over":
        for seat in (seat_a, seat_c):
            if seat.game.stage != "over":
                await seat.decide()
                assert seat.decisions < 100, "the game does not end"

    for seat, game_id in ((seat_a, game_a), (seat_c, game_c)):
        # The thread held the game: its last posts are the result and the replay.
        await fake.wait_for_message(
            lambda m: m.attachments[0].filename == "replay.gif" if m.attachments else False,
            channel=seat.thread,
            timeout=TIMEOUT,
            what="the replay",
        )
        final = [m for m in fake.channel_messages(seat.thread) if m.attachments][-2:]
        assert "Game over" in final[0].text, final[0].text
        assert final[1].attachments[0].filename == "replay.gif"
        # The card shows the result and links the replay.
        winner = fake.users[seat.players[seat.game.winners[0]]].display_name
        await fake.wait_until(
            lambda s=seat: "Replay:" in s.card.text or None, TIMEOUT, "the card's result"
        )
        assert f"{winner} (" in seat.card.text and " won." in seat.card.text
        assert f"/{seat.thread.id}/{final[1].id}" in seat.card.text, seat.card.text
        # The channel got three posts for this game: the card, the start and the result.
        mine = [
            m
            for m in fake.channel_messages("games")
            if not m.ephemeral and re.search(rf"game #{game_id}\b", m.text)
        ]
        assert len(mine) == 3, [m.text for m in mine]
        assert mine[0] is seat.card and "has started" in mine[1].text
        assert "is over" in mine[2].text and f"{winner} (" in mine[2].text
    public = [m for m in fake.channel_messages("games") if not m.ephemeral]
    assert len(public) == 6, [m.text for m in public]
    assert fake.errors == [], fake.errors


async def test_thread_false_plays_in_the_channel_as_before(runner: BotRunner) -> None:
    fake = runner.fake
    t = Table(runner)
    ix, reply = await t.slash("alice", "new", thread=False)
    assert "thread" not in reply.text, reply.text
    lobby = await t.public_after(ix, "the lobby post")
    assert "opened Torres game" in lobby.text and "/torres join" in lobby.text
    assert new_threads(fake) == [] and cards(fake) == []
    ix, _ = await t.slash("bob", "join")
    await t.public_after(ix, "the join note", lambda m: "joined game" in m.text)
    ix, _ = await t.slash("alice", "start")
    start = await t.public_after(ix, "the start message", lambda m: bool(m.attachments))
    assert start.channel_id == fake.channels["games"].id and new_threads(fake) == []
    assert fake.errors == [], fake.errors


async def test_without_the_thread_permission_the_game_plays_in_the_channel(
    runner: BotRunner,
) -> None:
    fake = runner.fake
    fake.deny_bot("games", CREATE_PUBLIC_THREADS)
    t = Table(runner)
    ix, reply = await t.slash("alice", "new")
    assert reply.text.count("I may not start threads here") == 1, reply.text
    assert "Create Public Threads" in reply.text
    lobby = await t.public_after(ix, "the lobby post")
    assert "opened Torres game" in lobby.text
    assert new_threads(fake) == []
    ix, joined = await t.slash("bob", "join")
    assert "threads" not in joined.text  # told once: the author, at /torres new
    await t.public_after(ix, "the join note", lambda m: "joined game" in m.text)
    assert fake.errors == [], fake.errors


async def test_archived_thread_comes_back_and_deleted_one_can_be_cancelled(
    runner: BotRunner,
) -> None:
    fake = runner.fake
    t = Table(runner)
    _, reply = await t.slash("alice", "new", players=3)
    game_id = int(re.search(r"game #(\d+)", reply.text)[1])  # type: ignore[index]
    (card,) = cards(fake)
    thread = fake.thread_of(card)
    assert thread is not None
    await fake.archive_thread(thread)
    await tap_card(fake, "bob", card, "join")
    await fake.wait_until(
        lambda: fake.users["bob"].id in thread.members or None, TIMEOUT, "bob in the thread"
    )
    assert not thread.archived
    # A moderator deletes the thread; the game can still be ended from the channel.
    await fake.delete_thread(thread)
    ix, ask = await t.slash("alice", "cancel")
    yes = next(b for b in ask.buttons if (b.custom_id or "").endswith(":yes"))
    ix = await fake.click("alice", ask, yes.custom_id or "")
    done = await ix.reply(TIMEOUT)
    assert f"Game #{game_id} is cancelled." in done.text, done.text
    await fake.wait_until(lambda: "cancelled" in card.text or None, TIMEOUT, "the card")
    assert card.buttons == []
    # The cancel note had nowhere to go: Discord answered that the thread is gone.
    runner.expected_log_errors.append("Unknown Channel")
    assert [e["code"] for e in fake.take_errors()] == [10003]
    status = runner.db_row("SELECT status FROM games WHERE id = ?", game_id)
    assert status == ("cancelled",) or status == "cancelled", status


async def _locked_lobby(runner: BotRunner) -> tuple[FakeMessage, FakeChannel]:
    """Alice opens a 3-player game; a moderator locks its thread, which archives it."""
    await Table(runner).slash("alice", "new", players=3)
    (card,) = cards(runner.fake)
    thread = runner.fake.thread_of(card)
    assert thread is not None
    await runner.fake.archive_thread(thread, locked=True)
    return card, thread


async def test_a_locked_archived_thread_is_reopened_by_the_bot(runner: BotRunner) -> None:
    """A locked archived thread refuses the bot's post (Discord's 50083): no post brings it
    back, so the bot's own unarchive runs (it may: Manage Threads), and the post follows."""
    fake = runner.fake
    fake.grant_bot("games", MANAGE_THREADS)
    card, thread = await _locked_lobby(runner)
    seq = fake.last_seq
    await tap_card(fake, "bob", card, "join")
    note = await fake.wait_for_message(
        lambda m: "joined game" in m.text,
        channel=thread,
        after=seq,
        public=True,
        timeout=TIMEOUT,
        what="the join note in the thread",
    )
    assert note.channel_id == thread.id
    await fake.wait_until(
        lambda: fake.users["bob"].id in thread.members or None, TIMEOUT, "bob in the thread"
    )
    assert not thread.archived and thread.locked  # back, and still locked as the moderator left it
    assert fake.thread_unarchives == 1
    # The one refusal: the first try of the post, before the bot reopened the thread.
    assert [e["code"] for e in fake.take_errors()] == [50083]


async def test_a_locked_thread_the_bot_may_not_reopen_leaves_the_game_going(
    runner: BotRunner,
) -> None:
    """Without Manage Threads the bot can't reopen a locked thread: its post there is lost
    (and logged), the game and its card go on."""
    fake = runner.fake
    card, thread = await _locked_lobby(runner)
    reply = await tap_card(fake, "bob", card, "join")
    assert "You joined game" in reply.text, reply.text
    await fake.wait_until(lambda: "bob" in card.text.lower() or None, TIMEOUT, "bob on the card")
    # Both the post and the new member were refused, and so was each try to reopen.
    await fake.wait_until(lambda: len(fake.errors) >= 4 or None, TIMEOUT, "the refusals")
    assert sorted(e["code"] for e in fake.take_errors()) == [50013, 50013, 50083, 50083]
    assert thread.archived and thread.locked and fake.users["bob"].id not in thread.members
    runner.expected_log_errors.append("Thread is locked")
