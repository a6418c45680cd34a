"""A fake Discord (REST v10 + JSON gateway) on loopback for an unmodified discord.py 2.7 client.

The bot runs as a separate process pointed here through ``DISCORD_API_BASE`` and
``DISCORD_GATEWAY_URL`` (see ``FakeDiscord.env()``); the test drives users
through ``slash``/``click``/``autocomplete`` and reads back what the bot sent.
Everything the bot sends is recorded; anything Discord would reject is answered
with Discord's error *and* appended to ``errors`` so tests can assert none occurred.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import WSMsgType, web

from ._model import (
    BOT_PERMISSIONS,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    EPHEMERAL,
    EVERYONE_PERMISSIONS,
    LOADING,
    MANAGE_CHANNELS,
    MANAGE_THREADS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    Attachment,
    FakeChannel,
    FakeMessage,
    FakeRole,
    FakeUser,
    iso_now,
    parse_mentions,
    snowflake,
)
from ._validate import (
    IS_COMPONENTS_V2,
    LOCALES,
    FormError,
    check_autocomplete,
    check_commands,
    check_message,
    check_modal,
    media_urls,
)

log = logging.getLogger("fakediscord")

T = TypeVar("T")

# Message flags a bot may set when sending: SUPPRESS_EMBEDS, EPHEMERAL,
# SUPPRESS_NOTIFICATIONS, IS_VOICE_MESSAGE, IS_COMPONENTS_V2.
SETTABLE_FLAGS = (1 << 2) | EPHEMERAL | (1 << 12) | (1 << 13) | (1 << 15)
GUILD_MESSAGES_INTENT = 1 << 9
GUILD_MEMBERS_INTENT = 1 << 1


class CommandMismatch(AssertionError):
    """The test invoked a command or option the bot never synced (Discord would not offer it)."""


class ProtocolTimeout(AssertionError):
    """The bot did not do what was awaited within the timeout."""


try:  # the bot's discord.py uses orjson too when it is installed (a dependency of the bot)
    import orjson
except ImportError:  # pragma: no cover - plain json does the same, slower
    orjson = None  # type: ignore[assignment]


def _dumps(data: Any) -> bytes:
    """JSON bytes: orjson's when it can (~5x faster; the load benchmark sends many),
    else json's (e.g. integers beyond 64 bits)."""
    if orjson is not None:
        try:
            return orjson.dumps(data)
        except TypeError:
            pass
    return json.dumps(data).encode()


def _loads(raw: str | bytes) -> Any:
    if orjson is not None:
        try:
            return orjson.loads(raw)
        except ValueError:
            pass
    return json.loads(raw)


def _json(data: Any, status: int = 200) -> web.Response:
    # Exactly "application/json": discord.py compares the header verbatim and
    # treats anything else (e.g. "; charset=utf-8") as text.
    return web.Response(
        body=_dumps(data), status=status, headers={"Content-Type": "application/json"}
    )


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 12]}…({len(text)} chars)"


def _multipart(ctype: str, raw: bytes) -> list[tuple[str, dict[str, str], bytes]]:
    """(field name, lower-cased headers, exact bytes) of each part of a multipart/form-data body.

    Parsed by hand so that file bytes are kept exactly as sent.
    """
    params = dict(p.strip().split("=", 1) for p in ctype.split(";")[1:] if "=" in p)
    boundary = params.get("boundary", "").strip('"')
    if not boundary:
        raise FormError("", "multipart body without a boundary")
    out = []
    for section in raw.split(b"--" + boundary.encode())[1:]:
        if section.startswith(b"--"):
            break
        section = section.removeprefix(b"\r\n")
        head, sep, data = section.partition(b"\r\n\r\n")
        if not sep:
            raise FormError("", "malformed multipart part")
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        name = _disposition(headers).get("name", "")
        out.append((name, headers, data.removesuffix(b"\r\n")))
    return out


def _disposition(headers: dict[str, str]) -> dict[str, str]:
    """The parameters of a Content-Disposition header (name, filename)."""
    out = {}
    for item in headers.get("content-disposition", "").split(";")[1:]:
        key, _, value = item.strip().partition("=")
        out[key.strip()] = value.strip().strip('"')
    return out


def _mention_text(body: dict[str, Any]) -> str:
    """Where Discord looks for mentions: the content and every Text Display."""
    parts = [body.get("content") or ""]

    def walk(items: Any) -> None:
        for c in items if isinstance(items, list) else []:
            if isinstance(c, dict):
                if c.get("type") == 10:
                    parts.append(str(c.get("content") or ""))
                walk(c.get("components"))

    walk(body.get("components"))
    return "\n".join(parts)


def _check_media_refs(msg: FakeMessage, path: str) -> None:
    """Every ``attachment://name`` a V2 message shows must be one of its files."""
    names = {a.filename for a in msg.attachments}
    for where, url in media_urls(msg.components):
        if url.startswith("attachment://") and url[len("attachment://") :] not in names:
            raise FormError(f"{path}{where}", f"{url} is not an attachment of this message")


def _no_content() -> web.Response:
    return web.Response(status=204)


@dataclass
class Fault:
    """Discord failing on purpose: the next ``count`` requests to ``route`` get ``status``.

    ``route`` is ``"channel_post"`` (POST /channels/{id}/messages) or ``"followup"``
    (POST /webhooks/{app}/{token}). A 429 carries ``retry_after`` and, with ``via``,
    the ``Via`` header that tells discord.py the answer came from Discord (it then
    waits and retries by itself, up to 5 tries); without it discord.py gives up at
    once, as it does for a Cloudflare ban. 500/502/504 are retried by discord.py
    (sleeping 1, 3, 5 ... seconds); 503 is raised at once.
    """

    route: str
    status: int
    count: int | None = 1  # None: until clear_faults()
    via: bool = False
    retry_after: float = 0.1
    served: int = 0

    def response(self) -> web.Response:
        if self.status == 429:
            body = {"message": "You are being rate limited.", "retry_after": self.retry_after}
            body |= {"global": False, "code": 0}
            headers = {
                "Content-Type": "application/json",
                "Retry-After": str(max(1, round(self.retry_after))),
                "X-RateLimit-Scope": "user",
            }
            if self.via:
                headers["Via"] = "1.1 google"
            return web.Response(body=_dumps(body), status=429, headers=headers)
        return _json({"message": f"{self.status}: injected failure", "code": 0}, self.status)


@dataclass(eq=False)
class FakeInteraction:
    """One interaction the test created, and everything the bot answered to it."""

    fake: FakeDiscord
    id: int
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete, 5 modal submit
    user: FakeUser
    channel: FakeChannel
    data: dict[str, Any]
    message: FakeMessage | None  # the message whose component was used
    sent_at: float
    sent_seq: int
    callback_type: int | None = None
    callback_data: dict[str, Any] | None = None
    callback_at: float | None = None
    original: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None

    @property
    def messages(self) -> list[FakeMessage]:
        """Original response (if any) then follow-ups, excluding deleted ones."""
        out = [self.original] if self.original is not None else []
        out += self.followups
        return [m for m in out if not m.deleted]

    @property
    def callback_latency(self) -> float | None:
        return None if self.callback_at is None else self.callback_at - self.sent_at

    async def response(self, timeout: float = 10.0) -> FakeInteraction:
        """Wait for the interaction callback (any type); returns self."""
        await self.fake.wait_until(
            lambda: self if self.callback_type is not None else None,
            timeout,
            f"the bot's callback to {self.describe()}",
        )
        return self

    async def reply(self, timeout: float = 15.0) -> FakeMessage:
        """The first message carrying real content: the original once resolved, else a follow-up.

        For a button answered with type 7 this is the updated message itself; with
        type 6 (deferred update), the message once the bot has edited it since.
        """

        def found() -> FakeMessage | None:
            if self._updated():
                return self.message
            for m in self.messages:
                if not m.loading:
                    return m
            return None

        return await self.fake.wait_until(found, timeout, f"a reply to {self.describe()}")

    async def wait(
        self,
        predicate: Callable[[FakeMessage], bool] = lambda m: True,
        timeout: float = 15.0,
        what: str = "",
    ) -> FakeMessage:
        """First message of this interaction (non-loading, current state) matching ``predicate``."""

        def found() -> FakeMessage | None:
            candidates = list(self.messages)
            if self._updated() and self.message is not None:
                candidates.insert(0, self.message)
            for m in candidates:
                if not m.loading and predicate(m):
                    return m
            return None

        return await self.fake.wait_until(
            found, timeout, what or f"a matching reply to {self.describe()}"
        )

    def _updated(self) -> bool:
        """Whether the button's message carries the bot's answer: updated with the
        callback (type 7), or edited after a deferred update (type 6)."""
        if self.message is None:
            return False
        if self.callback_type == 7:
            return True
        edited = self.message.edited_at
        return (
            self.callback_type == 6
            and self.callback_at is not None
            and edited is not None
            and edited >= self.callback_at
        )

    def describe(self) -> str:
        if self.type in (2, 4):
            path = [self.data.get("name", "?")]
            opts = self.data.get("options", [])
            while opts and opts[0].get("type") in (1, 2):
                path.append(opts[0]["name"])
                opts = opts[0].get("options", [])
            args = " ".join(f"{o['name']}:{_short(o.get('value'))}" for o in opts)
            kind = "autocomplete" if self.type == 4 else "command"
            return f"{kind} /{' '.join(path)} {args} by {self.user.name} in #{self.channel.name}"
        if self.type == 3:
            return f"button {self.data.get('custom_id')!r} pressed by {self.user.name}"
        return f"interaction type {self.type} by {self.user.name}"

    def __repr__(self) -> str:
        return f"<FakeInteraction {self.describe()} callback={self.callback_type}>"


@dataclass(eq=False)
class _Conn:
    ws: web.WebSocketResponse
    query: dict[str, str]
    seq: int = 0
    identified: bool = False
    intents: int = 0
    session_id: str = field(default_factory=lambda: secrets.token_hex(16))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    shard: int = 0


def _locale(locale: str) -> str:
    if locale not in LOCALES:
        raise ValueError(f"{locale!r} is not a Discord locale (one of {sorted(LOCALES)})")
    return locale


