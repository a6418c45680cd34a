"""The fake Discord, validated against an unmodified discord.py 2.7 client in its own process.

The client is ``minibot.py`` (not our bot), so a failure here is the fake's fault.
One fake and one minibot serve the whole module; each test consumes the errors
it provokes so that unexpected ones fail the test that caused them.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio

from tests.fakediscord import BotProcess, CommandMismatch, FakeDiscord, ProtocolTimeout

pytestmark = pytest.mark.asyncio(loop_scope="module")

PNG_SIG = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from IHDR, after checking the signature and the CRCs of every chunk."""
    assert data[:8] == PNG_SIG
    pos, size = 8, None
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        tag = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        crc = int.from_bytes(data[pos + 8 + length : pos + 12 + length], "big")
        assert zlib.crc32(tag + body) == crc, f"bad CRC in {tag!r}"
        if tag == b"IHDR":
            size = (int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big"))
        pos += 12 + length
    assert size is not None
    return size


class Harness:
    def __init__(self, fake: FakeDiscord, bot: BotProcess, log: Path) -> None:
        self.fake = fake
        self.bot = bot
        self.log = log

    async def restart(self, *, kill: bool) -> None:
        await (self.bot.kill() if kill else self.bot.stop())
        env = {**self.fake.env(), "DISCORD_TOKEN": "fake-token"}
        self.bot = await BotProcess(
            ["-m", "tests.fakediscord.minibot"], env=env, log_path=self.log
        ).start()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def h(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Harness]:
    log = tmp_path_factory.mktemp("minibot") / "minibot.log"
    fake = await FakeDiscord(threads={"side": "games"}).start()
    env = {**fake.env(), "DISCORD_TOKEN": "fake-token"}
    bot = await BotProcess(["-m", "tests.fakediscord.minibot"], env=env, log_path=log).start()
    harness = Harness(fake, bot, log)
    try:
        await fake.wait_connected(30)
        await fake.wait_synced(30, names=["probe"])
        yield harness
    finally:
        await harness.bot.stop()
        await fake.stop()
        print(harness.bot.log_text())


@pytest.fixture
def fake(h: Harness) -> FakeDiscord:
    h.fake.take_errors()
    return h.fake


def codes(errors: list[dict]) -> list[int]:
    return [e["code"] for e in errors]


async def test_rest_replies_have_exact_json_content_type(fake: FakeDiscord) -> None:
    async with aiohttp.ClientSession() as s:
        async with s.get(fake.api_base + "/users/@me", headers={"Authorization": "Bot x"}) as r:
            assert r.headers["Content-Type"] == "application/json"
            assert (await r.json())["id"] == str(fake.bot_user.id)
        async with s.get(fake.api_base + "/users/@me") as r:
            assert r.status == 401
    assert codes(fake.take_errors()) == [0]


async def test_gateway_handshake_and_command_sync(fake: FakeDiscord) -> None:
    assert fake.connected and fake.identify_count >= 1
    [cmd] = fake.global_commands
    assert cmd["name"] == "probe" and cmd["application_id"] == str(fake.app_id)
    assert cmd["id"].isdigit() and cmd["version"].isdigit()
    subs = {o["name"] for o in cmd["options"]}
    assert {"echo", "picture", "buttons", "typed"} <= subs


async def test_resync_keeps_ids_and_bumps_version_only_on_change(fake: FakeDiscord) -> None:
    url = f"{fake.api_base}/applications/{fake.app_id}/guilds/{fake.guild_id}/commands"
    hdr = {"Authorization": "Bot x", "Content-Type": "application/json"}
    body = [{"name": "extra", "description": "one", "type": 1}]
    async with aiohttp.ClientSession() as s:
        async with s.put(url, data=json.dumps(body), headers=hdr) as r:
            first = (await r.json())[0]
        async with s.put(url, data=json.dumps(body), headers=hdr) as r:
            same = (await r.json())[0]
        body[0]["description"] = "two"
        async with s.put(url, data=json.dumps(body), headers=hdr) as r:
            changed = (await r.json())[0]
        bad = [{"name": "Bad Name", "description": "x"}]
        async with s.put(url, data=json.dumps(bad), headers=hdr) as r:
            assert r.status == 400
            assert (await r.json())["code"] == 50035
        async with s.put(url, data="[]", headers=hdr) as r:
            assert await r.json() == []
    assert first["id"] == same["id"] == changed["id"]
    assert first["version"] == same["version"] != changed["version"]
    assert first["guild_id"] == str(fake.guild_id)
    assert codes(fake.take_errors()) == [50035]


async def test_localized_commands_are_kept_and_checked(fake: FakeDiscord) -> None:
    url = f"{fake.api_base}/applications/{fake.app_id}/guilds/{fake.guild_id}/commands"
    hdr = {"Authorization": "Bot x", "Content-Type": "application/json"}
    option = {
        "type": 3,
        "name": "topic",
        "description": "What",
        "description_localizations": {"de": "Was", "nl": "Wat"},
        "choices": [{"name": "king", "value": "king", "name_localizations": {"de": "König"}}],
    }
    body = [
        {
            "name": "extra",
            "description": "one",
            "description_localizations": {"de": "eins", "nl": "een"},
            "options": [option],
        }
    ]
    async with aiohttp.ClientSession() as s:
        async with s.put(url, data=json.dumps(body), headers=hdr) as r:
            [kept] = await r.json()
        body[0]["description_localizations"] = {"deutsch": "eins"}
        async with s.put(url, data=json.dumps(body), headers=hdr) as r:
            assert r.status == 400
        async with s.put(url, data="[]", headers=hdr) as r:
            assert r.status == 200
    assert kept["description_localizations"] == {"de": "eins", "nl": "een"}
    assert kept["options"][0]["description_localizations"] == {"de": "Was", "nl": "Wat"}
    assert kept["options"][0]["choices"][0]["name_localizations"] == {"de": "König"}
    assert codes(fake.take_errors()) == [50035]


async def test_users_and_guild_have_their_locales(fake: FakeDiscord) -> None:
    """Each interaction carries its user's ``locale`` and the guild's; discord.py parses both."""
    assert fake._guild_payload(full=False)["preferred_locale"] == "en-US"
    fake.set_locale("alice", "de")
    fake.set_locale("bob", "nl")
    fake.set_guild_locale("nl")  # GUILD_UPDATE: the bot's cached guild follows
    try:
        seen = {}
        for who in ("alice", "bob", "carol"):
            ix = await fake.slash(who, "games", "probe", "locale")
            seen[who] = (await ix.reply()).content
        assert fake._guild_payload(full=False)["preferred_locale"] == "nl"
    finally:
        fake.set_locale("alice", "en-US")
        fake.set_locale("bob", "en-US")
        fake.set_guild_locale("en-US")
    assert seen == {
        "alice": "locale=de guild_locale=nl preferred_locale=nl",
        "bob": "locale=nl guild_locale=nl preferred_locale=nl",
        "carol": "locale=en-US guild_locale=nl preferred_locale=nl",
    }
    ix = await fake.slash("alice", "games", "probe", "locale")
    assert (await ix.reply()).content == "locale=en-US guild_locale=en-US preferred_locale=en-US"
    with pytest.raises(ValueError, match="not a Discord locale"):
        fake.set_locale("alice", "german")
    assert not fake.take_errors()


async def test_public_reply(fake: FakeDiscord) -> None:
    ix = await fake.slash("alice", "games", "probe", "echo", text="hello <@1>")
    msg = await ix.reply()
    assert ix.callback_type == 4 and msg.kind == "callback" and not msg.ephemeral
    assert msg.content == "hello <@1>" and msg.channel_id == fake.channels["games"].id
    assert msg in fake.channel_messages("games")
    assert ix.callback_latency is not None and 0 <= ix.callback_latency < 3
    assert not fake.take_errors()


async def test_ephemeral_reply_is_seen_only_by_its_user(fake: FakeDiscord) -> None:
    ix = await fake.slash("bob", "general", "probe", "secret", text="x")
    msg = await ix.reply()
    assert msg.ephemeral and msg.viewer is fake.users["bob"]
    assert msg.visible_to(fake.users["bob"]) and not msg.visible_to(fake.users["alice"])
    assert msg not in fake.channel_messages("general")
    assert msg in fake.channel_messages("general", viewer="bob")
    assert msg not in fake.channel_messages("general", viewer="alice")


async def test_defer_then_file_follow_up_resolves_the_loading_message(fake: FakeDiscord) -> None:
    ix = await fake.slash("alice", "games", "probe", "picture")
    second = await ix.wait(lambda m: "second" in m.content)
    assert ix.callback_type == 5
    original = ix.original
    assert original is not None and not original.loading and original.resolved_at is not None
    assert original.content == "here" and [a.filename for a in original.attachments] == [
        "board.png"
    ]
    assert png_size(original.attachments[0].data) == (3, 2)
    assert ix.followups == [second] and second.ephemeral
    assert not fake.take_errors()


async def test_first_follow_up_after_public_defer_stays_public(fake: FakeDiscord) -> None:
    # Discord ignores the follow-up's ephemeral flag when it resolves a deferral.
    ix = await fake.slash("carol", "games", "probe", "leak")
    msg = await ix.reply()
    assert msg is ix.original and msg.content == "meant to be private" and not msg.ephemeral


async def test_private_defer_resolved_by_editing_original(fake: FakeDiscord) -> None:
    ix = await fake.slash("carol", "games", "probe", "privedit")
    msg = await ix.reply()
    assert (
        msg.content == "resolved privately" and msg.ephemeral and msg.viewer is fake.users["carol"]
    )


async def test_edit_read_back_and_delete(fake: FakeDiscord) -> None:
    ix = await fake.slash("alice", "games", "probe", "edit")
    await ix.wait(lambda m: m.content == "after delete")
    assert ix.original is not None and ix.original.content == "second" and ix.original.edits == 1
    assert ix.original.history[0]["content"] == "first"
    assert len(ix.original.attachments) == 1  # an edit without `attachments` keeps them
    deleted = [m for m in fake.messages.values() if m.deleted and m.interaction is ix]
    assert [m.content for m in deleted] == ["read back: second 1"]
    assert [m.content for m in ix.messages] == ["second", "after delete"]


async def test_buttons_update_in_place_and_defer_update(fake: FakeDiscord) -> None:
    ix = await fake.slash("bob", "games", "probe", "buttons")
    msg = await ix.reply()
    assert [b.custom_id for b in msg.buttons] == ["probe:count:0", "probe:whisper"]
    click = await fake.click("carol", msg, "probe:count:0")
    updated = await click.reply()
    assert click.callback_type == 7 and updated is msg and msg.content == "count 1"
    assert msg.button("Count").custom_id == "probe:count:1"
    with pytest.raises(AssertionError, match="no component"):
        await fake.click("carol", msg, "probe:count:0")  # gone from the message now
    whisper = await fake.click("dana", msg, "probe:whisper")
    private = await whisper.reply()
    assert whisper.callback_type == 6 and private.ephemeral and private.viewer is fake.users["dana"]
    assert private.content == "psst dana"
    later = await fake.click("dana", msg, "probe:later")
    edited = await later.reply()
    assert later.callback_type == 6 and edited is msg and msg.content == "later for dana"
    assert not fake.take_errors()


async def test_autocomplete(fake: FakeDiscord) -> None:
    choices = await fake.autocomplete(
        "alice", "games", "probe", "typed", focused="color", n=1, color="b"
    )
    assert [c["value"] for c in choices] == ["banana", "blueberry"]
    with pytest.raises(CommandMismatch, match="autocomplete"):
        await fake.autocomplete("alice", "games", "probe", "typed", focused="n", n=1)


async def test_options_are_checked_against_the_sync(fake: FakeDiscord) -> None:
    with pytest.raises(CommandMismatch, match="max_value"):
        await fake.slash("alice", "games", "probe", "typed", n=9)
    with pytest.raises(CommandMismatch, match="no option 'nn'"):
        await fake.slash("alice", "games", "probe", "typed", n=1, nn=2)
    with pytest.raises(CommandMismatch, match="missing required"):
        await fake.slash("alice", "games", "probe", "typed")
    with pytest.raises(CommandMismatch, match="no subcommand 'nope'"):
        await fake.slash("alice", "games", "probe", "nope")
    with pytest.raises(CommandMismatch, match="never synced"):
        await fake.slash("alice", "games", "torres", "new")


async def test_typed_options_resolved_members_and_permissions(fake: FakeDiscord) -> None:
    ix = await fake.slash("dana", "games", "probe", "typed", n=3, flag=True, who="bob")
    assert (await ix.reply()).content == "n=3 flag=True who=bob color=red manage=True"
    ix = await fake.slash("alice", "games", "probe", "typed", n=1)
    assert (await ix.reply()).content == "n=1 flag=False who=- color=red manage=False"


async def test_channel_post_mentions_and_history(fake: FakeDiscord) -> None:
    alice = fake.users["alice"]
    ix = await fake.slash("alice", "general", "probe", "post")
    msg = await fake.wait_for_message(lambda m: "edited" in m.content, after=ix, channel="general")
    assert msg.kind == "channel" and msg.pinged_ids == [alice.id] and msg.history
    assert png_size(msg.attachments[0].data) == (5, 5)
    ix = await fake.slash("alice", "general", "probe", "post", quiet=True)
    quiet = await fake.wait_for_message(
        lambda m: "edited" in m.content, after=ix, channel="general"
    )
    assert quiet.mentioned_ids == [alice.id] and quiet.pinged_ids == []
    async with aiohttp.ClientSession() as s:
        url = f"{fake.api_base}/channels/{fake.channels['general'].id}/messages?limit=2"
        async with s.get(url, headers={"Authorization": "Bot x"}) as r:
            history = await r.json()
        att = msg.attachments[0]
        async with s.get(
            f"{fake.base_url}/attachments/{msg.channel_id}/{att.id}/{att.filename}"
        ) as r:
            assert await r.read() == att.data
    assert [m["id"] for m in history] == [str(quiet.id), str(msg.id)]
    assert not fake.take_errors()


async def test_discord_refusals_are_answered_and_recorded(fake: FakeDiscord) -> None:
    ix = await fake.slash("alice", "games", "probe", "twice")
    refused = await ix.wait(lambda m: "refused" in m.content)
    assert refused.content == "second callback refused: 40060"
    assert codes(fake.take_errors()) == [40060]
    ix = await fake.slash("alice", "games", "probe", "empty")
    await fake.wait_until(lambda: fake.errors, 10, "the empty message to be refused")
    assert codes(fake.take_errors()) == [50006] and ix.callback_type is None


async def test_late_callback_is_unknown_interaction(fake: FakeDiscord) -> None:
    ix = await fake.slash("alice", "games", "probe", "slow")
    await fake.wait_until(lambda: fake.errors, 10, "the late callback")
    [err] = fake.take_errors()
    assert err["code"] == 10062 and "answered after" in err["message"]
    assert ix.callback_type is None
    with pytest.raises(ProtocolTimeout, match="callback"):
        await ix.response(timeout=0.2)


async def test_unknown_route_is_recorded(fake: FakeDiscord) -> None:
    async with (
        aiohttp.ClientSession() as s,
        s.get(fake.api_base + "/nowhere", headers={"Authorization": "Bot x"}) as r,
    ):
        assert r.status == 404 and r.headers["Content-Type"] == "application/json"
    [err] = fake.take_errors()
    assert "not faked" in err["message"]


async def test_persistent_button_survives_sigkill_restart(h: Harness, fake: FakeDiscord) -> None:
    ix = await fake.slash("bob", "games", "probe", "buttons")
    msg = await ix.reply()
    before = fake.identify_count
    await h.restart(kill=True)
    await fake.wait_until(
        lambda: fake.identify_count > before and fake.connected, 30, "the bot to reconnect"
    )
    click = await fake.click("alice", msg, "probe:count:0")
    await click.reply()
    assert msg.content == "count 1"
    assert not fake.take_errors()


async def test_muted_channel_refuses_posts(fake: FakeDiscord) -> None:
    fake.muted_channels.add(fake.channels["general"].id)
    try:
        ix = await fake.slash("carol", "general", "probe", "post")
        await ix.reply()
        await fake.wait_until(lambda: fake.errors, 10, "the refused channel post")
        [err] = fake.take_errors()
        assert err["code"] == 50013 and err["status"] == 403
        assert not [m for m in fake.channel_messages("general") if m.seq > ix.sent_seq]
    finally:
        fake.muted_channels.clear()


async def test_transcript_reads_like_the_conversation(fake: FakeDiscord) -> None:
    ix = await fake.slash("bob", "games", "probe", "secret", text="tx")
    await ix.reply()
    text = fake.transcript()
    assert "> command /probe secret text:'tx' by bob in #games  [callback 4," in text
    assert "< #games callback to bob only\n      only you: tx" in text


async def test_threads_are_channels_too(fake: FakeDiscord) -> None:
    side = fake.channels["side"]
    assert side.is_thread and side.parent_id == fake.channels["games"].id
    ix = await fake.slash("alice", "side", "probe", "post")
    msg = await fake.wait_for_message(lambda m: "edited" in m.content, after=ix, channel="side")
    assert msg.content.endswith("in Thread") and msg.channel_id == side.id
    assert msg not in fake.channel_messages("games")
    assert not fake.take_errors()


async def test_gateway_reconnects_by_resume_or_fresh_identify(fake: FakeDiscord) -> None:
    assert fake.heartbeats >= 1
    assert {
        "v": "10",
        "encoding": "json",
        "compress": "zlib-stream",
    }.items() <= fake.gateway_queries[0].items()
    resumes = fake.resume_count
    await fake.reconnect_gateway()
    await fake.wait_until(lambda: fake.resume_count > resumes and fake.connected, 30, "a RESUME")
    ix = await fake.slash("alice", "games", "probe", "echo", text="after resume")
    assert (await ix.reply()).content == "after resume"
    identifies = fake.identify_count
    try:
        await fake.reconnect_gateway(resume=False)
        await fake.wait_until(
            lambda: fake.identify_count > identifies and fake.connected, 30, "a new IDENTIFY"
        )
    finally:
        fake.allow_resume = True
    ix = await fake.slash("alice", "games", "probe", "echo", text="after identify")
    assert (await ix.reply()).content == "after identify"
    assert not fake.take_errors()


async def test_held_channel_posts_wait_then_pass_or_drop(fake: FakeDiscord) -> None:
    fake.hold_channel_posts()
    ix = await fake.slash("alice", "general", "probe", "post", quiet=True)
    await fake.wait_until(lambda: fake.held_posts >= 1, 10, "the held post")
    assert not [m for m in fake.channel_messages("general") if m.seq > ix.sent_seq]
    fake.release_channel_posts(drop=False)
    await fake.wait_for_message(lambda m: "edited" in m.content, after=ix, channel="general")
    fake.hold_channel_posts()
    held = fake.held_posts
    ix = await fake.slash("alice", "general", "probe", "post", quiet=True)
    await fake.wait_until(lambda: fake.held_posts > held, 10, "the second held post")
    fake.release_channel_posts(drop=True)
    await fake.wait_until(lambda: fake.errors, 10, "the dropped post")
    assert [e["status"] for e in fake.take_errors()] == [503]
    assert not [m for m in fake.channel_messages("general") if m.seq > ix.sent_seq]


@pytest.mark.parametrize("announce", [True, False])
async def test_threads_created_later(fake: FakeDiscord, announce: bool) -> None:
    thread = await fake.create_thread(f"late-{announce}", "general", announce=announce)
    ix = await fake.slash("bob", thread, "probe", "post", quiet=True)
    msg = await fake.wait_for_message(lambda m: "edited" in m.content, after=ix, channel=thread)
    assert msg.content.endswith("in Thread") and msg.channel_id == thread.id
    assert not fake.take_errors()


async def test_enforce_nonce_makes_channel_posts_idempotent(fake: FakeDiscord) -> None:
    ix = await fake.slash("carol", "general", "probe", "idempotent", nonce="turn-7")
    assert (await ix.reply()).content == "same=True"
    posts = [m for m in fake.channel_messages("general") if m.seq > ix.sent_seq]
    assert [m.content for m in posts] == ["only once"] and posts[0].nonce == "turn-7"
    ix = await fake.slash("carol", "general", "probe", "idempotent", nonce="x" * 26)
    await fake.wait_until(lambda: fake.errors, 10, "the refused nonce")
    assert "nonce" in fake.take_errors()[0]["message"]


async def test_modal_callback_is_recorded(fake: FakeDiscord) -> None:
    ix = await fake.slash("dana", "games", "probe", "ask")
    await ix.response()
    assert ix.callback_type == 9 and ix.modal is not None
    assert ix.modal["title"] == "A question" and ix.messages == []
    assert not fake.take_errors()


async def test_thread_from_a_message_members_archive_and_a_v2_card(fake: FakeDiscord) -> None:
    ix = await fake.slash("alice", "games", "probe", "thread", name="Game 1")
    report = await ix.wait(lambda m: m.content.startswith("thread"))
    starter = ix.original
    assert starter is not None
    room = fake.thread_of(starter)
    assert room is not None and room.id == starter.id and room.parent_id == starter.channel_id
    assert room.name == "Game 1" and room.thread_type == 11
    assert room.members == {fake.bot_user.id, fake.users["alice"].id}
    assert report.content == f"thread {room.id} members=2 archived_edit=50083"
    assert [e["code"] for e in fake.take_errors()] == [50083]
    (card,) = fake.channel_messages(room)
    assert card.v2 and card.content == "" and card.accent_colors == [0x3366CC]
    assert card.text_displays == ["edited"] and card.edits == 1
    assert card.pinged_ids == [fake.users["alice"].id]
    assert card.gallery[0]["media"]["url"] == "attachment://board.png"
    assert card.gallery[0]["description"] == "the board, in words"
    assert png_size(card.attachments[0].data) == (4, 4)
    assert card not in fake.channel_messages("games") and fake.thread_unarchives == 1
    # the Counter answers with `content`, which a V2 message cannot take: refused as Discord does
    click = await fake.click("alice", card, "probe:count:0")
    assert click.channel is room
    await fake.wait_until(lambda: fake.errors, 10, "the refused edit")
    assert (
        "content cannot be used with the IS_COMPONENTS_V2 flag" in fake.take_errors()[0]["message"]
    )
    # the same message cannot start a second thread; a thread cannot hold one
    async with aiohttp.ClientSession(headers={"Authorization": "Bot x"}) as s:
        url = f"{fake.api_base}/channels/{starter.channel_id}/messages/{starter.id}/threads"
        async with s.post(url, json={"name": "again"}) as r:
            assert (r.status, (await r.json())["code"]) == (400, 160004)
        async with s.post(f"{fake.api_base}/channels/{room.id}/threads", json={"name": "x"}) as r:
            assert (await r.json())["code"] == 50024
    assert codes(fake.take_errors()) == [160004, 50024]


async def test_thread_permissions_and_lone_threads(fake: FakeDiscord) -> None:
    from tests.fakediscord._model import CREATE_PUBLIC_THREADS

    ix = await fake.slash("bob", "general", "probe", "lone", name="side talk")
    done = await ix.wait(lambda m: m.content.startswith("lone"))
    room = fake.threads("general")[-1]
    assert done.content == f"lone {room.id} public_thread" and room.starter_message_id is None
    assert [m.content for m in fake.channel_messages(room)] == ["hello thread"]
    fake.deny_bot("general", CREATE_PUBLIC_THREADS)
    try:
        ix = await fake.slash("bob", "general", "probe", "lone", name="refused")
        refused = await ix.wait(lambda m: m.content.startswith("no thread"))
        assert refused.content == "no thread: 403 50013"
        assert [e["code"] for e in fake.take_errors()] == [50013]
        assert not fake.bot_permissions(fake.channels["general"]) & CREATE_PUBLIC_THREADS
    finally:
        fake.bot_denied.clear()
    await fake.archive_thread(room)
    ix = await fake.slash("bob", room, "probe", "post", quiet=True)
    await fake.wait_for_message(lambda m: "edited" in m.content, after=ix, channel=room)
    assert not room.archived  # a post brings an archived thread back
    await fake.delete_thread(room)
    assert fake.channel_messages(room) == []
    assert not fake.take_errors()


async def test_v2_card_reply(fake: FakeDiscord) -> None:
    ix = await fake.slash("carol", "games", "probe", "card")
    msg = (await ix.response()).original
    assert msg is not None and msg.v2 and msg.text_displays == ["a section"]
    assert msg.accent_colors == [0xAA0000] and [b.label for b in msg.buttons] == ["go"]
    assert not fake.take_errors()
