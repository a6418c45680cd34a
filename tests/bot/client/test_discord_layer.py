"""The Discord layer without a network: the command contract, buttons, settings, start-up errors."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import discord
import pytest
import uvloop

from bot.__main__ import _loop_factory
from bot.client import replies
from bot.client.app import TorresBot
from bot.client.cards import card_buttons
from bot.client.views import TEMPLATE, TurnButton, turn_view
from bot.core.batch import MESSAGE_LIMIT
from bot.core.config import BotConfig, ConfigError
from bot.core.outbox import FORBIDDEN, POSTED, REJECTED, RETRY
from bot.core.review import Summary
from bot.core.service import GameService, rank_actions
from bot.texts.rules import TOPICS, rules_text
from tests.bot.conftest import Env
from tests.bot.recording_channel import RecordingChannel

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def bot(env: Env) -> TorresBot:
    return TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)


def _options(payload: list[dict], name: str) -> dict[str, dict]:
    (group,) = payload
    sub = next(o for o in group["options"] if o["name"] == name)
    return {o["name"]: o for o in sub.get("options", [])}


def test_command_contract(bot: TorresBot):
    """/torres has exactly the subcommands and options of the issue's table."""
    payload = bot.command_payload()
    assert [c["name"] for c in payload] == ["torres"]
    subs = {o["name"] for o in payload[0]["options"]}
    assert subs == {
        "new",
        "join",
        "leave",
        "start",
        "play",
        "undo",
        "board",
        "hand",
        "rules",
        "resign",
        "cancel",
        # bot.core.home (issue 10)
        "games",
        "history",
        "export",
        "stats",
        "leaderboard",
        "settings",
        "away",
        # bot.client.review_views (issue 36)
        "review",
        # the tutorial (issue 36)
        "learn",
    }
    review = _options(payload, "review")
    assert review["game"]["type"] == 4 and review["player"]["type"] == 6  # integer, user
    assert not any(o.get("required") for o in review.values())
    learn = _options(payload, "learn")
    assert learn["restart"]["type"] == 5 and not learn["restart"].get("required")
    assert payload[0].get("contexts") == [0] or payload[0].get("dm_permission") is False
    new = _options(payload, "new")
    assert (new["players"]["min_value"], new["players"]["max_value"]) == (2, 4)
    assert (new["bots"]["min_value"], new["bots"]["max_value"]) == (0, 3)
    assert [c["value"] for c in new["variant"]["choices"]] == ["common", "personal", "master"]
    assert not any(o.get("required") for o in new.values())
    play = _options(payload, "play")
    assert play["actions"]["required"] and play["actions"]["autocomplete"]
    rules = _options(payload, "rules")
    assert [c["value"] for c in rules["topic"]["choices"]] == list(TOPICS)
    assert [c["value"] for c in new["clock"]["choices"]] == [1, 24, 72, 168]
    assert [c["value"] for c in new["language"]["choices"]] == ["en", "de", "nl"]
    for name in ("join", "leave", "start", "undo", "hand", "resign", "cancel"):
        assert _options(payload, name) == {}
    for name in ("games", "history", "leaderboard"):
        assert _options(payload, name) == {}
    board = _options(payload, "board")
    assert board["game"]["min_value"] == 1 and board["decision"]["min_value"] == 0
    assert not any(o.get("required") for o in board.values())
    assert _options(payload, "export")["game"]["min_value"] == 1
    assert _options(payload, "stats")["player"]["type"] == 6
    assert _options(payload, "settings")["dm"]["type"] == 5
    away = _options(payload, "away")["days"]
    assert (away["min_value"], away["max_value"], away["required"]) == (0, 14, True)


def test_turn_buttons_round_trip():
    """Custom ids follow the template, stay under 100 characters and parse back."""
    view = turn_view(123456789, 4321, ("end", "undo", "hand"))
    ids = [item.custom_id for item in view.children]
    assert ids == [
        "torres:123456789:4321:end",
        "torres:123456789:4321:undo",
        "torres:123456789:4321:hand",
    ]
    assert [item.item.label for item in view.children] == ["End turn", "Undo", "My hand"]
    for custom_id in ids:
        assert len(custom_id) <= 100 and re.fullmatch(TEMPLATE, custom_id)
    assert re.fullmatch(TEMPLATE, "torres:1:2:resign") is None
    assert TurnButton(1, 2, "undo").action == "undo"


