"""Taps per turn through the play panel, for scripted tapping players.

Starts ``tests.fakediscord.FakeDiscord`` and the real ``python -m bot``, then
plays whole 2-player games (common deck unless --variant) between two scripted players who use
nothing but taps: Play on the turn message, then the panel's selects and
buttons (``tests/bot/e2e/_harness.PanelDriver``, which takes the shortest way
to each action and counts one tap per button press or select choice). Each
decision is what the engine's quick computer player (``heuristic``) would do.

Printed: taps per decision (setup, turns; median, mean, max), turns of one
action and End, turns that use all 5 AP, taps per action, the time from a tap
to the updated panel (the bot's UPDATE_MESSAGE with the new picture), and the
messages each player received (panels are edited in place, so they count once).

    .venv/bin/python bench/taps_bench.py                     # 1 whole game
    .venv/bin/python bench/taps_bench.py --games 2 --transcript /tmp/taps.txt
    .venv/bin/python bench/taps_bench.py --style one-move    # `move A B; end` turns
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.core.service import decision_done  # noqa: E402
from engine import Game  # noqa: E402
from engine.ai import choose_actions  # noqa: E402
from tests.bot.e2e._harness import PanelDriver, compress_scores  # noqa: E402
from tests.fakediscord import BotProcess, FakeDiscord, FakeMessage  # noqa: E402

SEED = 777
TIMEOUT = 60.0
SEATS = {"red": "alice", "blue": "bob"}
LATENCIES: list[float] = []  # tap -> panel updated (the bot's UPDATE_MESSAGE, picture included)
OPENS: list[float] = []  # Play -> the panel


async def turn_message(fake: FakeDiscord, channel: str, after: int) -> FakeMessage:
    return await fake.wait_for_message(
        lambda m: bool(m.attachments), channel=channel, after=after, public=True, timeout=TIMEOUT
    )


def decide(game: Game, style: str) -> list[str]:
    """A decision: the quick computer player's, or (``one-move``) a single move, then end."""
    if style == "one-move" and game.stage == "play":
        moves = [a for a in game.legal() if a.startswith("move ")]
        if moves:
            return [moves[0], "end"]
    return choose_actions(game.copy(), seconds=0.05, level="heuristic")


async def play_game(
    fake: FakeDiscord, channel: str, seed: int, log: list[str], style: str, variant: str
) -> list[tuple[str, list[str], int]]:
    """One whole game by taps; returns (stage, actions, taps) for every decision."""
    ix = await fake.slash("alice", channel, "torres", "new", players=2, variant=variant)
    await ix.reply(TIMEOUT)
    ix = await fake.slash("bob", channel, "torres", "join")
    await ix.reply(TIMEOUT)
    ix = await fake.slash("alice", channel, "torres", "start")
    await ix.reply(TIMEOUT)
    post = await turn_message(fake, channel, ix.sent_seq)
    game = Game.new(players=2, names=list(SEATS), variant=variant, seed=seed)
    out: list[tuple[str, list[str], int]] = []
    while game.stage != "over":
        log.append(f"--- public\n{post.content}")
        assert game.to_move is not None
        stage = game.stage
        driver = PanelDriver(fake, SEATS[game.to_move])
        await driver.open(post)
        seq = fake.last_seq
        actions: list[str] = []
        done = False
        while not done:  # a personal-deck draw stops a decision short: decide again
            part = decide(game, style)
            for action in compress_scores(part):
                if action == "end":
                    await driver.end()
                else:
                    await driver.do(action)
            before = game.stage
            events = game.play("; ".join(part)) or []
            done = decision_done(before, events)
            actions += part
        log.extend(f"--- panel of {driver.who}, state {i}\n{s}" for i, s in enumerate(driver.seen))
        out.append((stage, actions, driver.taps))
        LATENCIES.extend(driver.latencies)
        if driver.opened_in is not None:
            OPENS.append(driver.opened_in)
        post = await turn_message(fake, channel, seq)
    log.append(f"--- public\n{post.content}")
    return out


