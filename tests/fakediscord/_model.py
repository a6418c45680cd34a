"""Plain data kept by the fake Discord, and the JSON shapes discord.py 2.7 parses.

Every builder returns a *complete* payload: a missing key raises inside
discord.py's parser and silently ends the client (DISCORD-TESTING.md).
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1420070400000
_counter = itertools.count(1)
_last_id = 0

# Permission bits (https://discord.com/developers/docs/topics/permissions).
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
ADD_REACTIONS = 1 << 6
MANAGE_CHANNELS = 1 << 4
USE_APPLICATION_COMMANDS = 1 << 31
SEND_MESSAGES_IN_THREADS = 1 << 38
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
MANAGE_THREADS = 1 << 34

EVERYONE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | SEND_MESSAGES_IN_THREADS
    | CREATE_PUBLIC_THREADS
)
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | MENTION_EVERYONE

EPHEMERAL = 1 << 6
LOADING = 1 << 7

MENTION_RE = re.compile(r"<@!?(\d+)>")


def snowflake() -> int:
    """A fresh, strictly increasing snowflake whose timestamp is now."""
    global _last_id
    ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
    value = (ms << 22) | (next(_counter) & 0x3FFFFF)
    if value <= _last_id:
        value = _last_id + 1
    _last_id = value
    return value


def iso_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000000+00:00"


@dataclass(eq=False)
class FakeUser:
    """A Discord user; ``mention`` is what a bot writes to ping them."""

    id: int
    name: str
    bot: bool = False
    roles: list[int] = field(default_factory=list)
    # A display name of the user's own choosing (any text, as on Discord); default: Name.
    global_name: str | None = None
    # The language of the user's Discord client: ``interaction.locale`` of what they send.
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def display_name(self) -> str:
        """The ``global_name`` sent to the bot (what discord.py's ``display_name`` gives)."""
        return self.global_name if self.global_name is not None else self.name.capitalize()

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.display_name,
            "avatar": None,
            "banner": None,
            "accent_color": None,
            "public_flags": 0,
            "flags": 0,
            "bot": self.bot,
            "system": False,
            "avatar_decoration_data": None,
            "primary_guild": None,
            "collectibles": None,
        }

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} {self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    guild_id: int
    position: int = 0
    parent_id: int | None = None  # set for a thread (type 11 public, 12 private) in that channel
    owner_id: int = 0
    thread_type: int = 11
    archived: bool = False
    locked: bool = False
    deleted: bool = False
    members: set[int] = field(default_factory=set)  # user ids of a thread's members
    starter_message_id: int | None = None  # the message a thread was started from
    auto_archive_duration: int = 1440

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def is_thread(self) -> bool:
        return self.parent_id is not None

    def payload(self) -> dict[str, Any]:
        if self.parent_id is not None:
            return {
                "id": str(self.id),
                "type": self.thread_type,
                "guild_id": str(self.guild_id),
                "name": self.name,
                "parent_id": str(self.parent_id),
                "owner_id": str(self.owner_id),
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "message_count": 0,
                "member_count": len(self.members),
                "total_message_sent": 0,
                "flags": 0,
                "applied_tags": [],
                "thread_metadata": {
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": "2026-01-01T00:00:00.000000+00:00",
                    "locked": self.locked,
                    "invitable": True,
                    "create_timestamp": "2026-01-01T00:00:00.000000+00:00",
                },
            }
        return {
            "id": str(self.id),
            "type": 0,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "parent_id": None,
            "topic": None,
            "nsfw": False,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "permission_overwrites": [],
            "flags": 0,
            "default_auto_archive_duration": 1440,
            "default_thread_rate_limit_per_user": 0,
        }

    def __repr__(self) -> str:
        return f"<FakeChannel #{self.name} {self.id}>"


@dataclass(eq=False)
class Attachment:
    """A file the bot uploaded: ``data`` holds the exact bytes it sent."""

    id: int
    filename: str
    data: bytes
    content_type: str | None
    description: str | None = None

    def payload(self, base_url: str, channel_id: int) -> dict[str, Any]:
        url = f"{base_url}/attachments/{channel_id}/{self.id}/{self.filename}"
        out: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
            "ephemeral": False,
        }
        if self.description is not None:
            out["description"] = self.description
        return out


@dataclass(eq=False)
class Button:
    custom_id: str | None
    label: str | None
    style: int
    disabled: bool
    url: str | None
    emoji: Any


