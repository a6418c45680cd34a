"""End-to-end harness (helpers; fixtures are in conftest.py): the real ``python -m bot`` process against the fake Discord.

The bot runs unmodified in its own process (settings from docs/bot.md); the
test plays the users through ``tests.fakediscord`` and keeps its own
``engine.Game`` mirror of the game, replaying exactly the actions it sends, so
it can choose legal actions and check what the bot reports.
"""

from __future__ import annotations

import asyncio
import io
import re
import sqlite3
from pathlib import Path
from typing import Any

from tests.fakediscord import BotProcess, FakeDiscord, FakeInteraction, FakeMessage, FakeUser

SEED = 20261129
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TIMEOUT = 20.0  # per awaited bot message: generous, the bot is usually 10-100x faster
CUSTOM_ID = re.compile(r"^torres:(\d+):(\d+):(play|end|undo|hand)$")


def check_png(data: bytes) -> tuple[int, int]:
    """The bytes are a PNG Pillow can decode fully; returns its size."""
    from PIL import Image

    assert data[:8] == PNG_SIGNATURE, f"not a PNG: {data[:16]!r}"
    with Image.open(io.BytesIO(data)) as img:
        img.load()
        assert img.format == "PNG"
        width, height = img.size
    assert width >= 200 and height >= 200, f"suspiciously small board picture {width}x{height}"
    return width, height


def check_gif(data: bytes) -> int:
    """The bytes are an animated GIF Pillow can decode fully; returns its frame count."""
    from PIL import Image

    assert data[:6] in (b"GIF87a", b"GIF89a"), f"not a GIF: {data[:16]!r}"
    with Image.open(io.BytesIO(data)) as img:
        assert img.format == "GIF"
        frames = getattr(img, "n_frames", 1)
        for i in range(frames):
            img.seek(i)
            img.load()
    return frames


# Commands the bot answers in one request when quick (bot.client.cog.answer_in_time): a
# deferral ("thinking…", type 5) is allowed only once ANSWER_WITHIN (1 s) has passed.
ANSWERED_IN_TIME = {
    "new",
    "join",
    "leave",
    "start",
    "play",
    "undo",
    "hand",
    "board",
    "resign",
    "cancel",
}
DEFERRED_NOT_BEFORE = 0.9  # seconds: bot.client.cog.ANSWER_WITHIN, less the clocks' granularity


def check_answered_in_time(ix: FakeInteraction) -> None:
    """A quick command is answered with its reply (4), not deferred (5) then followed up."""
    path = ix.data.get("options") or [{}]
    if path[0].get("name") not in ANSWERED_IN_TIME:
        return
    took = ix.callback_latency
    assert ix.callback_type == 4 or (
        ix.callback_type == 5 and took is not None and took >= DEFERRED_NOT_BEFORE
    ), f"{ix.describe()} deferred after {took} s (callback {ix.callback_type})"