def figures(name: str, values: list[int]) -> str:
    if not values:
        return f"  {name:<34} none"
    return (
        f"  {name:<34} n={len(values):<4} median {statistics.median(values):>4.1f}  "
        f"mean {statistics.mean(values):>4.1f}  max {max(values)}"
    )


async def main(args: argparse.Namespace) -> int:
    fake = await FakeDiscord(
        members=tuple(SEATS.values()), channels=[f"t{i}" for i in range(args.games)]
    ).start()
    log: list[str] = []
    decisions: list[tuple[str, list[str], int]] = []
    with tempfile.TemporaryDirectory(prefix="torres-taps-") as tmp:
        env = {
            **fake.env(),
            "DISCORD_TOKEN": "bench",
            "TORRES_DB": os.path.join(tmp, "taps.db"),
            "TORRES_GUILD_READY_TIMEOUT": "0.1",
            "TORRES_SEED": str(SEED),
            "TORRES_LOG_LEVEL": "WARNING",
        }
        bot = await BotProcess(["-m", "bot"], env=env, log_path=Path(tmp) / "bot.log").start()
        try:
            await fake.wait_connected(60)
            await fake.wait_synced(30, names=["torres"])
            for i in range(args.games):
                decisions += await play_game(fake, f"t{i}", SEED, log, args.style, args.variant)
        finally:
            await bot.stop()
            await bot.reap_group(10)
            bot_log = bot.log_text(3000)
            await fake.stop()
    setup = [t for stage, _, t in decisions if stage != "play"]
    turns = [(a, t) for stage, a, t in decisions if stage == "play"]
    one = [t for a, t in turns if len(a) == 2 and a[0].startswith("move ")]
    per_action = [t / max(1, len(compress_scores(a))) for a, t in turns]

    def used_all(actions: list[str]) -> bool:
        g = sum(1 if x.split()[0] in ("move", "build", "draw", "score") else 0 for x in actions)
        g += sum(2 for x in actions if x.startswith("knight "))
        return g >= 5

    full = [t for a, t in turns if used_all(a)]
    print(
        f"taps_bench: {args.games} whole game(s) by taps alone ({args.style} players), "
        f"{len(decisions)} decisions"
    )
    print(figures("setup decision (Play + choice)", setup))
    print(figures("turn (Play ... End [+ confirm])", [t for _, t in turns]))
    print(figures("turn `move A B; end`", one))
    print(figures("turn using all 5 AP", full))
    print(
        f"  {'taps per action (End counted)':<34} mean {statistics.mean(per_action):.2f}"
        if per_action
        else ""
    )
    for name, values in (("Play -> panel (ms)", OPENS), ("tap -> panel updated (ms)", LATENCIES)):
        if values:
            ms = sorted(x * 1000 for x in values)
            p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
            print(
                f"  {name:<34} n={len(ms):<4} median "
                f"{statistics.median(ms):>5.1f}  p95 {p95:.1f}  max {ms[-1]:.1f}"
            )
    for who in SEATS.values():
        user = fake.users[who]
        private = [m for m in fake.messages.values() if m.viewer is user]
        edits = sum(m.edits for m in private)
        print(f"  {who}: {len(private)} private messages (panels edited {edits} times in place)")
    public = [m for m in fake.messages.values() if m.viewer is None]
    print(f"  public posts: {len(public)}; refused by the fake: {len(fake.errors)}")
    if args.transcript:
        Path(args.transcript).write_text("\n".join(log) + "\n")
        print(f"  every panel state and public post written to {args.transcript}")
    if fake.errors:
        print(bot_log)
        return 1
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1, help="whole games played (default 1)")
    p.add_argument("--transcript", help="write every panel state and public post here")
    p.add_argument("--variant", choices=("common", "personal", "master"), default="common")
    p.add_argument(
        "--style",
        choices=("heuristic", "one-move"),
        default="heuristic",
        help="heuristic: the quick computer player's decisions; one-move: a move, then End",
    )
    return p.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