def test_settings_from_the_environment():
    """Defaults, overrides, and one clear message per bad variable."""
    cfg = BotConfig.from_env({"DISCORD_TOKEN": " t "})
    assert (cfg.token, cfg.db_path, cfg.reminder_seconds, cfg.reminder_count) == (
        "t",
        "./torres.db",
        86400.0,
        3,
    )
    # Pictures are drawn in processes of their own by default; 0 means threads.
    assert cfg.render_processes == max(1, min(2, os.cpu_count() or 1))
    assert (
        BotConfig.from_env({"DISCORD_TOKEN": "t", "TORRES_RENDER_PROCESSES": "0"}).render_processes
        == 0
    )
    # uvloop's event loop by default (installed with the bot); asyncio's on request.
    assert cfg.event_loop == "uvloop"
    assert _loop_factory(cfg.event_loop) is uvloop.new_event_loop
    plain = BotConfig.from_env({"DISCORD_TOKEN": "t", "TORRES_EVENT_LOOP": "asyncio"})
    assert _loop_factory(plain.event_loop) is None
    with pytest.raises(ConfigError, match="TORRES_EVENT_LOOP must be one of uvloop, asyncio"):
        BotConfig.from_env({"DISCORD_TOKEN": "t", "TORRES_EVENT_LOOP": "trio"})
    cfg = BotConfig.from_env(
        {
            "DISCORD_TOKEN": "t",
            "TORRES_AI_SECONDS": "0.2",
            "TORRES_SEED": "5",
            "TORRES_DB": "/data/x.db",
        }
    )
    assert (cfg.ai_seconds, cfg.seed, cfg.db_path) == (0.2, 5, "/data/x.db")
    with pytest.raises(ConfigError, match="DISCORD_TOKEN is not set"):
        BotConfig.from_env({})
    with pytest.raises(ConfigError, match="TORRES_REMINDER_COUNT must be a whole number"):
        BotConfig.from_env({"DISCORD_TOKEN": "t", "TORRES_REMINDER_COUNT": "lots"})
    with pytest.raises(ConfigError, match="TORRES_REMINDER_SECONDS must be at least"):
        BotConfig.from_env({"DISCORD_TOKEN": "t", "TORRES_REMINDER_SECONDS": "0"})


def test_missing_token_is_one_line_and_exit_1(tmp_path):
    """`python -m bot` without a token says so in one line and exits 1."""
    env = {"PATH": "/usr/bin:/bin", "TORRES_DB": str(tmp_path / "x.db")}
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "error: DISCORD_TOKEN is not set: put the bot token from the Discord developer "
        "portal in the DISCORD_TOKEN environment variable."
    ]
    assert not (tmp_path / "x.db").exists()


