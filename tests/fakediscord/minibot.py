"""A tiny discord.py bot that exercises every route the fake offers; run as a subprocess.

Used only by test_fake.py, to validate the fake independently of our real bot:
``python -m tests.fakediscord.minibot`` with DISCORD_API_BASE / DISCORD_GATEWAY_URL set.
"""

from __future__ import annotations

import asyncio
import io
import os
import struct
import zlib

import discord
import yarl
from discord import app_commands


def tiny_png(width: int = 3, height: int = 2) -> bytes:
    """A valid RGB PNG without Pillow, so the fake's test does not depend on the renderer."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


class Counter(discord.ui.DynamicItem[discord.ui.Button], template=r"probe:count:(?P<n>\d+)"):
    """A persistent button: survives a restart because its state is in the custom_id."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Count {n}", custom_id=f"probe:count:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(self.n + 1))
        view.add_item(Whisper())
        view.add_item(Later())
        await interaction.response.edit_message(content=f"count {self.n + 1}", view=view)


class Whisper(discord.ui.DynamicItem[discord.ui.Button], template=r"probe:whisper"):
    """Deferred update (type 6), then a private follow-up."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Whisper", custom_id="probe:whisper"))

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.followup.send(f"psst {interaction.user.name}", ephemeral=True)


class Later(discord.ui.DynamicItem[discord.ui.Button], template=r"probe:later"):
    """Deferred update (type 6), then the message itself edited (a slow answer)."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Later", custom_id="probe:later"))

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content=f"later for {interaction.user.name}")


class MiniBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(
            intents=discord.Intents.default(),
            chunk_guilds_at_startup=False,
            guild_ready_timeout=0.1,
        )
        self.tree = app_commands.CommandTree(self)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Counter, Whisper, Later)
        self.tree.add_command(probe)
        await self.tree.sync()

    async def on_ready(self) -> None:
        print("MINIBOT READY", self.user, flush=True)


probe = app_commands.Group(name="probe", description="Probe the fake")
WORDS = ["apple", "apricot", "banana", "blueberry", "cherry"]


@probe.command(description="Echo text publicly")
async def echo(interaction: discord.Interaction, text: str) -> None:
    await interaction.response.send_message(text)


@probe.command(description="Reply privately")
async def secret(interaction: discord.Interaction, text: str) -> None:
    await interaction.response.send_message(f"only you: {text}", ephemeral=True)


@probe.command(description="Defer, then send a picture")
async def picture(interaction: discord.Interaction) -> None:
    await interaction.response.defer(thinking=True)
    await asyncio.sleep(0.05)
    await interaction.followup.send("here", file=discord.File(io.BytesIO(tiny_png()), "board.png"))
    await interaction.followup.send("and a second, private", ephemeral=True)


@probe.command(description="Public defer, then an 'ephemeral' first follow-up")
async def leak(interaction: discord.Interaction) -> None:
    await interaction.response.defer()
    await interaction.followup.send("meant to be private", ephemeral=True)


@probe.command(description="Private defer resolved by editing the original")
async def privedit(interaction: discord.Interaction) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    await interaction.edit_original_response(content="resolved privately")


@probe.command(description="Send a message with buttons")
async def buttons(interaction: discord.Interaction) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(Counter(0))
    view.add_item(Whisper())
    await interaction.response.send_message("count 0", view=view)


@probe.command(description="Reply, edit, read back, then delete a follow-up")
async def edit(interaction: discord.Interaction) -> None:
    await interaction.response.send_message(
        "first", file=discord.File(io.BytesIO(tiny_png()), "a.png")
    )
    await interaction.edit_original_response(content="second")
    msg = await interaction.original_response()
    extra = await interaction.followup.send(
        f"read back: {msg.content} {len(msg.attachments)}", wait=True
    )
    await extra.delete()
    await interaction.followup.send("after delete")


@probe.command(description="Post in the channel outside the interaction")
async def post(interaction: discord.Interaction, quiet: bool = False) -> None:
    await interaction.response.send_message("posting", ephemeral=True)
    mentions = discord.AllowedMentions.none() if quiet else discord.AllowedMentions(users=True)
    ch = interaction.channel
    assert isinstance(ch, discord.TextChannel | discord.Thread), type(ch)
    msg = await ch.send(
        f"{interaction.user.mention} look",
        file=discord.File(io.BytesIO(tiny_png(5, 5)), "p.png"),
        allowed_mentions=mentions,
    )
    await msg.edit(content=f"{interaction.user.mention} look (edited) in {type(ch).__name__}")


@probe.command(description="Post twice with one nonce (Discord keeps one message)")
async def idempotent(interaction: discord.Interaction, nonce: str) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    ch = interaction.channel
    assert isinstance(ch, discord.TextChannel | discord.Thread), type(ch)
    first = await ch.send("only once", nonce=nonce)
    second = await ch.send("only once", nonce=nonce)
    await interaction.followup.send(f"same={first.id == second.id}", ephemeral=True)


class Ask(discord.ui.Modal, title="A question"):
    answer = discord.ui.TextInput(label="Your answer")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"you said {self.answer.value}", ephemeral=True)


@probe.command(description="Open a modal")
async def ask(interaction: discord.Interaction) -> None:
    await interaction.response.send_modal(Ask())