class BotRunner:
    """One fake Discord and the bot process (restartable, on the same database)."""

    def __init__(self, fake: FakeDiscord, db: Path, log: Path, extra_env: dict[str, str]) -> None:
        self.fake = fake
        self.db = db
        self.log = log
        self.extra_env = extra_env
        self.proc: BotProcess | None = None
        self.starts = 0
        # Substrings of ERROR log lines a test provokes on purpose; any other is a failure.
        self.expected_log_errors: list[str] = []
        # Interactions in flight when the bot was killed: left "thinking…" on purpose.
        self.abandoned: set[int] = set()

    def env(self) -> dict[str, str]:
        return {
            **self.fake.env(),
            "DISCORD_TOKEN": "e2e-fake-token",
            "TORRES_DB": str(self.db),
            "TORRES_GUILD_READY_TIMEOUT": "0.1",
            "TORRES_SEED": str(SEED),
            "TORRES_LOG_LEVEL": "INFO",
            "TORRES_AI_SECONDS": "0.2",
            # "{guild}" in a test's extra settings stands for the fake guild's id.
            **{k: v.format(guild=self.fake.guild_id) for k, v in self.extra_env.items()},
        }

    syncs = True  # the process syncs the slash commands at start-up

    def connected(self) -> bool:
        return self.fake.connected

    async def start(self) -> None:
        before = self.fake.identify_count
        self.proc = await BotProcess(["-m", "bot"], env=self.env(), log_path=self.log).start()
        self.starts += 1
        try:
            await self.fake.wait_until(
                lambda: self.fake.identify_count > before and self.connected(),
                40,
                "the bot to connect",
            )
            if self.syncs:
                await self.fake.wait_synced(20, names=["torres"])
        except AssertionError as e:
            raise AssertionError(f"{e}\n--- bot log ---\n{self.proc.log_text()}") from None

    async def kill(self) -> None:
        """SIGKILL the bot's main process only, as the OOM killer would; nothing may outlive it."""
        assert self.proc is not None
        await self.proc.kill()
        await self.fake.wait_until(
            lambda: not self.fake.connected, 10, "the gateway to notice the kill"
        )
        survivors = await self.proc.reap_group(10)
        assert survivors == [], f"processes of the killed bot were left running: {survivors}"

    async def restart_after_kill(self) -> None:
        await self.kill()
        await self.start()

    async def stop(self) -> None:
        """SIGTERM (graceful); the bot and its workers must all exit."""
        if self.proc is not None:
            await self.proc.stop()
            survivors = await self.proc.reap_group(10)
            assert survivors == [], f"processes of the stopped bot were left running: {survivors}"

    def log_text(self) -> str:
        return self.proc.log_text(20000) if self.proc else ""

    async def wait_for_log(self, text: str, timeout: float) -> None:
        """Until the bot's log has a line containing *text* (the bot's own evidence of
        something it did not show on Discord); AssertionError after *timeout*."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while text not in self.log.read_text(errors="replace"):
            if loop.time() > deadline:
                raise AssertionError(f"no {text!r} in the bot's log after {timeout} s")
            await asyncio.sleep(0.05)

    def unexpected_log_errors(self) -> list[str]:
        """ERROR lines and tracebacks in the bot's log that no test asked for."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return []
        bad = []
        for line in text.splitlines():
            if (" ERROR " in line or "CRITICAL" in line) and not any(
                e in line for e in self.expected_log_errors
            ):
                bad.append(line)
        if "Traceback" in text and not self.expected_log_errors:
            bad.append("a Traceback")
        return bad

    def db_row(self, sql: str, *args: Any) -> Any:
        """Read the bot's database independently (read-only), for what docs/bot.md documents."""
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            return conn.execute(sql, args).fetchone()
        finally:
            conn.close()


class Table:
    """Helpers over one channel of the fake, for a game between known users."""

    def __init__(self, runner: BotRunner, channel: str = "games") -> None:
        self.runner = runner
        self.fake = runner.fake
        self.channel = self.fake.channels[channel]
        self.lobby: FakeMessage | None = None  # the lobby card of a game in a thread

    def user(self, name: str) -> FakeUser:
        return self.fake.users[name]

    async def slash(
        self, who: str, sub: str, **options: Any
    ) -> tuple[FakeInteraction, FakeMessage]:
        """Run ``/torres sub`` and return it with its private reply (checked private)."""
        ix = await self.fake.slash(who, self.channel, "torres", sub, **options)
        reply = await ix.reply(TIMEOUT)
        assert reply.ephemeral and reply.viewer is self.user(who), f"reply not private: {reply!r}"
        check_answered_in_time(ix)
        if sub == "new":
            # A new game plays in a thread of its own (the default): the table moves there,
            # as its players do; its lobby card stays in the channel (``lobby``).
            card = next((m for m in ix.messages if self.fake.thread_of(m)), None)
            if card is None:
                card = next(
                    (
                        m
                        for m in self.fake.channel_messages(self.channel)
                        if m.seq > ix.sent_seq and self.fake.thread_of(m) is not None
                    ),
                    None,
                )
            if card is not None:
                self.lobby = card
                self.channel = self.fake.thread_of(card) or self.channel
        return ix, reply

    async def confirmed(
        self, who: str, sub: str, **options: Any
    ) -> tuple[FakeInteraction, FakeMessage]:
        """``/torres resign`` or ``cancel``, then Confirm if asked (a refusal comes as is)."""
        ix, reply = await self.slash(who, sub, **options)
        yes = next((b for b in reply.buttons if (b.custom_id or "").endswith(":yes")), None)
        if yes is None:
            return ix, reply
        ix = await self.fake.click(who, reply, yes.custom_id or "")
        reply = await ix.reply(TIMEOUT)
        # 7: answered in place; 6 then an edit: acknowledged first (slow work).
        assert ix.callback_type in (6, 7) and reply.buttons == [], reply
        return ix, reply

    async def click(
        self, who: str, message: FakeMessage, action: str, *, confirm: bool = True
    ) -> tuple[FakeInteraction, FakeMessage]:
        button = next(
            b for b in message.buttons if b.custom_id and b.custom_id.endswith(":" + action)
        )
        ix = await self.fake.click(who, message, button.custom_id or "")
        reply = await ix.reply(TIMEOUT)
        assert reply.ephemeral and reply.viewer is self.user(who), f"reply not private: {reply!r}"
        if action == "end" and confirm and "End your turn anyway?" in reply.text:
            # With AP left, End turn asks first (docs/bot.md): confirm it.
            yes = next(b for b in reply.buttons if (b.custom_id or "").endswith(":yes"))
            ix = await self.fake.click(who, reply, yes.custom_id or "")
            reply = await ix.reply(TIMEOUT)
            # 7: answered in place; 6 then an edit: acknowledged first (slow work).
            assert ix.callback_type in (6, 7) and reply.buttons == [], reply
        return ix, reply

    async def public_after(self, ix: FakeInteraction, what: str, pred: Any = None) -> FakeMessage:
        return await self.fake.wait_for_message(
            pred or (lambda m: True),
            channel=self.channel,
            after=ix,
            public=True,
            timeout=TIMEOUT,
            what=f"{what} (after {ix.describe()})",
        )

    def public_since(self, seq: int) -> list[FakeMessage]:
        return [m for m in self.fake.channel_messages(self.channel) if m.seq > seq]