def test_unusable_database_is_one_line_and_exit_1(tmp_path):
    """A database path that cannot be opened: one line, exit 1, no traceback."""
    env = {
        "PATH": "/usr/bin:/bin",
        "DISCORD_TOKEN": "t",
        "TORRES_DB": str(tmp_path / "missing-dir" / "x.db"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"error: cannot create the database {tmp_path / 'missing-dir' / 'x.db'}: "
        f"the directory {tmp_path / 'missing-dir'} does not exist"
    ]


def test_rules_topics_fit_in_a_message():
    """Every topic fits Discord's 2000 characters; an unknown topic falls back to the overview."""
    from bot.texts.i18n import LANGUAGES
    from bot.texts.rules import topic_text

    for lang in LANGUAGES:
        for key in TOPICS:
            assert len(topic_text(lang, key)) <= 2000
    overview = rules_text(None)
    assert overview.startswith("**Torres in brief**") and overview.endswith("*notation*, *undo*.")
    assert rules_text("SCORING") == TOPICS["scoring"]
    assert rules_text("chess").startswith("No rules topic called 'chess'")


def test_rank_actions_keeps_every_kind_and_end():
    """With more than 25 legal actions every kind is represented and `end` is offered."""
    legal = sorted(
        [f"build {f}{r}" for f in "abcdefgh" for r in "1234"]
        + [f"move c3 {s}" for s in ("c2", "c4", "b3", "d3")]
        + ["knight d4", "draw", "end", "score"]
    )
    ranked = rank_actions(legal)
    assert len(ranked) == 25 and "end" in ranked
    assert {a.split()[0] for a in ranked} == {"build", "move", "knight", "draw", "end", "score"}
    assert ranked[0].startswith("build") and ranked[-1] == "end"
    assert rank_actions(["end", "score"]) == ["score", "end"]


def test_service_has_no_discord_import():
    """The service and store stay free of Discord (the layering the brief asks for)."""
    modules = ["core/service", "core/actions", "texts/posts", "core/errors", "texts/rules"]
    modules += [f"db/{p.stem}" for p in (ROOT / "bot" / "db").glob("*.py")]
    assert "db/sqlite" in modules and "db/postgres" in modules
    for module in modules:
        source = (ROOT / "bot" / f"{module}.py").read_text()
        assert "import discord" not in source, module
    assert GameService.__module__ == "bot.core.service"


async def test_a_post_goes_out_even_if_the_picture_fails(bot: TorresBot, monkeypatch):
    """The move is already saved: a drawing failure must not turn into an error for the user."""
    from bot.core.service import Post

    channel = RecordingChannel()
    monkeypatch.setattr(bot, "get_channel", lambda _id: channel)

    async def broken(*args: object) -> tuple[bytes, str | None]:
        raise ValueError("bad position")

    monkeypatch.setattr(bot.renderer, "picture", broken)
    post = Post(
        1,
        7,
        "**red** played `end`",
        position={"format": "x"},
        turn=3,
        buttons=("end", "undo", "hand"),
        mentions=(42,),
    )
    assert await bot.send_post(post) == POSTED
    ((text, kwargs),) = channel.sent
    assert text.startswith("**red** played `end`") and "could not be drawn" in text
    assert "file" not in kwargs
    assert card_buttons(kwargs["view"])[0] == "torres:7:3:end"
    assert [u.id for u in kwargs["allowed_mentions"].users] == [42]


async def test_a_post_carries_board_png_and_pings_only_its_mentions(bot: TorresBot, monkeypatch):
    """The picture is attached as board.png; nobody but the named users is pinged."""
    from bot.core.service import Post

    channel = RecordingChannel()
    monkeypatch.setattr(bot, "get_channel", lambda _id: channel)

    async def fake_picture(
        position: object,
        viewer: object,
        highlight: object,
        note: object = None,
        labels=None,
        language: str = "en",
    ) -> tuple[bytes, str | None]:
        assert viewer is None and sorted(highlight) == ["c3", "d3"]  # type: ignore[arg-type]
        assert language == "en"  # the game's
        return b"\x89PNG fake", "the board in words"

    monkeypatch.setattr(bot.renderer, "picture", fake_picture)
    post = Post(
        1,
        7,
        "text <@42> <@43>",
        position={"p": 1},
        highlight=frozenset({"d3", "c3"}),
        mentions=(42,),
    )
    assert await bot.send_post(post) == POSTED
    ((_, kwargs),) = channel.sent
    assert [f.filename for f in kwargs["files"]] == ["board.png"]
    assert [f.description for f in kwargs["files"]] == ["the board in words"]
    mentions = kwargs["allowed_mentions"]
    assert [u.id for u in mentions.users] == [42] and not mentions.everyone and not mentions.roles
    assert card_buttons(kwargs["view"]) == []  # a card (Components V2) without buttons
    (gallery,) = [c for c in kwargs["view"].to_components()[0]["components"] if c["type"] == 12]
    assert gallery["items"][0]["description"] == "the board in words"


async def test_queued_posts_carry_a_stable_nonce(bot: TorresBot, monkeypatch):
    """A repeat of a queued post uses the same nonce, so Discord does not post it twice."""
    from bot.core.service import Post

    channel = RecordingChannel()
    monkeypatch.setattr(bot, "get_channel", lambda _id: channel)
    first = Post(1, 7, "turn", outbox_id=41)
    assert await bot.send_post(first) == POSTED
    assert await bot.send_post(Post(1, 7, "turn", outbox_id=41)) == POSTED
    assert await bot.send_post(Post(1, 7, "other", outbox_id=42)) == POSTED
    assert await bot.send_post(Post(1, 7, "reminder")) == POSTED  # not queued: no nonce
    nonces = [kwargs.get("nonce") for _, kwargs in channel.sent]
    assert nonces[0] == nonces[1] != nonces[2] and nonces[3] is None
    assert all(len(n) <= 25 for n in nonces[:3])


async def test_the_replay_post_carries_the_animation_or_says_it_failed(
    bot: TorresBot, monkeypatch, caplog
):
    """The queued replay post is drawn from the log when sent; a drawing failure is only logged."""
    from bot.core.outbox import replay_post
    from bot.core.service import Post

    channel = RecordingChannel()
    monkeypatch.setattr(bot, "get_channel", lambda _id: channel)

    async def fake_frames(game_id: int) -> list[dict]:
        assert game_id == 7
        return [{"p": 0}, {"p": 1}]

    async def fake_animate(frames: list[dict], language: str = "en") -> bytes:
        assert frames == [{"p": 0}, {"p": 1}] and language == "en"
        return b"GIF89a fake"

    async def fake_summary(game_id: int, language: str = "en") -> Summary:
        assert game_id == 7 and language == "en"
        return Summary(b"PNG", "**Castles that scored most**", "", "Score chart of game #7.")

    monkeypatch.setattr(bot.service, "replay_frames", fake_frames)
    monkeypatch.setattr(bot.renderer, "animate", fake_animate)
    monkeypatch.setattr(bot.reviews, "summary", fake_summary)
    post = replay_post(Post(1, 7, "**Game over!**", position={"p": 1}, replay=True))
    assert await bot.send_post(post) == POSTED
    ((text, kwargs),) = channel.sent
    # The game's last post: the animation, the score chart and the castles that scored most.
    assert [f.filename for f in kwargs["files"]] == ["replay.gif", "chart.png"]
    assert kwargs["files"][1].description == "Score chart of game #7."
    assert "Game #7" in text and text.endswith("\n**Castles that scored most**")
    assert not kwargs["allowed_mentions"].users
    # The animation drawn, the chart not: the animation alone, and a note for the chart.
    monkeypatch.undo()
    monkeypatch.setattr(bot, "get_channel", lambda _id: channel)
    monkeypatch.setattr(bot.service, "replay_frames", fake_frames)
    monkeypatch.setattr(bot.renderer, "animate", fake_animate)
    channel.sent.clear()
    assert await bot.send_post(post) == POSTED
    ((text, kwargs),) = channel.sent
    assert [f.filename for f in kwargs["files"]] == ["replay.gif"]
    assert "(The score chart could not be drawn.)" in text  # game 7 is in no store here
    assert "could not be drawn" not in text.replace("(The score chart could not be drawn.)", "")
    monkeypatch.undo()
    monkeypatch.setattr(bot, "get_channel", lambda _id: channel)
    monkeypatch.setattr(bot.service, "replay_frames", fake_frames)

    async def broken_animate(frames: list[dict], language: str = "en") -> bytes:
        raise RuntimeError("boom")

    monkeypatch.setattr(bot.renderer, "animate", broken_animate)
    channel.sent.clear()
    assert await bot.send_post(post) == POSTED
    ((text, kwargs),) = channel.sent
    assert "files" not in kwargs and "could not be drawn" in text
    assert "could not draw the replay of game 7" in caplog.text
    assert "(The score chart could not be drawn.)" in text  # game 7 is in no store here
    assert "could not draw the score chart of game 7" in caplog.text
    # A last post sent late, as long as the room kept for one note allowed: with both
    # the animation's and the chart's notes it still fits in one message.
    room = len("*(Posted late after a restart.)*") + len(
        "(The board picture could not be drawn; `/torres board` may show it.)"
    )
    long = Post(1, 7, "x" * (MESSAGE_LIMIT - room - 2), animation=True)
    channel.sent.clear()
    assert await bot.send_post(long, late=True) == POSTED
    assert all(len(text) <= MESSAGE_LIMIT for text, _ in channel.sent), [
        len(text) for text, _ in channel.sent
    ]
    assert channel.sent[-1][0].endswith("(The score chart could not be drawn.)")


@pytest.mark.parametrize(
    ("status", "verdict"),
    [(429, RETRY), (500, RETRY), (502, RETRY), (503, RETRY), (403, FORBIDDEN), (404, FORBIDDEN),
     (400, REJECTED), (413, REJECTED)],
)  # fmt: skip
async def test_only_403_and_404_mean_the_bot_may_not_post(
    bot: TorresBot, monkeypatch, status: int, verdict: str
):
    """Rate limits and Discord's own failures are retried; 403/404 are permanent and about rights."""
    from types import SimpleNamespace

    import discord

    from bot.core.service import Post

    class Failing:
        async def send(self, text: str, **kwargs: object) -> None:
            response = SimpleNamespace(status=status, reason="injected")
            raise discord.HTTPException(response, {"message": "injected", "code": 0})  # type: ignore[arg-type]

    monkeypatch.setattr(bot, "get_channel", lambda _id: Failing())
    assert await bot.send_post(Post(1, 7, "turn", outbox_id=1)) == verdict


class _Interaction:
    """Just what answer_in_time reads of an interaction, and its acknowledgements."""

    def __init__(self, age: float = 0.0, refuse: bool = False) -> None:
        self.id = 1
        self.created_at = dt.datetime.fromtimestamp(time.time() - age, dt.UTC)
        self.acknowledged = 0
        self.refuse = refuse

    async def acknowledge(self) -> None:
        self.acknowledged += 1
        if self.refuse:
            raise discord.NotFound(_Response(404), "Unknown interaction")


class _Response:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "Not Found"


async def _slow(seconds: float, value: str) -> str:
    await asyncio.sleep(seconds)
    return value


async def test_quick_work_answers_at_once_and_slow_work_is_acknowledged_in_time(monkeypatch):
    """A button whose answer is its work's result answers in one request when the work is
    quick; slow work (or an interaction that arrived late) is acknowledged first, and the
    work's result is never lost, even when the acknowledgement fails."""
    monkeypatch.setattr(replies, "ANSWER_WITHIN", 0.05)
    quick = _Interaction()
    assert await replies.answer_in_time(quick, _slow(0, "a"), quick.acknowledge) == "a"
    assert quick.acknowledged == 0
    slow = _Interaction()
    assert await replies.answer_in_time(slow, _slow(0.2, "b"), slow.acknowledge) == "b"
    assert slow.acknowledged == 1
    late = _Interaction(age=replies.ANSWER_BY)  # delayed on its way: no time left to wait
    assert await replies.answer_in_time(late, _slow(0.02, "c"), late.acknowledge) == "c"
    assert late.acknowledged == 1
    gone = _Interaction(refuse=True)
    assert await replies.answer_in_time(gone, _slow(0.2, "d"), gone.acknowledge) == "d"
    assert gone.acknowledged == 1


def test_a_picture_whose_description_fails_goes_without_it(monkeypatch, caplog):
    """The alt text is a courtesy: if describing the board fails, the picture is still
    drawn (from the same reading of the position) and goes out with no description."""
    import renderer
    from bot.client.pictures import _png_and_alt
    from engine import Game

    position = Game.new(players=2, seed=3).position()
    png, alt = _png_and_alt(position, None, [], None, None, "en")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and alt and len(alt) <= 1024

    def broken(view):
        raise RuntimeError("no words today")

    monkeypatch.setattr(renderer, "describe_view", broken)
    png, alt = _png_and_alt(position, None, [], None, None, "en")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and alt is None
    assert "could not describe the board picture" in caplog.text