class FakeDiscord:
    """The fake: one guild, a few text channels, human members, one bot application.

    >>> fake = FakeDiscord(); await fake.start()
    >>> env = fake.env()     # DISCORD_API_BASE / DISCORD_GATEWAY_URL for the bot process
    >>> ix = await fake.slash("alice", "games", "torres", "new", players=2)
    >>> msg = await ix.reply()
    """

    def __init__(
        self,
        *,
        members: Iterable[str] = ("alice", "bob", "carol", "dana"),
        moderators: Iterable[str] = ("dana",),
        channels: Iterable[str] = ("general", "games"),
        threads: dict[str, str] | None = None,
        interaction_deadline: float = 3.0,
        token: str | None = None,
        guilds: int = 1,
        shards: int = 1,
        locales: dict[str, str] | None = None,
        guild_locale: str = "en-US",
    ) -> None:
        """``guilds`` > 1 adds guilds whose channels are the same names + ``-g2``,
        ``-g3``…; guild *k* (from 0) lands on shard ``k % shards``, as Discord
        routes it: ``(guild_id >> 22) % shards``. With ``shards`` > 1 the bot must
        identify with ``shard: [id, count]`` per connection, and each connection
        gets the guilds (and their events) of its shard only.

        ``locales`` gives members the language of their Discord client (member
        name -> a Discord locale such as ``"de"`` or ``"nl"``; default ``"en-US"``),
        sent as ``locale`` with each of their interactions; ``guild_locale`` is every
        guild's ``preferred_locale`` (``guild_locale`` of interactions). Both can be
        changed later with :meth:`set_locale` and :meth:`set_guild_locale`."""
        self.app_id = snowflake()
        self.bot_user = FakeUser(self.app_id, "torres-bot", bot=True)
        self.shard_count = shards
        self.guild_ids: list[int] = []
        for k in range(guilds):
            gid = snowflake()
            while (gid >> 22) % shards != k % shards:
                gid += 1 << 22
            self.guild_ids.append(gid)
        self.guild_id = self.guild_ids[0]
        self.guild_locales: dict[int, str] = {g: _locale(guild_locale) for g in self.guild_ids}
        self._guild_updates: list[asyncio.Task[None]] = []  # GUILD_UPDATEs not yet sent
        self.token = token
        self.interaction_deadline = interaction_deadline
        self.everyone_role = FakeRole(self.guild_id, "@everyone", EVERYONE_PERMISSIONS, 0)
        self.mod_role = FakeRole(
            snowflake(), "Moderator", EVERYONE_PERMISSIONS | MANAGE_CHANNELS, 1
        )
        self.bot_role = FakeRole(snowflake(), "torres-bot", BOT_PERMISSIONS, 2)
        self.bot_user.roles = [self.bot_role.id]
        mods = set(moderators)
        self.users: dict[str, FakeUser] = {}
        for name in members:
            u = FakeUser(snowflake(), name, locale=_locale((locales or {}).get(name, "en-US")))
            if name in mods:
                u.roles.append(self.mod_role.id)
            self.users[name] = u
        self.channels: dict[str, FakeChannel] = {}
        for i, name in enumerate(channels):
            self.channels[name] = FakeChannel(snowflake(), name, self.guild_id, i)
        for k, gid in enumerate(self.guild_ids[1:], start=2):
            for i, name in enumerate(channels):
                self.channels[f"{name}-g{k}"] = FakeChannel(snowflake(), f"{name}-g{k}", gid, i)
        # Public threads, by name -> parent channel name; in `channels` too, for slash().
        for name, parent in (threads or {}).items():
            self.channels[name] = FakeChannel(
                snowflake(),
                name,
                self.guild_id,
                parent_id=self.channels[parent].id,
                owner_id=self.bot_user.id,
            )
        owner = next((self.users[n] for n in self.users if n in mods), None)
        self.owner_id = owner.id if owner else None

        self.messages: dict[int, FakeMessage] = {}  # in creation (seq) order
        self._per_channel: dict[int, list[FakeMessage]] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._by_token: dict[str, FakeInteraction] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.sync_count = 0
        # Channels where the bot lacks Send Messages: its posts there get 403 (50013).
        self.muted_channels: set[int] = set()
        # Permissions the bot's role lacks in a channel (channel id -> bits), e.g.
        # ``fake.deny_bot("games", CREATE_PUBLIC_THREADS)``; a thread inherits its parent's.
        self.bot_denied: dict[int, int] = {}
        self.bot_granted: dict[int, int] = {}  # channel -> bits a server gave the bot there
        self.thread_unarchives = 0  # threads brought back from the archive (by the bot's acts)
        # Direct messages: POST /users/@me/channels opens one channel per user; posts there
        # are refused with 50007 for the users named in ``dms_closed`` (their DMs are off).
        self.dm_channels: dict[int, FakeUser] = {}
        self.dms_closed: set[str] = set()
        self.dm_refusals: list[str] = []
        self._post_gate: asyncio.Event | None = None
        self.faults: list[Fault] = []
        self.faults_served: list[tuple[str, int]] = []  # (route, status) of injected failures
        self.disconnects: list[tuple[str, str]] = []  # requests whose sender vanished mid-way
        self._drop_held = False
        self.held_posts = 0
        self._nonces: dict[str, tuple[FakeMessage, float]] = {}
        self.nonce_hits = 0  # posts answered with an earlier message (enforce_nonce)
        self.identify_count = 0
        self.resume_count = 0
        self.heartbeats = 0
        self.allow_resume = True
        self.gateway_queries: list[dict[str, str]] = []  # query of every gateway connection
        self._last_sessions: dict[int, _Conn] = {}  # by shard
        self.errors: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str, int]] = []
        self._seq = 0
        self._conns: dict[int, _Conn] = {}  # the identified connection of each shard
        # wait_until's waiters: their condition, looked at once per burst of changes.
        self._waiters: dict[asyncio.Future[Any], Callable[[], Any]] = {}
        self._check_pending = False
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeDiscord:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        r = app.router
        r.add_get("/gateway", self._gateway)
        api = "/api/v10"
        r.add_get(api + "/gateway", self._get_gateway)
        r.add_get(api + "/gateway/bot", self._get_gateway)
        r.add_get(api + "/users/@me", self._get_me)
        r.add_get(api + "/users/{uid}", self._get_user)
        r.add_post(api + "/users/@me/channels", self._open_dm)
        r.add_get(api + "/oauth2/applications/@me", self._get_app)
        r.add_get(api + "/applications/@me", self._get_app)
        r.add_get(api + "/applications/{app}/commands", self._get_commands)
        r.add_put(api + "/applications/{app}/commands", self._put_commands)
        r.add_post(api + "/applications/{app}/commands", self._post_command)
        r.add_delete(api + "/applications/{app}/commands/{cid}", self._delete_command)
        r.add_get(api + "/applications/{app}/guilds/{gid}/commands", self._get_commands)
        r.add_put(api + "/applications/{app}/guilds/{gid}/commands", self._put_commands)
        r.add_post(api + "/applications/{app}/guilds/{gid}/commands", self._post_command)
        r.add_delete(api + "/applications/{app}/guilds/{gid}/commands/{cid}", self._delete_command)
        r.add_get(api + "/applications/{app}/guilds/{gid}/commands/permissions", self._empty_list)
        r.add_post(api + "/interactions/{iid}/{token}/callback", self._callback)
        r.add_post(api + "/webhooks/{app}/{token}", self._followup)
        r.add_get(api + "/webhooks/{app}/{token}/messages/{mid}", self._webhook_get)
        r.add_patch(api + "/webhooks/{app}/{token}/messages/{mid}", self._webhook_patch)
        r.add_delete(api + "/webhooks/{app}/{token}/messages/{mid}", self._webhook_delete)
        r.add_get(api + "/channels/{cid}", self._get_channel)
        r.add_get(api + "/channels/{cid}/messages", self._channel_history)
        r.add_post(api + "/channels/{cid}/messages", self._channel_post)
        r.add_get(api + "/channels/{cid}/messages/{mid}", self._channel_get_message)
        r.add_patch(api + "/channels/{cid}/messages/{mid}", self._channel_patch_message)
        r.add_delete(api + "/channels/{cid}/messages/{mid}", self._channel_delete_message)
        r.add_post(api + "/channels/{cid}/typing", self._typing)
        r.add_patch(api + "/channels/{cid}", self._patch_channel)
        r.add_delete(api + "/channels/{cid}", self._delete_channel)
        r.add_post(api + "/channels/{cid}/threads", self._start_thread)
        r.add_post(api + "/channels/{cid}/messages/{mid}/threads", self._start_thread)
        r.add_get(api + "/channels/{cid}/thread-members", self._thread_members)
        r.add_put(api + "/channels/{cid}/thread-members/{uid}", self._thread_member_put)
        r.add_delete(api + "/channels/{cid}/thread-members/{uid}", self._thread_member_delete)
        r.add_get(api + "/guilds/{gid}", self._get_guild)
        r.add_get(api + "/guilds/{gid}/channels", self._get_guild_channels)
        r.add_get(api + "/guilds/{gid}/roles", self._get_roles)
        r.add_get(api + "/guilds/{gid}/members/{uid}", self._get_member)
        r.add_get("/attachments/{cid}/{aid}/{filename}", self._get_attachment)
        r.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    @property
    def _conn(self) -> _Conn | None:
        """Shard 0's connection (the only one when the bot does not shard)."""
        return self._conns.get(0)

    def shard_of(self, guild_id: int | None) -> int:
        """The shard Discord sends a guild's events to; DMs go to shard 0."""
        return 0 if guild_id is None else (guild_id >> 22) % self.shard_count

    def shard_connected(self, shard: int) -> bool:
        conn = self._conns.get(shard)
        return conn is not None and conn.identified and not conn.ws.closed

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self._flush_guild_updates()
        for conn in list(self._conns.values()):
            if not conn.ws.closed:
                await conn.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def env(self) -> dict[str, str]:
        """Environment for a bot process: where REST and the gateway are."""
        return {"DISCORD_API_BASE": self.api_base, "DISCORD_GATEWAY_URL": self.gateway_url}

    @property
    def connected(self) -> bool:
        return all(self.shard_connected(i) for i in range(self.shard_count))

    # ------------------------------------------------------------------ waiting

    def _notify(self) -> None:
        """The state changed: look at the waiters' conditions soon (once for a burst of changes).

        One pass over the conditions in a single callback, instead of waking every
        waiting task to look at its own: with hundreds of simulated players waiting
        (bench/bot_bench.py), waking them all at every change cost the fake most of
        its CPU.
        """
        if self._waiters and not self._check_pending:
            self._check_pending = True
            asyncio.get_running_loop().call_soon(self._check_waiters)

    def _check_waiters(self) -> None:
        self._check_pending = False
        for fut, cond in list(self._waiters.items()):
            if fut.done():
                continue
            try:
                value = cond()
            except Exception as exc:  # noqa: BLE001 - raised in the waiter, as before
                fut.set_exception(exc)
                continue
            if value:
                fut.set_result(value)

    async def wait_until(self, cond: Callable[[], T | None], timeout: float, what: str) -> T:
        """Until ``cond`` holds, looked at each time the fake's state changes;
        ProtocolTimeout (an AssertionError) after ``timeout``."""
        value = cond()
        if value:
            return value
        fut: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiters[fut] = cond
        try:
            async with asyncio.timeout(timeout):
                return await fut
        except TimeoutError:
            value = cond()
            if value:
                return value
            raise ProtocolTimeout(
                f"timed out after {timeout:g}s waiting for {what}\n{self.diagnostics()}"
            ) from None
        finally:
            self._waiters.pop(fut, None)

    async def wait_connected(self, timeout: float = 20.0) -> None:
        """Until a bot has identified and received READY and GUILD_CREATE."""
        await self.wait_until(lambda: self.connected, timeout, "the bot to connect to the gateway")

    async def wait_synced(self, timeout: float = 20.0, names: Iterable[str] = ()) -> None:
        """Until commands (optionally these names) are registered, globally or in the guild."""
        wanted = set(names)

        def ok() -> bool:
            have = {c["name"] for c in self._all_commands()}
            return bool(have) and wanted <= have

        await self.wait_until(ok, timeout, f"a command sync containing {sorted(wanted)}")

    def diagnostics(self, last: int = 12) -> str:
        lines = [
            f"  connected={self.connected} identifies={self.identify_count} syncs={self.sync_count}"
        ]
        for m in sorted(self.messages.values(), key=lambda m: m.seq)[-last:]:
            lines.append(f"  {m!r}")
        for e in self.errors[-5:]:
            lines.append(f"  error: {e}")
        return "fake discord state:\n" + "\n".join(lines)

    # ------------------------------------------------------------------ queries for tests

    def user(self, who: FakeUser | str) -> FakeUser:
        return who if isinstance(who, FakeUser) else self.users[who]

    def set_locale(self, who: FakeUser | str, locale: str) -> None:
        """The user's Discord client now speaks *locale*: their next interactions carry it."""
        self.user(who).locale = _locale(locale)

    def set_guild_locale(self, locale: str, guild_id: int | None = None) -> None:
        """A server admin changes the guild's ``preferred_locale`` (the first guild's by default).

        Interactions carry it as ``guild_locale`` from now on, and a connected bot
        gets a GUILD_UPDATE, as from Discord, so its cached guild knows it too
        (sent before the next interaction).
        """
        gid = self.guild_id if guild_id is None else guild_id
        if gid not in self.guild_locales:
            raise KeyError(f"no guild {gid}")
        self.guild_locales[gid] = _locale(locale)
        conn = self._conn_for(gid)
        if conn is None or not conn.identified or conn.ws.closed:
            return  # the next GUILD_CREATE carries it
        update = self._dispatch("GUILD_UPDATE", self._guild_payload(full=False, guild_id=gid), conn)
        self._guild_updates.append(asyncio.get_running_loop().create_task(update))

    async def _flush_guild_updates(self) -> None:
        while self._guild_updates:
            await self._guild_updates.pop(0)

    def channel(self, where: FakeChannel | str) -> FakeChannel:
        return where if isinstance(where, FakeChannel) else self.channels[where]

    def _store(self, msg: FakeMessage) -> None:
        self.messages[msg.id] = msg
        self._per_channel.setdefault(msg.channel_id, []).append(msg)

    def _messages_in(self, channel_id: int | None, after_seq: int) -> list[FakeMessage]:
        """Messages (in seq order) of one channel, or all, created after ``after_seq``."""
        msgs = (
            self._per_channel.get(channel_id, [])
            if channel_id is not None
            else list(self.messages.values())
        )
        return msgs[bisect.bisect_right(msgs, after_seq, key=lambda m: m.seq) :]

    def channel_messages(
        self, channel: FakeChannel | str, *, viewer: FakeUser | str | None = None, after: int = 0
    ) -> list[FakeMessage]:
        """Messages in a channel in order; ephemeral ones only if ``viewer`` may see them."""
        ch = self.channel(channel)
        v = self.user(viewer) if viewer is not None else None
        out = []
        for m in self._messages_in(ch.id, after):
            if m.deleted:
                continue
            if m.viewer is not None and (v is None or v.id != m.viewer.id):
                continue
            out.append(m)
        return out

    async def wait_for_message(
        self,
        predicate: Callable[[FakeMessage], bool] = lambda m: True,
        *,
        channel: FakeChannel | str | None = None,
        after: FakeInteraction | int = 0,
        public: bool | None = None,
        timeout: float = 15.0,
        what: str = "",
    ) -> FakeMessage:
        """First non-loading, non-deleted message created after ``after`` that matches.

        ``public=True`` skips ephemeral messages; ``after`` may be an interaction
        (messages created once it was sent) or a message ``seq``.
        """
        ch = self.channel(channel) if channel is not None else None
        after_seq = after.sent_seq if isinstance(after, FakeInteraction) else after

        def found() -> FakeMessage | None:
            for m in self._messages_in(ch.id if ch is not None else None, after_seq):
                if m.deleted or m.loading:
                    continue
                if public is not None and m.ephemeral == public:
                    continue
                if predicate(m):
                    return m
            return None

        return await self.wait_until(found, timeout, what or "a matching message")

    def transcript(self) -> str:
        """Everything users did and the bot said, in order: for reading what the bot sends."""
        items: list[tuple[float, str]] = []
        for ix in self.interactions.values():
            took = (
                f"{ix.callback_latency * 1000:.0f} ms"
                if ix.callback_latency is not None
                else "never"
            )
            items.append(
                (ix.sent_seq + 0.5, f"> {ix.describe()}  [callback {ix.callback_type}, {took}]")
            )
        for m in self.messages.values():
            where = (
                f"#{next((c.name for c in self.channels.values() if c.id == m.channel_id), '?')}"
            )
            who = f"to {m.viewer.name} only" if m.viewer else "public"
            state = " DELETED" if m.deleted else " LOADING" if m.loading else ""
            extra = ""
            if m.attachments:
                extra += f" files={[f'{a.filename}:{len(a.data)}B' for a in m.attachments]}"
            if m.buttons:
                extra += f" buttons={[b.custom_id for b in m.buttons]}"
            for sel in m.selects:
                extra += f" select {sel.get('custom_id')}[{len(sel.get('options', []))}]"
            if m.edits:
                extra += f" edited×{m.edits}"
            if m.pinged_ids:
                names = [u.name for u in self._all_members() if u.id in m.pinged_ids]
                extra += f" pings={names}"
            body = m.text.replace("\n", "\n      ")
            items.append((m.seq, f"< {where} {m.kind} {who}{state}{extra}\n      {body}"))
        return "\n".join(text for _, text in sorted(items, key=lambda x: x[0]))

    def take_errors(self) -> list[dict[str, Any]]:
        """Errors the fake answered since the last call (each one is something Discord refuses)."""
        out, self.errors = self.errors, []
        return out

    @property
    def last_seq(self) -> int:
        return self._seq

    def _all_commands(self) -> list[dict[str, Any]]:
        out = list(self.global_commands)
        for cmds in self.guild_commands.values():
            out += cmds
        return out

    # ------------------------------------------------------------------ driving users

    def _member_permissions(self, user: FakeUser) -> int:
        perms = self.everyone_role.permissions
        for role in (self.mod_role, self.bot_role):
            if role.id in user.roles:
                perms |= role.permissions
        if user.id == self.owner_id:
            perms = (1 << 53) - 1
        return perms

    def _member_payload(self, user: FakeUser, *, with_permissions: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "user": user.payload(),
            "roles": [str(r) for r in user.roles],
            "joined_at": "2026-01-01T00:00:00.000000+00:00",
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "avatar": None,
            "banner": None,
            "communication_disabled_until": None,
            "avatar_decoration_data": None,
        }
        if with_permissions:
            out["permissions"] = str(self._member_permissions(user))
        return out

    def _find_command(self, name: str) -> tuple[dict[str, Any], int | None]:
        for cmd in self.guild_commands.get(self.guild_id, []):
            if cmd["name"] == name and cmd.get("type", 1) == 1:
                return cmd, self.guild_id
        for cmd in self.global_commands:
            if cmd["name"] == name and cmd.get("type", 1) == 1:
                return cmd, None
        synced = sorted(c["name"] for c in self._all_commands())
        raise CommandMismatch(f"/{name} was never synced (synced commands: {synced})")

    def _build_options(
        self,
        cmd: dict[str, Any],
        path: tuple[str, ...],
        values: dict[str, Any],
        focused: str | None,
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The ``options`` tree for an invocation, checked against the synced schema."""
        resolved: dict[str, Any] = {}
        schema = cmd.get("options") or []
        here = f"/{cmd['name']}"
        chain: list[tuple[str, int]] = []
        for sub in path:
            match = next((o for o in schema if o["name"] == sub and o["type"] in (1, 2)), None)
            if match is None:
                subs = [o["name"] for o in schema if o["type"] in (1, 2)]
                raise CommandMismatch(
                    f"{here} has no subcommand {sub!r} in the last sync (has {subs})"
                )
            chain.append((sub, match["type"]))
            schema = match.get("options") or []
            here += f" {sub}"
        if any(o["type"] in (1, 2) for o in schema):
            subs = [o["name"] for o in schema]
            raise CommandMismatch(f"{here} needs a subcommand (one of {subs})")
        leaf: list[dict[str, Any]] = []
        by_name = {o["name"]: o for o in schema}
        for key, value in values.items():
            opt = by_name.get(key)
            if opt is None:
                raise CommandMismatch(
                    f"{here} has no option {key!r} in the last sync (has {sorted(by_name)})"
                )
            entry: dict[str, Any] = {"name": key, "type": opt["type"]}
            if key == focused:
                if not opt.get("autocomplete"):
                    raise CommandMismatch(f"{here} option {key!r} was not synced with autocomplete")
                entry["value"] = str(value)
                entry["focused"] = True
            else:
                entry["value"] = self._option_value(here, opt, value, resolved)
            leaf.append(entry)
        if focused is None:
            missing = [o["name"] for o in schema if o.get("required") and o["name"] not in values]
            if missing:
                raise CommandMismatch(f"{here} is missing required options {missing}")
        elif focused not in values:
            raise CommandMismatch(f"autocomplete needs a value for the focused option {focused!r}")
        options = leaf
        for sub, typ in reversed(chain):
            options = [{"name": sub, "type": typ, "options": options}]
        return options, resolved

    def _option_value(
        self, here: str, opt: dict[str, Any], value: Any, resolved: dict[str, Any]
    ) -> Any:
        t = opt["type"]
        name = opt["name"]
        if t == 3:
            if not isinstance(value, str):
                raise CommandMismatch(f"{here} {name}: expected a string, got {value!r}")
            if not opt.get("min_length", 0) <= len(value) <= opt.get("max_length", 6000):
                raise CommandMismatch(
                    f"{here} {name}: length {len(value)} outside the synced bounds"
                )
        elif t in (4, 10):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or (t == 4 and not isinstance(value, int))
            ):
                raise CommandMismatch(f"{here} {name}: expected a number, got {value!r}")
            if "min_value" in opt and value < opt["min_value"]:
                raise CommandMismatch(f"{here} {name}: {value} < min_value {opt['min_value']}")
            if "max_value" in opt and value > opt["max_value"]:
                raise CommandMismatch(f"{here} {name}: {value} > max_value {opt['max_value']}")
        elif t == 5:
            if not isinstance(value, bool):
                raise CommandMismatch(f"{here} {name}: expected a boolean, got {value!r}")
        elif t in (6, 9):
            user = self.user(value)
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
            member = self._member_payload(user, with_permissions=True)
            member.pop("user")
            resolved.setdefault("members", {})[str(user.id)] = member
            return str(user.id)
        elif t == 7:
            ch = self.channel(value)
            payload = ch.payload()
            payload["permissions"] = str(EVERYONE_PERMISSIONS)
            resolved.setdefault("channels", {})[str(ch.id)] = payload
            return str(ch.id)
        else:
            raise CommandMismatch(f"{here} {name}: option type {t} is not supported by the fake")
        choices = opt.get("choices")
        if choices is not None and value not in [c["value"] for c in choices]:
            allowed = [c["value"] for c in choices]
            raise CommandMismatch(
                f"{here} {name}: {value!r} is not one of the synced choices {allowed}"
            )
        return value

    async def slash(
        self,
        user: FakeUser | str,
        channel: FakeChannel | str,
        command: str,
        *path: str,
        **options: Any,
    ) -> FakeInteraction:
        """A user runs ``/command path... option:value``; returns at once (await ``.reply()``).

        Raises ``CommandMismatch`` if the command, subcommand or an option was not
        in the bot's last sync, as the Discord client would not offer it.
        """
        cmd, gid = self._find_command(command)
        opts, resolved = self._build_options(cmd, path, options, None)
        data: dict[str, Any] = {"id": cmd["id"], "name": command, "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        if gid is not None:
            data["guild_id"] = str(gid)
        return await self._send_interaction(2, self.user(user), self.channel(channel), data)

    async def autocomplete(
        self,
        user: FakeUser | str,
        channel: FakeChannel | str,
        command: str,
        *path: str,
        focused: str,
        timeout: float = 10.0,
        **options: Any,
    ) -> list[dict[str, Any]]:
        """The choices the bot offers while ``user`` types into option ``focused``."""
        cmd, gid = self._find_command(command)
        opts, resolved = self._build_options(cmd, path, options, focused)
        data: dict[str, Any] = {"id": cmd["id"], "name": command, "type": 1, "options": opts}
        if gid is not None:
            data["guild_id"] = str(gid)
        ix = await self._send_interaction(4, self.user(user), self.channel(channel), data)
        await ix.response(timeout)
        if ix.callback_type != 8 or ix.choices is None:
            raise AssertionError(
                f"autocomplete answered with callback type {ix.callback_type}, not 8"
            )
        return ix.choices

    async def click(
        self,
        user: FakeUser | str,
        message: FakeMessage,
        custom_id: str,
        *,
        values: list[str] | None = None,
    ) -> FakeInteraction:
        """``user`` presses the component ``custom_id`` on ``message`` as it is now.

        Like the Discord client, refuses disabled or absent components and
        messages the user cannot see.
        """
        u = self.user(user)
        if not message.visible_to(u):
            raise AssertionError(f"{u.name} cannot see {message!r}")
        comp = self._find_component(message.components, custom_id)
        if comp is None:
            ids = [b.custom_id for b in message.buttons]
            raise AssertionError(f"{message!r} has no component {custom_id!r} (has {ids})")
        if comp.get("disabled"):
            raise AssertionError(f"component {custom_id!r} on {message!r} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": comp["type"]}
        if comp["type"] != 2:
            chosen = list(values or [])
            low, high = comp.get("min_values", 1), comp.get("max_values", 1)
            if not low <= len(chosen) <= high:
                raise AssertionError(
                    f"select {custom_id!r} takes {low} to {high} values, not {chosen}"
                )
            if comp["type"] == 3:
                offered = [o["value"] for o in comp.get("options", [])]
                wrong = [v for v in chosen if v not in offered]
                if wrong:
                    raise AssertionError(f"select {custom_id!r} offers no {wrong} (has {offered})")
            data["values"] = chosen
        elif values:
            raise AssertionError(f"{custom_id!r} is a button: it takes no values")
        channel = next(c for c in self.channels.values() if c.id == message.channel_id)
        return await self._send_interaction(3, u, channel, data, message=message)

    def _find_component(self, items: list[dict[str, Any]], custom_id: str) -> dict[str, Any] | None:
        for c in items:
            if c.get("custom_id") == custom_id and c.get("type") in (2, 3, 5, 6, 7, 8):
                return c
            for key in ("components", "accessory"):
                sub = c.get(key)
                subs = sub if isinstance(sub, list) else [sub] if isinstance(sub, dict) else []
                hit = self._find_component(subs, custom_id)
                if hit is not None:
                    return hit
        return None

    async def _send_interaction(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
        timeout: float = 20.0,
    ) -> FakeInteraction:
        await self._flush_guild_updates()
        shard = self.shard_of(channel.guild_id)
        await self.wait_until(
            lambda: self.shard_connected(shard), timeout, f"shard {shard} to connect"
        )
        ix = FakeInteraction(
            fake=self,
            id=snowflake(),
            token="aW50ZXJhY3Rpb24" + secrets.token_urlsafe(48),
            type=itype,
            user=user,
            channel=channel,
            data=data,
            message=message,
            sent_at=time.monotonic(),
            sent_seq=self._seq,
        )
        self.interactions[ix.id] = ix
        self._by_token[ix.token] = ix
        ch_payload = channel.payload()
        ch_payload["permissions"] = str(self._member_permissions(user))
        payload: dict[str, Any] = {
            "id": str(ix.id),
            "application_id": str(self.app_id),
            "type": itype,
            "data": data,
            "guild_id": str(channel.guild_id),
            "guild": {
                "id": str(channel.guild_id),
                "locale": self.guild_locales[channel.guild_id],
                "features": [],
            },
            "channel_id": str(channel.id),
            "channel": ch_payload,
            "member": self._member_payload(user, with_permissions=True),
            "token": ix.token,
            "version": 1,
            "app_permissions": str(self.bot_permissions(channel)),
            "locale": user.locale,
            "guild_locale": self.guild_locales[channel.guild_id],
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(channel.guild_id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if message is not None:
            payload["message"] = message.payload(self.base_url, self.app_id)
        await self._dispatch("INTERACTION_CREATE", payload, self._conn_for(channel.guild_id))
        ix.sent_at = time.monotonic()
        return ix

    # ------------------------------------------------------------------ gateway

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        conn = _Conn(ws=ws, query=dict(request.query))
        self.gateway_queries.append(conn.query)
        try:
            await self._send(
                conn, {"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None}
            )
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.ERROR:
                        break
                    continue
                try:
                    payload = _loads(msg.data)
                except ValueError:
                    self._error("GATEWAY", "/gateway", 4002, "Error while decoding payload")
                    await ws.close(code=4002)
                    break
                await self._on_gateway(conn, payload)
        finally:
            if self._conns.get(conn.shard) is conn:
                del self._conns[conn.shard]
            self._notify()
        return ws

    async def _send(self, conn: _Conn, payload: dict[str, Any]) -> None:
        async with conn.lock:
            if not conn.ws.closed:
                await conn.ws.send_str(_dumps(payload).decode())

    def _conn_for(self, guild_id: int | None) -> _Conn | None:
        return self._conns.get(self.shard_of(guild_id))

    async def _dispatch(self, event: str, data: dict[str, Any], conn: _Conn | None = None) -> None:
        conn = conn or self._conn
        if conn is None:
            raise AssertionError(f"no bot connected to receive {event}")
        async with conn.lock:
            conn.seq += 1
            if not conn.ws.closed:
                await conn.ws.send_str(
                    _dumps({"op": 0, "s": conn.seq, "t": event, "d": data}).decode()
                )

    async def _on_gateway(self, conn: _Conn, payload: dict[str, Any]) -> None:
        op = payload.get("op")
        d = payload.get("d")
        if op == 1:
            self.heartbeats += 1
            await self._send(conn, {"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            if not isinstance(d, dict) or not d.get("token"):
                await conn.ws.close(code=4004)
                return
            if self.token is not None and d["token"] != self.token:
                await conn.ws.close(code=4004)
                return
            shard = d.get("shard") or [0, 1]
            if shard[1] != self.shard_count or not 0 <= shard[0] < shard[1]:
                # Discord: 4010 invalid shard, 4011 sharding required.
                code = 4011 if shard[1] < self.shard_count else 4010
                self._error("GATEWAY", "/gateway", code, f"shard {shard} of {self.shard_count}")
                await conn.ws.close(code=code)
                return
            conn.shard = int(shard[0])
            conn.intents = int(d.get("intents", 0))
            self.identify_count += 1
            mine = [g for g in self.guild_ids if self.shard_of(g) == conn.shard]
            ready = {
                "v": 10,
                "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False},
                "guilds": [{"id": str(g), "unavailable": True} for g in mine],
                "session_id": conn.session_id,
                "resume_gateway_url": self.gateway_url,
                "application": {"id": str(self.app_id), "flags": 0},
                "shard": [conn.shard, self.shard_count],
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "user_settings": {},
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
            }
            await self._dispatch("READY", ready, conn)
            for gid in mine:
                guild = self._guild_payload(full=True, guild_id=gid)
                if not conn.intents & GUILD_MEMBERS_INTENT:
                    # Like Discord: without the privileged intent only the bot's own member comes.
                    guild["members"] = [self._member_payload(self.bot_user)]
                await self._dispatch("GUILD_CREATE", guild, conn)
            old = self._conns.get(conn.shard)
            self._conns[conn.shard] = conn
            self._last_sessions[conn.shard] = conn
            conn.identified = True
            if old is not None and old is not conn and not old.ws.closed:
                await old.ws.close(code=4000)
            self._notify()
        elif op == 6:
            # Resume the last session if it is the one asked for; else invalidate it.
            d = d if isinstance(d, dict) else {}
            last = next(
                (c for c in self._last_sessions.values() if c.session_id == d.get("session_id")),
                None,
            )
            if last is not None and self.allow_resume:
                conn.session_id, conn.seq, conn.intents = last.session_id, last.seq, last.intents
                conn.shard = last.shard
                conn.identified = True
                self._conns[conn.shard] = conn
                self.resume_count += 1
                await self._dispatch("RESUMED", {}, conn)
                self._notify()
            else:
                await self._send(conn, {"op": 9, "d": False, "s": None, "t": None})
        elif op == 8:
            members = [self._member_payload(u) for u in self._all_members()]
            await self._dispatch(
                "GUILD_MEMBERS_CHUNK",
                {
                    "guild_id": str((d or {}).get("guild_id") or self.guild_id),
                    "members": members,
                    "chunk_index": 0,
                    "chunk_count": 1,
                    "not_found": [],
                    "presences": [],
                    "nonce": (d or {}).get("nonce"),
                },
                conn,
            )
        elif op in (3, 4):
            pass  # presence / voice state updates: accepted, nothing to do
        else:
            self._error("GATEWAY", "/gateway", 4001, f"Unknown opcode {op}")

    def _all_members(self) -> list[FakeUser]:
        return [*self.users.values(), self.bot_user]

    def _everyone(self, guild_id: int) -> FakeRole:
        if guild_id == self.guild_id:
            return self.everyone_role
        return FakeRole(guild_id, "@everyone", EVERYONE_PERMISSIONS, 0)

    def _roles(self, guild_id: int) -> list[dict[str, Any]]:
        return [r.payload() for r in (self._everyone(guild_id), self.mod_role, self.bot_role)]

    def _guild_channels(self, guild_id: int, *, threads: bool) -> list[dict[str, Any]]:
        return [
            c.payload()
            for c in self.channels.values()
            if c.guild_id == guild_id and c.is_thread == threads and not (c.deleted or c.archived)
        ]

    def _guild_payload(self, *, full: bool, guild_id: int | None = None) -> dict[str, Any]:
        gid = self.guild_id if guild_id is None else guild_id
        g: dict[str, Any] = {
            "id": str(gid),
            "name": "Torres Test Server"
            + ("" if gid == self.guild_id else f" {self.guild_ids.index(gid) + 1}"),
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id) if self.owner_id else str(self.bot_user.id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": self._roles(gid),
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.guild_locales[gid],
            "nsfw_level": 0,
            "nsfw": False,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "incidents_data": None,
            "widget_enabled": False,
            "widget_channel_id": None,
        }
        if full:
            g.update(
                {
                    "joined_at": "2026-01-01T00:00:00.000000+00:00",
                    "large": False,
                    "unavailable": False,
                    "member_count": len(self._all_members()),
                    "voice_states": [],
                    "members": [self._member_payload(u) for u in self._all_members()],
                    "channels": self._guild_channels(gid, threads=False),
                    "threads": self._guild_channels(gid, threads=True),
                    "presences": [],
                    "stage_instances": [],
                    "guild_scheduled_events": [],
                    "soundboard_sounds": [],
                }
            )
        return g

    async def reconnect_gateway(self, *, resume: bool = True) -> None:
        """Ask the bot to reconnect (op 7), as Discord does now and then; with
        ``resume=False`` its RESUME is refused and it must identify again."""
        conn = self._conn
        if conn is None:
            raise AssertionError("no bot connected")
        self.allow_resume = resume
        await self._send(conn, {"op": 7, "d": None, "s": None, "t": None})

    async def create_thread(
        self, name: str, parent: FakeChannel | str, *, announce: bool = True
    ) -> FakeChannel:
        """A user opens a public thread now; ``announce`` sends THREAD_CREATE to the bot
        (``False``: the bot first hears of it in an interaction's channel object)."""
        parent_ch = self.channel(parent)
        thread = FakeChannel(
            snowflake(),
            name,
            parent_ch.guild_id,
            parent_id=parent_ch.id,
            owner_id=self.users[next(iter(self.users))].id,
        )
        self.channels[name] = thread
        if announce:
            await self._dispatch(
                "THREAD_CREATE",
                {**thread.payload(), "newly_created": True},
                self._conn_for(thread.guild_id),
            )
        return thread

    def deny_bot(self, channel: FakeChannel | str, permissions: int) -> None:
        """Take ``permissions`` (bits) from the bot in ``channel`` (and its threads)."""
        ch = self.channel(channel)
        self.bot_denied[ch.id] = self.bot_denied.get(ch.id, 0) | permissions

    def grant_bot(self, channel: FakeChannel | str, permissions: int) -> None:
        """Give the bot ``permissions`` (bits) in ``channel`` (and its threads) beyond its
        role, as a server may (e.g. Manage Threads)."""
        ch = self.channel(channel)
        self.bot_granted[ch.id] = self.bot_granted.get(ch.id, 0) | permissions

    def bot_permissions(self, channel: FakeChannel) -> int:
        """What the bot may do in ``channel``: its role, less what is denied there
        (a thread takes its parent's permissions; a muted channel lacks Send Messages)."""
        perms = BOT_PERMISSIONS
        for cid in (channel.id, channel.parent_id):
            if cid is not None:
                perms |= self.bot_granted.get(cid, 0)
        for cid in (channel.id, channel.parent_id):
            if cid is not None:
                perms &= ~self.bot_denied.get(cid, 0)
                if cid in self.muted_channels:
                    perms &= ~(SEND_MESSAGES | SEND_MESSAGES_IN_THREADS)
        return perms

    def threads(self, parent: FakeChannel | str) -> list[FakeChannel]:
        """The threads of ``parent`` (deleted ones too), oldest first."""
        pid = self.channel(parent).id
        return sorted((c for c in self.channels.values() if c.parent_id == pid), key=lambda c: c.id)

    def thread_of(self, message: FakeMessage) -> FakeChannel | None:
        """The thread started from ``message``, if any."""
        return next((c for c in self.channels.values() if c.starter_message_id == message.id), None)

    async def archive_thread(self, thread: FakeChannel | str, *, locked: bool = False) -> None:
        """Discord archives ``thread`` (after its inactivity period, or a moderator does)."""
        ch = self.channel(thread)
        ch.archived, ch.locked = True, locked
        await self._dispatch("THREAD_UPDATE", ch.payload(), self._conn_for(ch.guild_id))

    async def delete_thread(self, thread: FakeChannel | str) -> None:
        """A moderator deletes ``thread``: Discord forgets it and what it held."""
        ch = self.channel(thread)
        ch.deleted = True
        for m in self._per_channel.get(ch.id, []):
            m.deleted = True
        await self._dispatch(
            "THREAD_DELETE",
            {
                "id": str(ch.id),
                "guild_id": str(ch.guild_id),
                "parent_id": str(ch.parent_id),
                "type": ch.thread_type,
            },
            self._conn_for(ch.guild_id),
        )
        self._notify()

    def inject_fault(
        self,
        route: str,
        status: int,
        *,
        count: int | None = 1,
        via: bool = False,
        retry_after: float = 0.1,
    ) -> Fault:
        """Fail the next ``count`` requests to ``route`` with ``status`` (see :class:`Fault`).

        Injected failures are Discord's fault, not the bot's: they are listed in
        ``faults_served``, not in ``errors``.
        """
        if route not in ("channel_post", "followup"):
            raise ValueError(f"unknown route {route!r}")
        fault = Fault(route, status, count, via, retry_after)
        self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        self.faults = []

    def _fault(self, route: str) -> web.Response | None:
        for fault in self.faults:
            if fault.route == route and (fault.count is None or fault.served < fault.count):
                fault.served += 1
                self.faults_served.append((route, fault.status))
                self._notify()
                return fault.response()
        return None

    def hold_channel_posts(self) -> None:
        """From now on, channel posts wait (unanswered, not created) until ``release_channel_posts``.

        With a SIGKILL in between this reproduces a crash after the bot committed
        a turn but before Discord accepted its announcement.
        """
        self._post_gate = asyncio.Event()
        self._drop_held = False

    def release_channel_posts(self, *, drop: bool) -> None:
        """Let held posts through, or (``drop``) discard them as if they never arrived."""
        gate, self._post_gate = self._post_gate, None
        self._drop_held = drop
        if gate is not None:
            gate.set()

    async def drop_gateway(self) -> None:
        """Close the connection abruptly (code 1006-like network loss is not possible from
        here; 4000 "unknown error" makes discord.py reconnect and resume)."""
        conn = self._conn
        if conn is None:
            raise AssertionError("no bot connected")
        await conn.ws.close(code=4000)

    # ------------------------------------------------------------------ HTTP plumbing

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Any]
    ) -> web.StreamResponse:
        path = request.path
        needs_auth = path.startswith("/api/v10/") and not (
            path.startswith("/api/v10/interactions/") or path.startswith("/api/v10/webhooks/")
        )
        try:
            if needs_auth:
                auth = request.headers.get("Authorization", "")
                if not auth.startswith("Bot ") or (
                    self.token is not None and auth != f"Bot {self.token}"
                ):
                    raise FormError("", "401: Unauthorized", code=0, status=401)
            resp = await handler(request)
        except FormError as e:
            self._error(request.method, path, e.status, str(e), code=e.code)
            resp = _json(e.body(), e.status)
        except web.HTTPException:
            raise
        except ConnectionResetError:
            # The client went away mid-request (e.g. it was killed): nobody to answer,
            # and nothing the bot did wrong.
            self.disconnects.append((request.method, path))
            self._notify()
            raise
        except Exception as e:  # a bug in the fake: make it loud, never hang the bot
            log.exception("fake discord crashed on %s %s", request.method, path)
            self._error(request.method, path, 500, f"fake crashed: {e!r}")
            resp = _json({"code": 0, "message": f"fake discord crashed: {e!r}"}, 500)
        self.requests.append((request.method, path, resp.status))
        return resp

    def _error(self, method: str, path: str, status: int, message: str, *, code: int = 0) -> None:
        self.errors.append(
            {"method": method, "path": path, "status": status, "code": code, "message": message}
        )
        self._notify()

    async def _read_body(
        self, request: web.Request
    ) -> tuple[dict[str, Any], dict[int, Attachment]]:
        """JSON body, or multipart ``payload_json`` + ``files[n]``; files keyed by n."""
        files: dict[int, Attachment] = {}
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            body: dict[str, Any] = {}
            for name, headers, data in _multipart(ctype, await request.read()):
                if name == "payload_json":
                    body = _loads(data)
                elif name.startswith("files[") and name.endswith("]"):
                    idx = int(name[6:-1])
                    files[idx] = Attachment(
                        id=idx,
                        filename=_disposition(headers).get("filename") or f"file{idx}",
                        data=data,
                        content_type=headers.get("content-type"),
                    )
                else:
                    raise FormError(name, f"unexpected multipart field {name!r}")
            return body, files
        raw = await request.read()
        if not raw:
            return {}, files
        if ctype.split(";")[0].strip() != "application/json":
            raise FormError("", f"unexpected content type {ctype!r}", code=50035)
        try:
            return _loads(raw), files
        except ValueError as e:
            raise FormError("", "The request body contains invalid JSON.", code=50109) from e

    async def _unknown(self, request: web.Request) -> web.Response:
        raise FormError(
            "", f"404: Not Found ({request.method} {request.path} is not faked)", code=0, status=404
        )

    async def _empty_list(self, request: web.Request) -> web.Response:
        return _json([])

    # ------------------------------------------------------------------ REST: identity

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return _json(
            {
                "url": self.gateway_url,
                "shards": self.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    async def _get_me(self, request: web.Request) -> web.Response:
        return _json(
            {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "locale": "en-US"}
        )

    async def _get_user(self, request: web.Request) -> web.Response:
        uid = int(request.match_info["uid"])
        for u in self._all_members():
            if u.id == uid:
                return _json(u.payload())
        raise FormError("", "Unknown User", code=10013, status=404)

    async def _get_app(self, request: web.Request) -> web.Response:
        owner = self.users[next(iter(self.users))] if self.users else self.bot_user
        return _json(
            {
                "id": str(self.app_id),
                "name": "Torres",
                "icon": None,
                "description": "Torres for Discord (fake)",
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": owner.payload(),
                "summary": "",
                "verify_key": "0" * 64,
                "team": None,
                "guild_id": None,
                "flags": 0,
                "tags": [],
                "install_params": None,
                "custom_install_url": None,
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "role_connections_verification_url": None,
                "approximate_guild_count": 1,
                "approximate_user_install_count": 0,
                "bot": {**self.bot_user.payload()},
                "integration_types_config": {},
                "cover_image": None,
                "terms_of_service_url": None,
                "privacy_policy_url": None,
            }
        )

    # ------------------------------------------------------------------ REST: commands

    def _check_app(self, request: web.Request) -> None:
        if request.match_info.get("app") != str(self.app_id):
            raise FormError("", "Unknown Application", code=10002, status=404)

    def _command_list(self, request: web.Request) -> list[dict[str, Any]]:
        gid = request.match_info.get("gid")
        if gid is None:
            return self.global_commands
        if int(gid) not in self.guild_ids:
            raise FormError("", "Missing Access", code=50001, status=403)
        return self.guild_commands.setdefault(int(gid), [])

    def _registered(
        self, cmd: dict[str, Any], gid: str | None, old: dict[str, Any] | None
    ) -> dict[str, Any]:
        out = {
            "type": 1,
            "options": [],
            "default_member_permissions": None,
            "dm_permission": True,
            "nsfw": False,
            "name_localizations": None,
            "description_localizations": None,
            "contexts": None,
            "integration_types": [0],
            **cmd,
        }
        same = old is not None and all(old.get(k) == out.get(k) for k in cmd)
        out["id"] = old["id"] if old is not None else str(snowflake())
        out["application_id"] = str(self.app_id)
        out["version"] = old["version"] if same and old is not None else str(snowflake())
        if gid is not None:
            out["guild_id"] = gid
        return out

    async def _get_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        return _json(self._command_list(request))

    async def _put_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        current = self._command_list(request)
        body, _ = await self._read_body(request)
        check_commands(body)
        gid = request.match_info.get("gid")
        olds = {(c.get("type", 1), c["name"]): c for c in current}
        new = [self._registered(c, gid, olds.get((c.get("type", 1), c["name"]))) for c in body]
        current[:] = new
        self.sync_count += 1
        self._notify()
        return _json(new)

    async def _post_command(self, request: web.Request) -> web.Response:
        self._check_app(request)
        current = self._command_list(request)
        body, _ = await self._read_body(request)
        check_commands([body])
        key = (body.get("type", 1), body["name"])
        old = next((c for c in current if (c.get("type", 1), c["name"]) == key), None)
        cmd = self._registered(body, request.match_info.get("gid"), old)
        if old is not None:
            current[current.index(old)] = cmd
        else:
            current.append(cmd)
        self.sync_count += 1
        self._notify()
        return _json(cmd, 200 if old is not None else 201)

    async def _delete_command(self, request: web.Request) -> web.Response:
        self._check_app(request)
        current = self._command_list(request)
        cid = request.match_info["cid"]
        before = len(current)
        current[:] = [c for c in current if c["id"] != cid]
        if len(current) == before:
            raise FormError("", "Unknown application command", code=10063, status=404)
        self.sync_count += 1
        self._notify()
        return _no_content()

    # ------------------------------------------------------------------ messages

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _attachments_for(
        self,
        body: dict[str, Any],
        files: dict[int, Attachment],
        existing: list[Attachment],
        *,
        creating: bool,
    ) -> list[Attachment]:
        """Resolve ``attachments`` entries to uploaded ``files[n]`` or kept existing ones."""
        limit = 10 * 1024 * 1024
        for f in files.values():
            if len(f.data) > limit:
                raise FormError("", "Request entity too large", code=40005, status=413)
        if "attachments" not in body or body["attachments"] is None:
            kept = [] if creating else list(existing)
            new = []
            for idx in sorted(files):
                att = files[idx]
                att.id = snowflake()
                new.append(att)
            return kept + new
        out: list[Attachment] = []
        used: set[int] = set()
        by_id = {a.id: a for a in existing}
        for i, entry in enumerate(body["attachments"]):
            aid = int(entry["id"])
            if aid in files and aid not in used:
                att = files[aid]
                used.add(aid)
                if entry.get("filename"):
                    att.filename = entry["filename"]
                att.description = entry.get("description")
                if att.description is not None and len(att.description) > 1024:
                    raise FormError(
                        f"attachments.{i}.description", "Must be 1024 or fewer in length."
                    )
                att.id = snowflake()
                out.append(att)
            elif aid in by_id:
                out.append(by_id[aid])
            else:
                raise FormError(
                    f"attachments.{i}.id",
                    f"attachment {aid} matches no upload and no existing file",
                )
        unused = set(files) - used
        if unused:
            raise FormError(
                "attachments", f"uploaded files {sorted(unused)} are not listed in attachments"
            )
        return out

    def _new_message(
        self,
        body: dict[str, Any],
        files: dict[int, Attachment],
        *,
        channel_id: int,
        kind: str,
        interaction: FakeInteraction | None,
        path: str,
        flags_extra: int = 0,
        force_ephemeral: bool | None = None,
    ) -> FakeMessage:
        check_message(body, path, n_files=len(files), creating=True)
        flags = int(body.get("flags") or 0)
        if flags & ~SETTABLE_FLAGS:
            raise FormError(f"{path}flags", f"flags {flags} include bits a bot cannot set")
        if force_ephemeral is not None:
            flags = (flags | EPHEMERAL) if force_ephemeral else (flags & ~EPHEMERAL)
        flags |= flags_extra
        content = body.get("content") or ""
        members = {u.id: u for u in self._all_members()}
        mentioned, pinged = parse_mentions(
            _mention_text(body), body.get("allowed_mentions"), members
        )
        msg = FakeMessage(
            id=snowflake(),
            seq=self._next_seq(),
            channel_id=channel_id,
            guild_id=self._guild_of(channel_id),
            author=self.bot_user,
            kind=kind,
            content=content,
            flags=flags,
            components=body.get("components") or [],
            embeds=body.get("embeds") or [],
            attachments=self._attachments_for(body, files, [], creating=True),
            mentioned_ids=mentioned,
            pinged_ids=[] if flags & EPHEMERAL else pinged,
            interaction=interaction,
            viewer=interaction.user if interaction is not None and flags & EPHEMERAL else None,
        )
        _check_media_refs(msg, path)
        if not msg.loading:
            msg.resolved_at = msg.created_at
        self._store(msg)
        return msg

    def _edit_message(
        self, msg: FakeMessage, body: dict[str, Any], files: dict[int, Attachment], path: str
    ) -> None:
        if msg.deleted:
            raise FormError("", "Unknown Message", code=10008, status=404)
        v2 = bool(msg.flags & IS_COMPONENTS_V2)
        wanted_flags = body.get("flags")
        if v2 and wanted_flags is not None and not int(wanted_flags) & IS_COMPONENTS_V2:
            raise FormError(f"{path}flags", "the IS_COMPONENTS_V2 flag cannot be removed")
        becomes_v2 = v2 or bool(int(wanted_flags or 0) & IS_COMPONENTS_V2)
        checked = {**body, "flags": int(wanted_flags or 0) | (IS_COMPONENTS_V2 if v2 else 0)}
        check_message(checked, path, n_files=len(files), creating=False)
        if (
            becomes_v2
            and not v2
            and (body.get("content", msg.content) or body.get("embeds", msg.embeds))
        ):
            raise FormError(f"{path}flags", "IS_COMPONENTS_V2 needs the content and embeds gone")
        msg.history.append(msg.snapshot())
        if "content" in body or "components" in body:
            msg.content = body.get("content", msg.content) or ""
            members = {u.id: u for u in self._all_members()}
            text = _mention_text({"content": msg.content, "components": body.get("components")})
            mentioned, pinged = parse_mentions(text, body.get("allowed_mentions"), members)
            msg.mentioned_ids = mentioned
            # An edit never pings; keep who the original pinged.
        if "embeds" in body:
            msg.embeds = body["embeds"] or []
        if "components" in body:
            msg.components = body["components"] or []
        if "flags" in body and body["flags"] is not None:
            wanted = int(body["flags"])
            # Ephemerality cannot change on edit; SUPPRESS_EMBEDS can; V2 can be set, never unset.
            msg.flags = (msg.flags & ~(1 << 2)) | (wanted & ((1 << 2) | IS_COMPONENTS_V2))
        msg.attachments = self._attachments_for(body, files, msg.attachments, creating=False)
        _check_media_refs(msg, path)
        if msg.loading:
            msg.flags &= ~LOADING
            msg.resolved_at = time.monotonic()
        else:
            msg.edits += 1
            msg.edited_at = time.monotonic()
        if not (msg.content or msg.embeds or msg.attachments or msg.components):
            raise FormError(path or "content", "Cannot send an empty message", code=50006)

    def _message_json(self, msg: FakeMessage) -> web.Response:
        return _json(msg.payload(self.base_url, self.app_id))

    async def _announce(self, msg: FakeMessage) -> None:
        """MESSAGE_CREATE for public messages, as Discord sends to bots with the intent."""
        conn = self._conn_for(msg.guild_id)
        if conn is None or msg.ephemeral or not conn.intents & GUILD_MESSAGES_INTENT:
            return
        with contextlib.suppress(AssertionError, ConnectionError):
            await self._dispatch("MESSAGE_CREATE", msg.payload(self.base_url, self.app_id), conn)

    # ------------------------------------------------------------------ REST: interactions

    def _interaction(self, request: web.Request) -> FakeInteraction:
        token = request.match_info["token"]
        ix = self._by_token.get(token)
        if "iid" in request.match_info:
            if ix is None or str(ix.id) != request.match_info["iid"]:
                raise FormError("", "Unknown interaction", code=10062, status=404)
        else:
            if ix is None or request.match_info["app"] != str(self.app_id):
                raise FormError("", "Unknown Webhook", code=10015, status=404)
        return ix

    async def _callback(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        body, files = await self._read_body(request)
        now = time.monotonic()
        if ix.callback_type is not None:
            raise FormError(
                "", "Interaction has already been acknowledged.", code=40060, status=400
            )
        if now - ix.sent_at > self.interaction_deadline:
            raise FormError(
                "",
                f"Unknown interaction (answered after {now - ix.sent_at:.2f}s > 3s)",
                code=10062,
                status=404,
            )
        ctype = body.get("type")
        data = body.get("data") or {}
        allowed = {4: (2, 3, 5), 5: (2, 3, 5), 6: (3, 5), 7: (3, 5), 8: (4,), 9: (2, 3)}
        if ctype not in allowed:
            raise FormError("type", f"unsupported callback type {ctype!r}")
        if ix.type not in allowed[ctype]:
            raise FormError(
                "type", f"callback type {ctype} is invalid for interaction type {ix.type}"
            )
        if ctype not in (4, 7) and files:
            raise FormError("", f"callback type {ctype} cannot carry files")
        resource: dict[str, Any] = {"type": ctype}
        info: dict[str, Any] = {
            "id": str(ix.id),
            "type": ix.type,
            "activity_instance_id": None,
            "response_message_loading": False,
            "response_message_ephemeral": False,
        }
        if ctype in (4, 5):
            if ctype == 4:
                msg = self._new_message(
                    data,
                    files,
                    channel_id=ix.channel.id,
                    kind="callback",
                    interaction=ix,
                    path="data.",
                )
            else:
                msg = self._loading_message(ix, data)
            ix.original = msg
            info["response_message_id"] = str(msg.id)
            info["response_message_loading"] = msg.loading
            info["response_message_ephemeral"] = msg.ephemeral
            resource["message"] = msg.payload(self.base_url, self.app_id)
        elif ctype == 7:
            assert ix.message is not None
            self._edit_message(ix.message, data, files, "data.")
            info["response_message_id"] = str(ix.message.id)
            resource["message"] = ix.message.payload(self.base_url, self.app_id)
        elif ctype == 8:
            check_autocomplete(data)
            ix.choices = data["choices"]
        elif ctype == 9:
            check_modal(data)
            ix.modal = data
        ix.callback_type = ctype
        ix.callback_data = data
        ix.callback_at = now
        self._notify()
        if ix.original is not None and ctype == 4:
            await self._announce(ix.original)
        if ctype in (6, 8, 9):
            return _json({"interaction": info})
        return _json({"interaction": info, "resource": resource})

    def _loading_message(self, ix: FakeInteraction, data: dict[str, Any]) -> FakeMessage:
        flags = int(data.get("flags") or 0)
        msg = FakeMessage(
            id=snowflake(),
            seq=self._next_seq(),
            channel_id=ix.channel.id,
            guild_id=ix.channel.guild_id,
            author=self.bot_user,
            kind="callback",
            flags=LOADING | (flags & EPHEMERAL),
            interaction=ix,
            viewer=ix.user if flags & EPHEMERAL else None,
        )
        self._store(msg)
        return msg

    async def _followup(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        if ix.callback_type is None:
            raise FormError(
                "",
                "Unknown Webhook (follow-up before the interaction was acknowledged)",
                code=10015,
                status=404,
            )
        if ix.callback_type in (8, 9):
            raise FormError(
                "",
                "Unknown Webhook (no follow-ups after autocomplete or modal)",
                code=10015,
                status=404,
            )
        body, files = await self._read_body(request)
        failed = self._fault("followup")
        if failed is not None:
            return failed
        orig = ix.original
        if orig is not None and orig.loading and not orig.deleted:
            # Discord: the first follow-up after a deferral resolves the loading
            # message, keeping the deferral's visibility whatever its own flags say.
            check_message(body, "", n_files=len(files), creating=True)
            v2 = int(body.get("flags") or 0) & IS_COMPONENTS_V2
            body = {k: v for k, v in body.items() if k != "flags"}
            if v2:
                body["flags"] = v2
            self._edit_message(orig, body, files, "")
            msg = orig
        else:
            msg = self._new_message(
                body, files, channel_id=ix.channel.id, kind="followup", interaction=ix, path=""
            )
            ix.followups.append(msg)
        self._notify()
        await self._announce(msg)
        if request.query.get("wait") in ("1", "true", "True"):
            return self._message_json(msg)
        return _no_content()

    def _webhook_message(self, ix: FakeInteraction, mid: str) -> FakeMessage:
        if mid == "@original":
            msg = ix.original
            if msg is None and ix.callback_type in (6, 7):
                msg = ix.message
        else:
            msg = next(
                (m for m in [ix.original, *ix.followups] if m is not None and str(m.id) == mid),
                None,
            )
        if msg is None or msg.deleted:
            raise FormError("", "Unknown Message", code=10008, status=404)
        return msg

    async def _webhook_get(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        return self._message_json(self._webhook_message(ix, request.match_info["mid"]))

    async def _webhook_patch(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        msg = self._webhook_message(ix, request.match_info["mid"])
        body, files = await self._read_body(request)
        self._edit_message(msg, body, files, "")
        self._notify()
        return self._message_json(msg)

    async def _webhook_delete(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        msg = self._webhook_message(ix, request.match_info["mid"])
        msg.deleted = True
        self._notify()
        return _no_content()

    # ------------------------------------------------------------------ REST: channels & guild

    def _channel_by_id(self, request: web.Request) -> FakeChannel:
        cid = request.match_info["cid"]
        ch = next((c for c in self.channels.values() if str(c.id) == cid), None)
        if ch is None or ch.deleted:
            raise FormError("", "Unknown Channel", code=10003, status=404)
        return ch

    def _channel_message(self, request: web.Request) -> FakeMessage:
        ch = self._channel_by_id(request)
        msg = self.messages.get(int(request.match_info["mid"]))
        if msg is None or msg.channel_id != ch.id or msg.deleted or msg.ephemeral:
            raise FormError("", "Unknown Message", code=10008, status=404)
        return msg

    async def _get_channel(self, request: web.Request) -> web.Response:
        return _json(self._channel_by_id(request).payload())

    async def _open_dm(self, request: web.Request) -> web.Response:
        body, _ = await self._read_body(request)
        uid = int(body.get("recipient_id") or 0)
        user = next((u for u in self.users.values() if u.id == uid), None)
        if user is None:
            raise FormError("recipient_id", "Unknown User", code=10013, status=400)
        cid = next((c for c, u in self.dm_channels.items() if u is user), None)
        if cid is None:
            cid = snowflake()
            self.dm_channels[cid] = user
        return _json(
            {"id": str(cid), "type": 1, "last_message_id": None, "recipients": [user.payload()]}
        )

    def dm_messages(self, user: FakeUser | str) -> list[FakeMessage]:
        """What the bot sent *user* by direct message, in order."""
        u = self.user(user)
        ids = {c for c, v in self.dm_channels.items() if v is u}
        return [
            m for m in sorted(self.messages.values(), key=lambda m: m.seq) if m.channel_id in ids
        ]

    async def _dm_post(self, request: web.Request, user: FakeUser) -> web.Response:
        body, files = await self._read_body(request)
        if user.name in self.dms_closed:
            # What Discord answers when the user accepts no DMs from the bot.
            self.dm_refusals.append(user.name)
            self._notify()
            return _json({"message": "Cannot send messages to this user", "code": 50007}, 403)
        cid = int(request.match_info["cid"])
        msg = self._new_message(
            body, files, channel_id=cid, kind="channel", interaction=None, path=""
        )
        self._notify()
        return self._message_json(msg)

    async def _channel_post(self, request: web.Request) -> web.Response:
        dm_user = self.dm_channels.get(int(request.match_info["cid"]))
        if dm_user is not None:
            return await self._dm_post(request, dm_user)
        ch = self._channel_by_id(request)
        body, files = await self._read_body(request)
        failed = self._fault("channel_post")
        if failed is not None:
            return failed
        if self._post_gate is not None:
            # Held (see hold_channel_posts): the bot is waiting for Discord's answer.
            gate = self._post_gate
            self.held_posts += 1
            self._notify()
            await gate.wait()
            if self._drop_held:
                raise FormError(
                    "", "dropped: the sender was gone before Discord answered", status=503
                )
        self._check_can_post(ch)
        nonce = body.get("nonce")
        if nonce is not None and len(str(nonce)) > 25:
            raise FormError("nonce", "must be 25 or fewer in length")
        if nonce is not None and body.get("enforce_nonce"):
            # Discord: same author and nonce within a few minutes -> that message, no new one.
            seen = self._nonces.get(str(nonce))
            if seen is not None and time.monotonic() - seen[1] < 300 and not seen[0].deleted:
                self.nonce_hits += 1
                return self._message_json(seen[0])
        if int(body.get("flags") or 0) & EPHEMERAL:
            raise FormError("flags", "a channel message cannot be ephemeral")
        msg = self._new_message(
            body, files, channel_id=ch.id, kind="channel", interaction=None, path=""
        )
        if nonce is not None:
            msg.nonce = str(nonce)
            if body.get("enforce_nonce"):
                self._nonces[str(nonce)] = (msg, time.monotonic())
        self._notify()
        await self._announce(msg)
        return self._message_json(msg)

    async def _channel_history(self, request: web.Request) -> web.Response:
        ch = self._channel_by_id(request)
        limit = int(request.query.get("limit", 50))
        before = int(request.query["before"]) if "before" in request.query else None
        after = int(request.query["after"]) if "after" in request.query else None
        msgs = [
            m
            for m in self.channel_messages(ch)
            if (before is None or m.id < before) and (after is None or m.id > after)
        ]
        msgs.sort(key=lambda m: m.id, reverse=True)
        if after is not None and before is None:
            msgs = sorted(msgs, key=lambda m: m.id)[:limit]
            msgs.reverse()
        return _json([m.payload(self.base_url, self.app_id) for m in msgs[:limit]])

    async def _channel_get_message(self, request: web.Request) -> web.Response:
        return self._message_json(self._channel_message(request))

    async def _channel_patch_message(self, request: web.Request) -> web.Response:
        msg = self._channel_message(request)
        self._check_not_archived(self._channel_by_id(request))
        body, files = await self._read_body(request)
        self._edit_message(msg, body, files, "")
        self._notify()
        return self._message_json(msg)

    async def _channel_delete_message(self, request: web.Request) -> web.Response:
        msg = self._channel_message(request)
        msg.deleted = True
        self._notify()
        return _no_content()

    async def _typing(self, request: web.Request) -> web.Response:
        self._channel_by_id(request)
        return _no_content()

    # ------------------------------------------------------------------ REST: threads

    def _check_can_post(self, ch: FakeChannel) -> None:
        """Send Messages (Send Messages in Threads in a thread); a post in an archived
        thread unarchives it unless it is locked, as on Discord."""
        need = SEND_MESSAGES_IN_THREADS if ch.is_thread else SEND_MESSAGES
        if not self.bot_permissions(ch) & need:
            raise FormError("", "Missing Permissions", code=50013, status=403)
        if ch.is_thread and ch.archived:
            if ch.locked:
                raise FormError("", "Thread is locked", code=50083, status=400)
            ch.archived = False
            self.thread_unarchives += 1
        if ch.is_thread and ch.locked and not self.bot_permissions(ch) & MANAGE_THREADS:
            raise FormError(
                "", "Missing Permissions (the thread is locked)", code=50013, status=403
            )

    def _check_not_archived(self, ch: FakeChannel) -> None:
        if ch.is_thread and ch.archived:
            raise FormError(
                "", "Operation cannot be performed on an archived thread", code=50083, status=400
            )

    def _thread_name(self, name: str) -> str:
        """The key under which a new thread is kept in ``channels`` (names can repeat)."""
        return name if name not in self.channels else f"{name} #{len(self.channels)}"

    async def _start_thread(self, request: web.Request) -> web.Response:
        parent = self._channel_by_id(request)
        body, _ = await self._read_body(request)
        if parent.is_thread:
            raise FormError("", "Cannot execute action on this channel type", code=50024)
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            raise FormError("name", "Must be between 1 and 100 in length.")
        duration = body.get("auto_archive_duration", 4320)
        if duration not in (60, 1440, 4320, 10080):
            raise FormError("auto_archive_duration", "one of 60, 1440, 4320, 10080 minutes")
        starter = None
        if "mid" in request.match_info:
            starter = self._channel_message(request)
            if self.thread_of(starter) is not None:
                raise FormError(
                    "", "A thread has already been created for this message", code=160004
                )
            kind = 11
        else:
            kind = body.get("type")
            if kind not in (11, 12):
                raise FormError("type", "a thread is type 11 (public) or 12 (private)")
        need = CREATE_PUBLIC_THREADS if kind == 11 else CREATE_PRIVATE_THREADS
        if not self.bot_permissions(parent) & need:
            raise FormError("", "Missing Permissions", code=50013, status=403)
        thread = FakeChannel(
            starter.id if starter is not None else snowflake(),
            name,
            parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            thread_type=kind,
            members={self.bot_user.id},
            starter_message_id=starter.id if starter is not None else None,
            auto_archive_duration=duration,
        )
        self.channels[self._thread_name(name)] = thread
        self._notify()
        await self._dispatch(
            "THREAD_CREATE",
            {**thread.payload(), "newly_created": True},
            self._conn_for(thread.guild_id),
        )
        return _json(thread.payload(), 201)

    def _thread(self, request: web.Request) -> FakeChannel:
        ch = self._channel_by_id(request)
        if not ch.is_thread:
            raise FormError("", "Cannot execute action on this channel type", code=50024)
        return ch

    def _member_id(self, request: web.Request) -> int:
        uid = request.match_info["uid"]
        if uid == "@me":
            return self.bot_user.id
        if not any(str(u.id) == uid for u in self._all_members()):
            raise FormError("", "Unknown Member", code=10007, status=404)
        return int(uid)

    async def _thread_members(self, request: web.Request) -> web.Response:
        ch = self._thread(request)
        return _json(
            [
                {
                    "id": str(ch.id),
                    "user_id": str(uid),
                    "join_timestamp": iso_now(),
                    "flags": 0,
                }
                for uid in sorted(ch.members)
            ]
        )

    async def _thread_member_put(self, request: web.Request) -> web.Response:
        ch = self._thread(request)
        uid = self._member_id(request)
        self._check_not_archived(ch)
        if uid != self.bot_user.id and not self.bot_permissions(ch) & SEND_MESSAGES_IN_THREADS:
            raise FormError("", "Missing Permissions", code=50013, status=403)
        ch.members.add(uid)
        self._notify()
        return _no_content()

    async def _thread_member_delete(self, request: web.Request) -> web.Response:
        ch = self._thread(request)
        uid = self._member_id(request)
        self._check_not_archived(ch)
        ch.members.discard(uid)
        self._notify()
        return _no_content()

    async def _patch_channel(self, request: web.Request) -> web.Response:
        """Modify Channel, for threads: ``archived``, ``locked``, ``name``,
        ``auto_archive_duration`` (as the thread's creator may)."""
        ch = self._thread(request)
        body, _ = await self._read_body(request)
        unknown = set(body) - {"archived", "locked", "name", "auto_archive_duration"}
        if unknown:
            raise FormError(sorted(unknown)[0], "not faked for threads")
        may = bool(self.bot_permissions(ch) & MANAGE_THREADS)  # unarchives a locked thread
        if ch.locked and body.get("archived") is False and not may:
            raise FormError(
                "", "Missing Permissions (the thread is locked)", code=50013, status=403
            )
        if "name" in body:
            if not isinstance(body["name"], str) or not 1 <= len(body["name"]) <= 100:
                raise FormError("name", "Must be between 1 and 100 in length.")
            ch.name = body["name"]
        if "archived" in body:
            if ch.archived and not body["archived"]:
                self.thread_unarchives += 1
            ch.archived = bool(body["archived"])
        if "locked" in body:
            ch.locked = bool(body["locked"])
        if "auto_archive_duration" in body:
            ch.auto_archive_duration = int(body["auto_archive_duration"])
        self._notify()
        await self._dispatch("THREAD_UPDATE", ch.payload(), self._conn_for(ch.guild_id))
        return _json(ch.payload())

    async def _delete_channel(self, request: web.Request) -> web.Response:
        ch = self._thread(request)
        if not self.bot_permissions(ch) & MANAGE_THREADS and ch.owner_id != self.bot_user.id:
            raise FormError("", "Missing Permissions", code=50013, status=403)
        payload = ch.payload()
        await self.delete_thread(ch)
        return _json(payload)

    def _check_guild(self, request: web.Request) -> int:
        gid = request.match_info["gid"]
        if not gid.isdigit() or int(gid) not in self.guild_ids:
            raise FormError("", "Unknown Guild", code=10004, status=404)
        return int(gid)

    def _guild_of(self, channel_id: int) -> int:
        return next((c.guild_id for c in self.channels.values() if c.id == channel_id), 0)

    async def _get_guild(self, request: web.Request) -> web.Response:
        return _json(self._guild_payload(full=False, guild_id=self._check_guild(request)))

    async def _get_guild_channels(self, request: web.Request) -> web.Response:
        return _json(self._guild_channels(self._check_guild(request), threads=False))

    async def _get_roles(self, request: web.Request) -> web.Response:
        return _json(self._roles(self._check_guild(request)))

    async def _get_member(self, request: web.Request) -> web.Response:
        self._check_guild(request)
        uid = request.match_info["uid"]
        for u in self._all_members():
            if str(u.id) == uid:
                return _json(self._member_payload(u))
        raise FormError("", "Unknown Member", code=10007, status=404)

    async def _get_attachment(self, request: web.Request) -> web.Response:
        aid = int(request.match_info["aid"])
        for m in self.messages.values():
            for a in m.attachments:
                if a.id == aid:
                    return web.Response(
                        body=a.data,
                        headers={"Content-Type": a.content_type or "application/octet-stream"},
                    )
        raise web.HTTPNotFound()


__all__ = [
    "CommandMismatch",
    "FakeDiscord",
    "FakeInteraction",
    "ProtocolTimeout",
]