async def open_game(
    t: Table, *, players: int = 2, bots: int = 0, joiners: tuple[str, ...] = ("bob",)
) -> int:
    """alice opens a game, ``joiners`` join, alice starts it; returns the game id."""
    _, reply = await t.slash("alice", "new", players=players, bots=bots)
    m = re.search(r"game #(\d+)", reply.text)
    assert m, reply.text
    for who in joiners:
        _, joined = await t.slash(who, "join")
        assert "You joined" in joined.text, joined.text
    _, reply = await t.slash("alice", "start")
    assert f"Game #{m.group(1)} started" in reply.text, reply.text
    return int(m.group(1))


async def play_setup(t: Table, game: Any, seats: dict[str, str]) -> FakeMessage:
    """Play the setup decisions (first legal choice) until the first turn; returns its turn message."""
    post = None
    while game.stage != "play":
        action = game.legal()[0]
        ix, reply = await t.slash(seats[game.to_move], "play", actions=action)
        assert reply.text == "Your turn is over.", reply.text
        game.play(action)
        post = await t.public_after(ix, "the setup turn message", lambda m: bool(m.attachments))
    assert post is not None
    return post


async def play_the_computer(t: Table, runner: BotRunner) -> FakeMessage:
    """alice opens a game against one computer and ends each turn at once (the first
    legal choice in setup) until it is over; returns the "**Game over!**" post, the
    moment it comes (the animation and the chart follow in a post of their own)."""
    import json

    from engine import Game

    await t.slash("alice", "new", players=2, bots=1)
    await t.slash("alice", "start")
    seen = 0
    while True:
        post = await t.fake.wait_for_message(
            lambda m: bool(m.attachments), channel=t.channel, public=True, after=seen,
            timeout=TIMEOUT, what="the next turn message",
        )  # fmt: skip
        seen = post.seq
        if "**Game over!**" in post.text:
            return post
        if t.user("alice").id in post.pinged_ids:
            [position] = runner.db_row("SELECT position FROM games WHERE id = ?", 1)
            legal = Game.from_position(json.loads(position)).legal()
            await t.slash("alice", "play", actions="end" if "end" in legal else legal[0])