@probe.command(description="Typed options")
@app_commands.describe(n="how many", flag="a switch", who="someone")
async def typed(
    interaction: discord.Interaction,
    n: app_commands.Range[int, 1, 5],
    flag: bool = False,
    who: discord.Member | None = None,
    color: str = "red",
) -> None:
    name = who.name if who else "-"
    perms = interaction.permissions.manage_channels
    await interaction.response.send_message(
        f"n={n} flag={flag} who={name} color={color} manage={perms}"
    )


@typed.autocomplete("color")
async def _color_auto(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=w, value=w) for w in WORDS if w.startswith(current)][:25]


@probe.command(description="Which languages discord.py saw")
async def locale(interaction: discord.Interaction) -> None:
    guild = interaction.guild
    cached = guild.preferred_locale.value if guild is not None else None
    await interaction.response.send_message(
        f"locale={interaction.locale.value} guild_locale={interaction.guild_locale} "
        f"preferred_locale={cached}",
        ephemeral=True,
    )


@probe.command(description="Too slow: answers after the 3 s deadline")
async def slow(interaction: discord.Interaction) -> None:
    await asyncio.sleep(3.3)
    try:
        await interaction.response.send_message("late")
    except discord.NotFound as e:
        print("MINIBOT late reply rejected:", e, flush=True)


@probe.command(description="Answer twice (second is an error)")
async def twice(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("once")
    try:
        await interaction.response.send_message("twice")
    except discord.InteractionResponded:
        # discord.py guards locally; go around it to hit the fake's check.
        from discord.webhook.async_ import async_context, interaction_response_params

        try:
            await async_context.get().create_interaction_response(
                interaction.id,
                interaction.token,
                session=interaction._session,
                params=interaction_response_params(4, {"content": "twice"}),
            )
        except discord.HTTPException as e:
            await interaction.followup.send(f"second callback refused: {e.code}")


@probe.command(description="An empty message (Discord refuses)")
async def empty(interaction: discord.Interaction) -> None:
    try:
        await interaction.response.send_message("")
    except discord.HTTPException as e:
        print("MINIBOT empty refused:", e.code, flush=True)


@probe.command(description="Start a thread from a post, add the user, post a V2 card there")
async def thread(interaction: discord.Interaction, name: str) -> None:
    await interaction.response.send_message(f"card for {name}")
    card = await interaction.original_response()
    ch = interaction.channel
    assert isinstance(ch, discord.TextChannel), type(ch)
    try:
        room = await card.create_thread(name=name, auto_archive_duration=1440)
    except discord.HTTPException as e:
        await interaction.followup.send(f"no thread: {e.status} {e.code}", ephemeral=True)
        return
    await room.add_user(interaction.user)
    view = discord.ui.LayoutView(timeout=None)
    box = discord.ui.Container(accent_colour=discord.Colour(0x3366CC))
    box.add_item(discord.ui.TextDisplay(f"{interaction.user.mention} to move"))
    box.add_item(discord.ui.Separator())
    gallery = discord.ui.MediaGallery()
    gallery.add_item(media="attachment://board.png", description="the board, in words")
    box.add_item(gallery)
    row: discord.ui.ActionRow = discord.ui.ActionRow()
    row.add_item(Counter(0))
    box.add_item(row)
    view.add_item(box)
    png = discord.File(io.BytesIO(tiny_png(4, 4)), "board.png")
    msg = await room.send(view=view, file=png, allowed_mentions=discord.AllowedMentions(users=True))
    members = [m.id for m in await room.fetch_members()]
    await room.edit(archived=True)
    try:
        await msg.edit(view=view)
        archived_edit = "allowed"
    except discord.HTTPException as e:
        archived_edit = str(e.code)
    await room.edit(archived=False)
    view.children[0].children[0].content = "edited"  # type: ignore[attr-defined]
    await msg.edit(view=view)
    await interaction.followup.send(
        f"thread {room.id} members={len(members)} archived_edit={archived_edit}", ephemeral=True
    )


@probe.command(description="Start a public thread without a message")
async def lone(interaction: discord.Interaction, name: str) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    ch = interaction.channel
    assert isinstance(ch, discord.TextChannel), type(ch)
    try:
        room = await ch.create_thread(name=name, type=discord.ChannelType.public_thread)
        await room.send("hello thread")
        await interaction.followup.send(f"lone {room.id} {room.type}", ephemeral=True)
    except discord.HTTPException as e:
        await interaction.followup.send(f"no thread: {e.status} {e.code}", ephemeral=True)


@probe.command(description="Reply with a Components V2 card")
async def card(interaction: discord.Interaction) -> None:
    view = discord.ui.LayoutView(timeout=None)
    section = discord.ui.Section(
        discord.ui.TextDisplay("a section"), accessory=discord.ui.Button(label="go", custom_id="s")
    )
    view.add_item(discord.ui.Container(section, accent_colour=0xAA0000))
    await interaction.response.send_message(view=view)


def main() -> None:
    base = os.environ.get("DISCORD_API_BASE")
    if base:
        discord.http.Route.BASE = base
    gw = os.environ.get("DISCORD_GATEWAY_URL")
    if gw:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gw)
    MiniBot().run(os.environ["DISCORD_TOKEN"])


if __name__ == "__main__":
    main()
