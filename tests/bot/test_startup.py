"""``python -m bot`` that cannot get going says why in one line (issue 33, item 12).

An unreachable Discord (no network, a wrong DISCORD_API_BASE), a token Discord
refuses and a token no Discord token looks like each end the process with one
``error:`` line on stderr, no traceback, and a non-zero exit status.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import aiohttp
import discord
import pytest

from bot.__main__ import REACH_HINT, start_failure, token_problem
from tests.fakediscord import BotProcess, FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


async def run_bot(env: dict[str, str], tmp_path: Path) -> tuple[int, list[str]]:
    """Run the bot to its end; its exit status and its stderr's lines."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env={
            **os.environ,
            "TORRES_DB": str(tmp_path / "torres.db"),
            "TORRES_GUILD_READY_TIMEOUT": "0.1",
            **env,
        },
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, err.decode().splitlines()


def one_error(lines: list[str]) -> str:
    """The only line that is not a log line, and no traceback."""
    assert not any("Traceback" in line or line.startswith("  File ") for line in lines), lines
    errors = [line for line in lines if line.startswith("error:")]
    others = [line for line in lines if not line.startswith("error:") and " INFO " not in line]
    assert len(errors) == 1 and others == [], lines
    return errors[0]


async def test_an_unreachable_discord_is_one_line(tmp_path: Path) -> None:
    """Nothing listens at the REST address: a refused connection, said in one line."""
    status, lines = await run_bot(
        {"DISCORD_TOKEN": "a.plausible.token", "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10"},
        tmp_path,
    )
    line = one_error(lines)
    assert (
        status == 1 and line.startswith("error: could not reach Discord (") and REACH_HINT in line
    )


async def test_a_host_that_does_not_resolve_is_one_line(tmp_path: Path) -> None:
    """As with a bogus token on a machine without a network: no 55-line DNS traceback."""
    status, lines = await run_bot(
        {"DISCORD_TOKEN": "bogus", "DISCORD_API_BASE": "http://discord.invalid/api/v10"},
        tmp_path,
    )
    line = one_error(lines)
    assert status == 1 and "could not reach Discord" in line and "discord.invalid" in line


async def test_a_refused_token_is_one_line(tmp_path: Path) -> None:
    fake = await FakeDiscord(members=("alice",), token="the-right-token").start()
    try:
        env = {**fake.env(), "DISCORD_TOKEN": "a-wrong-token"}
        status, lines = await run_bot(env, tmp_path)
    finally:
        await fake.stop()
    assert status == 1
    assert one_error(lines).startswith("error: Discord refused the token: check DISCORD_TOKEN")


@pytest.mark.parametrize("token", ["two\nlines", "Bot abc.def", "tab\tbed", "n\u00e4mlich"])
async def test_a_token_no_token_looks_like_is_one_line(tmp_path: Path, token: str) -> None:
    """Such a token used to fail inside aiohttp ("Forbidden control character…")."""
    status, lines = await run_bot({"DISCORD_TOKEN": token}, tmp_path)
    assert status == 1 and one_error(lines).startswith("error: DISCORD_TOKEN holds a space")
    assert not (tmp_path / "torres.db").exists()  # refused before anything else


async def test_a_good_start_says_so(tmp_path: Path) -> None:
    """The lines README's *Running the bot on Discord* shows, then a clean stop."""
    fake = await FakeDiscord(members=("alice",)).start()
    log = tmp_path / "bot.log"
    env = {**fake.env(), "DISCORD_TOKEN": "a.good.token", "TORRES_DB": str(tmp_path / "t.db")}
    proc = await BotProcess(["-m", "bot"], env=env, log_path=log).start()
    try:
        for _ in range(400):  # the log is a file: look at it every 0.1 s, up to 40 s
            if "ready: logged in as" in log.read_text():
                break
            await asyncio.sleep(0.1)
    finally:
        await proc.stop()
        await fake.stop()
    text = log.read_text()
    for words in ("logging in using static token", "slash commands synced (global)", "servers: 1"):
        assert words in text, text
    assert "error" not in text.lower() and "Traceback" not in text, text


def test_what_is_said_in_one_line_and_what_is_not() -> None:
    assert start_failure(discord.LoginFailure("Improper token has been passed."))
    reach = start_failure(aiohttp.ClientConnectionError("Cannot connect\n to host x:443"))
    assert reach is not None and "\n" not in reach and "Cannot connect to host x:443" in reach
    assert start_failure(RuntimeError("a bug")) is None  # logged with its traceback
    assert start_failure(OSError(28, "No space left on device")) is None  # not the network
    assert token_problem("MTA.abc-DEF_ghi.jkl") is None