class PanelDriver:
    """A player tapping through the private play panel, counting taps.

    A tap is one press of a button or one choice in a select menu (opening a
    select to look at it is not counted: Discord sends nothing for that).
    """

    def __init__(self, fake: FakeDiscord, who: str) -> None:
        self.fake = fake
        self.who = who
        self.taps = 0
        self.panel: FakeMessage | None = None
        self.seen: list[str] = []  # every state of the panel, as the player read it
        self.latencies: list[float] = []  # seconds from each tap to the panel's update
        self.opened_in: float | None = None  # seconds from Play to the panel
        self.uploads = 0  # taps answered with a new picture
        self.group_taps: list[str] = []  # the kind of action each what-choice led to
        self.upload_bytes = 0

    async def open(self, turn_message: FakeMessage, button: str = "play") -> FakeMessage:
        """Press Play (or *button*: Undo) on a turn message; the panel arrives privately."""
        play = next(b for b in turn_message.buttons if (b.custom_id or "").endswith(":" + button))
        ix = await self.fake.click(self.who, turn_message, play.custom_id or "")
        self.taps += 1
        panel = await ix.reply(TIMEOUT)
        assert panel.ephemeral and panel.viewer is self.fake.users[self.who], panel
        # 4: answered at once; 5 then a follow-up: acknowledged first (slow work).
        assert ix.callback_type in (4, 5), f"Play answered with callback {ix.callback_type}"
        self.opened_in = ix.callback_latency
        self.panel = panel
        self.seen.append(panel.text)
        return panel

    def find(self, value: str) -> str | None:
        """The custom id of the select offering *value*, if the panel shows one."""
        assert self.panel is not None
        for sel in self.panel.selects:
            if any(o["value"] == value for o in sel.get("options", [])):
                return sel["custom_id"]
        return None

    def values(self) -> list[str]:
        assert self.panel is not None
        return [o["value"] for s in self.panel.selects for o in s.get("options", [])]

    async def tap(self, custom_id: str, value: str | list[str] | None = None) -> FakeInteraction:
        """One tap on the panel (one choice of a select, of one or several values); it
        must be answered by editing the panel in place."""
        assert self.panel is not None
        before = self.panel.edits
        pictures = {a.id for a in self.panel.attachments}
        values = [value] if isinstance(value, str) else value
        ix = await self.fake.click(self.who, self.panel, custom_id, values=values)
        self.taps += 1
        await ix.reply(TIMEOUT)  # 7, or 6 then an edit when the work was slow
        assert ix.callback_type in (6, 7), f"{ix.describe()} answered with {ix.callback_type}"
        assert ix.messages == [], f"the panel tap made new messages: {ix.messages}"
        assert self.panel.edits == before + 1
        self.seen.append(self.panel.text)
        new = [a for a in self.panel.attachments if a.id not in pictures]
        self.uploads += bool(new)
        self.upload_bytes += sum(len(a.data) for a in new)
        if ix.callback_latency is not None:
            self.latencies.append(ix.callback_latency)
        return ix

    def button(self, op: str) -> str:
        assert self.panel is not None
        cid = next(
            (b.custom_id for b in self.panel.buttons if (b.custom_id or "").endswith(":" + op)),
            None,
        )
        assert cid, f"the panel has no {op!r} button: {[b.custom_id for b in self.panel.buttons]}"
        return cid

    async def do(self, action: str) -> FakeInteraction:
        """Choose *action* the shortest way: straight from a select, else its group first
        (and, for a card with many sources, the source square next)."""
        from bot.core.panel import DO

        value = DO + action
        chosen: set[str] = set()
        for _ in range(3):
            cid = self.find(value)
            if cid is not None:
                return await self.tap(cid, value)
            chosen.add(await self._open_group(action, chosen))
        raise AssertionError(f"{action!r} not reached in three choices: {self.values()}")

    async def play(self, game: Any, actions: list[str], *, suggest: bool = False) -> None:
        """Play *actions* (one decision's, canonical single actions, from *game*'s
        position) the way a player who knows them would: each tap takes the option that
        covers most of what is left (a knight's path, several blocks in one choice,
        ``score N``); a path the panel lists by another way counts if it ends in the
        same position. *suggest*: first ask 💡, and take the suggestion if it is
        exactly these actions."""
        from bot.core.actions import split_actions
        from bot.core.panel import DO

        work = game.copy()
        todo = list(tidy(game, actions))
        if suggest:
            await self.tap(self.button("hint"))
            assert self.panel is not None
            for sel in self.panel.selects:
                if sel["custom_id"].endswith(":do0") and len(sel.get("options", [])) == 1:
                    value = sel["options"][0]["value"]
                    if split_actions(value[len(DO) :]) == todo:
                        await self.tap(sel["custom_id"], value)
                        return
        groups = 0
        while todo and todo[0] != "end":
            best = self._best(work, todo)
            if best is None:
                assert groups < 3, f"{todo[0]!r} not reached in three choices: {self.values()}"
                await self._open_group(todo[0])
                groups += 1
                continue
            groups = 0
            cid, values, n = best
            await self.tap(cid, values)
            work.play("; ".join(todo[:n]))
            del todo[:n]
        if todo:
            await self.end()

    def _best(self, work: Any, todo: list[str]) -> tuple[str, list[str], int] | None:
        """The choice on the panel that plays the longest start of *todo*."""
        from bot.core.actions import split_actions
        from bot.core.panel import DO

        assert self.panel is not None
        best: tuple[str, list[str], int] | None = None
        for sel in self.panel.selects:
            cid, options = sel["custom_id"], sel.get("options", [])
            offered = [o["value"] for o in options if o["value"].startswith(DO)]
            many = sel.get("max_values", 1)
            builds = []  # several blocks in one choice: the plan's next builds, in order
            for a in todo:
                if not a.startswith("build ") or DO + a not in offered or DO + a in builds:
                    break
                builds.append(DO + a)
            if len(builds) > 1 and many > 1:
                take = builds[:many]
                if best is None or len(take) > best[2]:
                    best = (cid, take, len(take))
            for value in offered:
                acts = split_actions(value[len(DO) :])
                n = len(acts)
                if n > len(todo) or (best is not None and n <= best[2]):
                    continue
                if acts == todo[:n] or _same_end(work, acts, todo[:n]):
                    best = (cid, [value], n)
        return best

    async def _open_group(self, action: str, chosen: set[str] | None = None) -> str:
        """Choose, on the what select (or a source select), the group holding *action*
        (not one already open, or in *chosen*); returns its value."""
        from bot.core.panel import WHAT

        assert self.panel is not None
        groups = [
            (s["custom_id"], o["value"])
            for s in self.panel.selects
            for o in s.get("options", [])
            if o["value"].startswith(WHAT)
            and not o.get("default")
            and o["value"] not in (chosen or ())
            and (action + " ").startswith(o["value"][len(WHAT) :] + " ")
        ]
        assert groups, f"{action!r} is nowhere on the panel: {self.values()}\n{self.seen[-3:]}"
        gcid, gval = max(groups, key=lambda g: len(g[1]))
        await self.tap(gcid, gval)
        self.group_taps.append(action.split()[0])
        return gval

    async def end(self) -> None:
        """End turn, confirming if asked (AP left)."""
        await self.tap(self.button("end"))
        assert self.panel is not None
        if any((b.custom_id or "").endswith(":endok") for b in self.panel.buttons):
            await self.tap(self.button("endok"))