@dataclass(eq=False)
class FakeMessage:
    """A message as Discord would hold it, updated in place by edits.

    ``seq`` orders every message the fake ever created, so tests can ask for
    "the first message after this interaction was sent".
    """

    id: int
    seq: int
    channel_id: int
    guild_id: int
    author: FakeUser
    kind: str  # "callback", "followup" or "channel"
    content: str = ""
    flags: int = 0
    components: list[dict[str, Any]] = field(default_factory=list)
    embeds: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    mentioned_ids: list[int] = field(default_factory=list)
    pinged_ids: list[int] = field(default_factory=list)
    interaction: Any = None  # FakeInteraction that created it, if any
    viewer: FakeUser | None = None  # the only user who sees it (ephemeral)
    created_at: float = field(default_factory=time.monotonic)
    resolved_at: float | None = None  # when real content first arrived
    edited_at: float | None = None
    edits: int = 0
    deleted: bool = False
    nonce: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def buttons(self) -> list[Button]:
        out: list[Button] = []

        def walk(items: list[Any]) -> None:
            for c in items:
                if not isinstance(c, dict):
                    continue
                if c.get("type") == 2:
                    out.append(
                        Button(
                            custom_id=c.get("custom_id"),
                            label=c.get("label"),
                            style=c.get("style", 1),
                            disabled=bool(c.get("disabled", False)),
                            url=c.get("url"),
                            emoji=c.get("emoji"),
                        )
                    )
                sub = c.get("components")
                if isinstance(sub, list):
                    walk(sub)
                acc = c.get("accessory")
                if isinstance(acc, dict):
                    walk([acc])

        walk(self.components)
        return out

    @property
    def selects(self) -> list[dict[str, Any]]:
        """The select menus (component dicts as sent), in order."""
        out: list[dict[str, Any]] = []

        def walk(items: list[Any]) -> None:
            for c in items:
                if isinstance(c, dict):
                    if c.get("type") in (3, 5, 6, 7, 8):
                        out.append(c)
                    sub = c.get("components")
                    if isinstance(sub, list):
                        walk(sub)

        walk(self.components)
        return out

    def button(self, label: str) -> Button:
        """The button whose label contains ``label`` (case-insensitive)."""
        found = [b for b in self.buttons if b.label and label.lower() in b.label.lower()]
        if len(found) != 1:
            labels = [b.label for b in self.buttons]
            raise AssertionError(f"expected one button labelled {label!r}, message has {labels}")
        return found[0]

    def visible_to(self, user: FakeUser) -> bool:
        return not self.deleted and (self.viewer is None or self.viewer.id == user.id)

    def _walk(self) -> list[dict[str, Any]]:
        """Every component of the message, nested ones included, in reading order."""
        out: list[dict[str, Any]] = []

        def walk(items: list[Any]) -> None:
            for c in items:
                if isinstance(c, dict):
                    out.append(c)
                    for key in ("components", "accessory"):
                        sub = c.get(key)
                        walk(sub if isinstance(sub, list) else [sub] if sub else [])

        walk(self.components)
        return out

    @property
    def v2(self) -> bool:
        """Sent with IS_COMPONENTS_V2: a layout of components, no content."""
        return bool(self.flags & (1 << 15))

    @property
    def text_displays(self) -> list[str]:
        """The text of its Text Display components (Components V2), in order."""
        return [c.get("content", "") for c in self._walk() if c.get("type") == 10]

    @property
    def gallery(self) -> list[dict[str, Any]]:
        """The items of its Media Galleries: ``{"media": {"url"}, "description"}``."""
        return [i for c in self._walk() if c.get("type") == 12 for i in c.get("items", [])]

    @property
    def accent_colors(self) -> list[int | None]:
        """The accent colour of each Container, in order."""
        return [c.get("accent_color") for c in self._walk() if c.get("type") == 17]

    @property
    def text(self) -> str:
        """Content, Text Displays and embed titles/descriptions/fields, for matching."""
        displays = self.text_displays
        parts = [self.content, *displays] if self.content or not displays else displays
        for e in self.embeds:
            for key in ("title", "description"):
                if e.get(key):
                    parts.append(str(e[key]))
            for f in e.get("fields", []):
                parts.append(f"{f.get('name', '')}: {f.get('value', '')}")
            if e.get("footer", {}).get("text"):
                parts.append(e["footer"]["text"])
        return "\n".join(parts)

    def snapshot(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "flags": self.flags,
            "components": self.components,
            "embeds": self.embeds,
            "attachments": [a.filename for a in self.attachments],
        }

    def payload(self, base_url: str, app_id: int) -> dict[str, Any]:
        """The message object discord.py parses (REST replies, interaction ``message``)."""
        out: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "guild_id": str(self.guild_id),
            "type": 20
            if self.kind == "callback"
            and self.interaction is not None
            and self.interaction.type == 2
            else 0,
            "content": self.content,
            "author": self.author.payload(),
            "attachments": [a.payload(base_url, self.channel_id) for a in self.attachments],
            "embeds": self.embeds,
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": iso_now(),
            "edited_timestamp": iso_now() if self.edits else None,
            "flags": self.flags,
            "components": self.components,
            "reactions": [],
        }
        if self.nonce is not None:
            out["nonce"] = self.nonce
        if self.kind != "channel":
            out["webhook_id"] = str(app_id)
            out["application_id"] = str(app_id)
        return out

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        flags += " loading" if self.loading else ""
        files = f" files={[a.filename for a in self.attachments]}" if self.attachments else ""
        return f"<FakeMessage {self.id} {self.kind}{flags} {self.content[:80]!r}{files}>"


def parse_mentions(
    content: str, allowed: dict[str, Any] | None, members: dict[int, FakeUser]
) -> tuple[list[int], list[int]]:
    """(users written as <@id> in content, those Discord would actually ping)."""
    mentioned: list[int] = []
    for m in MENTION_RE.finditer(content or ""):
        uid = int(m.group(1))
        if uid in members and uid not in mentioned:
            mentioned.append(uid)
    if allowed is None:
        return mentioned, list(mentioned)
    parse = allowed.get("parse", [])
    if "users" in parse:
        return mentioned, list(mentioned)
    users = {int(u) for u in allowed.get("users", [])}
    return mentioned, [u for u in mentioned if u in users]