def tidy(game: Any, actions: list[str]) -> list[str]:
    """*actions* as a player would tap them: the stack named first and the score steps
    together at the end (before a closing ``draw`` or ``end``), if the engine says
    that leads to the same position; else as given."""
    body, tail = list(actions), []
    while body and body[-1] in ("end", "draw"):
        tail.insert(0, body.pop())
    order = {"stack": 0, "score": 2}
    tidied = sorted(body, key=lambda a: order.get(a.split()[0], 1)) + tail
    return tidied if _same_position(game, actions, tidied) else actions


def _same_end(work: Any, a: list[str], b: list[str]) -> bool:
    """Whether a knight's path *a* the panel lists by other squares than the player's
    *b* ends in the same position."""
    return a[0].split()[0] == b[0].split()[0] == "move" and _same_position(work, a, b)


def _same_position(game: Any, a: list[str], b: list[str]) -> bool:
    """Whether actions *a* and *b*, both legal, lead *game* to the same position."""
    one, two = game.copy(), game.copy()
    try:
        one.play("; ".join(a))
        two.play("; ".join(b))
    except Exception:
        return False
    return bool(one.position() == two.position())


def compress_scores(actions: list[str]) -> list[str]:
    """``score; score`` as ``score 2``: the panel offers several steps as one choice."""
    out: list[str] = []
    for a in actions:
        if a == "score" and out and out[-1].startswith("score"):
            words = out[-1].split()
            n = int(words[1]) if len(words) > 1 else 1
            out[-1] = f"score {n + 1}"
        else:
            out.append(a)
    return out
