"""Load benchmark: many Torres games at once through the fake Discord, one real bot process.

Starts ``tests.fakediscord.FakeDiscord`` and ``python -m bot`` (a fresh SQLite
database in a temporary directory), then plays ``--games`` 2-player games in
parallel, one per channel, each from ``/torres new`` to the final scores (or
``--decisions`` decisions). Every game keeps an ``engine.Game`` mirror to
choose legal actions; a decision is either one ``/torres play`` with all of
it, or one command per action followed by the End turn button (and its
confirmation when AP are left).

Printed: median, 95th percentile and max of the time from sending an
interaction to

* ``ack``      the bot's first callback (the reply itself when quick, else the deferral),
* ``reply``    the private reply (with the callback, or the follow-up after a deferral), for
               interactions that post no picture (an action within a turn, a lobby step),
* ``picture``  for interactions that finish a decision (or start the game): the
               public turn message carrying ``board.png``, rendered by the bot,

plus throughput, the bot's CPU time (its process tree), the share of a CPU a busy
process gets on this machine at the time (other work inflates the latencies),
whether every game's stored position equals its players' mirror, and any
request the fake refused. ``--think`` is each simulated
player's pause before an interaction (uniform in [0.5, 1.5] x think); 0 makes
every player act the instant the previous reply arrives (a stress test, far
denser than people playing turn by turn).

``--db postgres`` starts a throw-away PostgreSQL server (tests/pgserver.py; a
``postgresql://`` URL of an empty database works too) and ``--processes N``
runs N bot processes, shards 0..N-1 of N, against it (the fake Discord then has
N guilds, one per shard, and the games are dealt over them); a comma list such
as ``--processes 1,2`` runs each in turn and prints them side by side.
``--ai-games K`` makes K more games human-vs-computer (``bots=1``): their
human waits for the computer's answer each turn, and their interactions are
reported apart, so the other rows show what thinking computers cost everyone else.
``--reviews R`` finishes R two-player games (between heuristic players, straight
into the database) before the bot starts, and while the games run a reviewer asks
``/torres review game:N player:@x`` for one player of each in turn (each a fresh
review by the ``expert``, in the bot's worker processes), for as long as the games
last; printed: the time each review took, so the other rows show what reviews
cost everyone else (issue 36).

    .venv/bin/python bench/bot_bench.py                  # 50 games, think 1 s
    .venv/bin/python bench/bot_bench.py --games 10 --think 0 --decisions 12
    .venv/bin/python bench/bot_bench.py --games 200 --db postgres --processes 1,2
    .venv/bin/python bench/bot_bench.py --games 50 --ai-games 10
    .venv/bin/python bench/bot_bench.py --games 50 --reviews 6
    TORRES_RENDER_THREADS=4 .venv/bin/python bench/bot_bench.py   # bot settings pass through
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.db.contract import GameStore, open_store  # noqa: E402
from engine import Game  # noqa: E402
from tests.fakediscord import BotProcess, FakeDiscord, FakeInteraction, FakeMessage  # noqa: E402

SEED = 4242
TIMEOUT = 60.0


@dataclass
class Stats:
    ack: list[float] = field(default_factory=list)
    reply: list[float] = field(default_factory=list)
    picture: list[float] = field(default_factory=list)
    interactions: int = 0
    decisions: int = 0
    games_over: int = 0
    failures: list[str] = field(default_factory=list)

    def record(self, ix: FakeInteraction, reply: FakeMessage, picture: FakeMessage | None) -> None:
        self.interactions += 1
        if ix.callback_latency is not None:
            self.ack.append(ix.callback_latency)
        if picture is not None:
            self.picture.append(picture.created_at - ix.sent_at)
        elif reply.resolved_at is not None:
            self.reply.append(reply.resolved_at - ix.sent_at)


async def stored_positions_match(store: GameStore, players: list[Player]) -> int:
    """How many games' stored positions equal their players' engine mirrors (none lost under load)."""
    good = 0
    for p in players:
        if p.game_id is None or p.game is None:
            continue
        row = await store.game(p.game_id)
        good += row is not None and row.position == p.game.position()
    return good


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def plan(game: Game, rng: random.Random) -> list[str]:
    """One decision from the mirror: a setup choice, or 0-2 random actions then ``end``."""
    work = game.copy()
    if work.stage != "play":
        return [rng.choice(work.legal())]
    wanted = rng.choice((0, 1, 2))
    out: list[str] = []
    for _ in range(12):
        legal = work.legal()
        others = [a for a in legal if a != "end"]
        if "end" in legal and (len(out) >= wanted or not others):
            return [*out, "end"]
        action = rng.choice(others or legal)
        before = work.stage
        events = work.play(action) or []
        out.append(action)
        if before != "play" or any(e.get("type") in ("turn_end", "game_over") for e in events):
            return out
    return out


class Player:
    """One game's two simulated players."""

    def __init__(
        self,
        fake: FakeDiscord,
        index: int,
        args: argparse.Namespace,
        stats: Stats,
        *,
        store: GameStore | None = None,
    ) -> None:
        """With *store*, the game is against a computer (blue), read back from the database."""
        self.fake = fake
        guilds = len(fake.guild_ids)
        table, guild = divmod(index, guilds)  # game i in guild i % N: its shard
        suffix = "" if guild == 0 else f"-g{guild + 1}"
        self.channel = fake.channels[f"table-{table}{suffix}"]
        self.users = (f"p{2 * index}", f"p{2 * index + 1}")
        self.store = store
        self.args = args
        self.stats = stats
        self.rng = random.Random(index)
        self.turn_msg: FakeMessage | None = None
        self.game_id: int | None = None
        self.game: Game | None = None

    async def think(self) -> None:
        if self.args.think > 0:
            await asyncio.sleep(self.args.think * self.rng.uniform(0.5, 1.5))

    async def send(
        self, ix_coro, *, picture: bool
    ) -> tuple[FakeInteraction, FakeMessage, FakeMessage | None]:
        ix = await ix_coro
        reply = await ix.reply(TIMEOUT)
        post = None
        if picture:
            post = await self.fake.wait_for_message(
                lambda m: bool(m.attachments),
                channel=self.channel,
                after=ix,
                public=True,
                timeout=TIMEOUT,
                what=f"the turn picture after {ix.describe()}",
            )
            self.turn_msg = post
        self.stats.record(ix, reply, post)
        return ix, reply, post

    async def end_turn(self, who: str, custom_id: str) -> FakeInteraction:
        """End turn on the turn message; with AP left it asks first, and the player confirms."""
        assert self.turn_msg is not None
        ix = await self.fake.click(who, self.turn_msg, custom_id)
        reply = await ix.reply(TIMEOUT)
        yes = next((b for b in reply.buttons if (b.custom_id or "").endswith(":yes")), None)
        if yes is None:
            return ix
        return await self.fake.click(who, reply, yes.custom_id or "")

    def slash(self, who: str, sub: str, **options):
        return self.fake.slash(who, self.channel, "torres", sub, **options)

    async def computer(self, game: Game) -> Game:
        """Wait for the computer (blue) to finish its decisions; the game as stored then.

        Woken by the computer's public picture (not by polling the database, which
        would cost the benchmark process the CPU its fake Discord needs).
        """
        assert self.store is not None and self.game_id is not None
        seen = self.turn_msg.seq if self.turn_msg is not None else 0
        while True:
            row = await self.store.game(self.game_id)
            done = row is not None and (
                row.status != "running" or (row.position or {}).get("to_move") == "red"
            )
            if done and row is not None and row.position is not None:
                return Game.from_position(row.position)
            post = await self.fake.wait_for_message(
                lambda m: bool(m.attachments),
                channel=self.channel,
                after=seen,
                public=True,
                timeout=TIMEOUT,
                what=f"game {self.game_id}: the computer's move",
            )
            seen = post.seq

    async def run(self) -> None:
        if self.store is not None:
            return await self.run_against_computer()
        a, b = self.users
        await self.think()
        _, opened, _ = await self.send(self.slash(a, "new", players=2, thread=False), picture=False)
        found = re.search(r"game #(\d+)", opened.content)
        if found is None:
            raise AssertionError(f"/torres new answered {opened.content!r}")
        self.game_id = int(found.group(1))
        await self.think()
        await self.send(self.slash(b, "join"), picture=False)
        await self.think()
        await self.send(self.slash(a, "start"), picture=True)
        game = self.game = Game.new(players=2, names=["red", "blue"], variant="common", seed=SEED)
        seats = {"red": a, "blue": b}
        decisions = 0
        while game.stage != "over" and (
            self.args.decisions == 0 or decisions < self.args.decisions
        ):
            who = seats[game.to_move]
            actions = plan(game, self.rng)
            use_button = game.stage == "play" and actions[-1] == "end" and self.rng.random() < 0.5
            # The latest turn message may carry no End turn (a merged or late post): type it.
            ends = [x for x in (self.turn_msg.buttons if self.turn_msg else []) if x.custom_id]
            if use_button and any((x.custom_id or "").endswith(":end") for x in ends):
                for action in actions[:-1]:
                    await self.think()
                    _, reply, _ = await self.send(
                        self.slash(who, "play", actions=action), picture=False
                    )
                    if not reply.content.startswith("Done"):
                        raise AssertionError(f"{action!r} refused: {reply.content}")
                    game.play(action)
                end = next(x for x in ends if (x.custom_id or "").endswith(":end"))
                await self.think()
                await self.send(self.end_turn(who, end.custom_id or ""), picture=True)
                game.play("end")
            else:
                await self.think()
                _, reply, _ = await self.send(
                    self.slash(who, "play", actions="; ".join(actions)), picture=True
                )
                for action in actions:
                    game.play(action)
            decisions += 1
            self.stats.decisions += 1
        if game.stage == "over":
            self.stats.games_over += 1

    async def run_against_computer(self) -> None:
        a = self.users[0]
        await self.think()
        _, opened, _ = await self.send(
            self.slash(a, "new", players=2, bots=1, thread=False), picture=False
        )
        found = re.search(r"game #(\d+)", opened.content)
        if found is None:
            raise AssertionError(f"/torres new answered {opened.content!r}")
        self.game_id = int(found.group(1))
        await self.think()
        await self.send(self.slash(a, "start"), picture=True)
        game = self.game = Game.new(players=2, names=["red", "blue"], variant="common", seed=SEED)
        decisions = 0
        while self.args.decisions == 0 or decisions < self.args.decisions:
            game = self.game = await self.computer(game)
            if game.stage == "over":
                self.stats.games_over += 1
                return
            actions = plan(game, self.rng)
            await self.think()
            await self.send(self.slash(a, "play", actions="; ".join(actions)), picture=True)
            for action in actions:
                game.play(action)
            decisions += 1
            self.stats.decisions += 1
        self.game = await self.computer(game)  # the decisions cap: the game as the bot left it


def process_cpu(pid: int | None) -> float | None:
    """CPU seconds (user + system) used so far by a process and its live descendants
    (the bot renders in worker processes), from /proc; None off Linux."""
    if pid is None:
        return None
    stats: dict[int, tuple[int, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return None
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    if pid not in stats:
        return None
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += stats[p][1]
        todo += [c for c, (parent, _) in stats.items() if parent == p]
    return total


async def cpu_share(samples: list[float], stop: asyncio.Event) -> None:
    """Every 2 s, time a 20 ms busy loop: CPU time / wall time is the share of a CPU that a
    runnable process gets on this machine right now (1.0 on an idle machine)."""
    while not stop.is_set():
        wall0, cpu0 = time.perf_counter(), time.process_time()
        while time.process_time() - cpu0 < 0.02:
            pass
        samples.append((time.process_time() - cpu0) / (time.perf_counter() - wall0))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 2.0)


def row(name: str, values: list[float]) -> str:
    if not values:
        return f"  {name:<8} (none)"
    ms = [v * 1000 for v in values]
    return (
        f"  {name:<8} n={len(ms):<6} median {statistics.median(ms):7.1f} ms   "
        f"p95 {percentile(ms, 95):7.1f} ms   max {max(ms):7.1f} ms"
    )


@dataclass
class Run:
    """The figures of one configuration, for the side-by-side table."""

    processes: int
    wall: float = 0.0
    cpu: float | None = None
    share: float = float("nan")
    load: tuple[float, float] = (0.0, 0.0)
    stats: Stats = field(default_factory=Stats)
    ai: Stats = field(default_factory=Stats)
    reviews: list[float] = field(default_factory=list)  # seconds per /torres review player:
    ok: bool = True
    db_cpu: float | None = None  # the PostgreSQL server's CPU during the games, when local


async def run_once(
    args: argparse.Namespace, processes: int, target: str, tmp: str, pg_pid: int | None = None
) -> Run:
    """Play the games against *processes* bot processes (shards 0..N-1 of N) on *target*."""
    n, k = args.games, args.ai_games
    result = Run(processes)
    users = [f"p{i}" for i in range(2 * (n + k))] + ["reviewer", "r0", "r1"]
    load_before = os.getloadavg()[0]
    tables = -(-(n + k) // processes)
    fake = await FakeDiscord(
        members=users,
        moderators=(),
        channels=[f"table-{i}" for i in range(tables)] + ["reviews"],
        guilds=processes,
        shards=processes,
    ).start()
    stats, ai = result.stats, result.ai
    env = {
        **fake.env(),
        "DISCORD_TOKEN": "bench",
        "TORRES_DB": target,
        "TORRES_GUILD_READY_TIMEOUT": "0.1",
        "TORRES_SEED": str(SEED),
        "TORRES_LOG_LEVEL": "WARNING",
    }
    if processes > 1:
        env["TORRES_SHARD_COUNT"] = str(processes)
    bots: list[BotProcess] = []
    store = None
    reviewed: list[tuple[int, str]] = []
    if args.reviews:
        reviewed = await finished_games(target, fake, args.reviews)
    try:
        for shard in range(processes):
            shard_env = {**env, "TORRES_SHARD_IDS": str(shard)} if processes > 1 else env
            log = Path(tmp) / f"bot{processes}-{shard}.log"
            bots.append(await BotProcess(["-m", "bot"], env=shard_env, log_path=log).start())
        await fake.wait_connected(60)
        await fake.wait_synced(30, names=["torres"])
        store = await open_store(target)
        # Human-vs-computer games take the first k slots, so they are dealt over the shards too.
        players = [
            Player(fake, i, args, ai, store=store) if i < k else Player(fake, i, args, stats)
            for i in range(n + k)
        ]
        pg_before = process_cpu(pg_pid)
        started = time.monotonic()
        shares: list[float] = []
        stop = asyncio.Event()
        sampler = asyncio.create_task(cpu_share(shares, stop))
        reviewer = asyncio.create_task(review_loop(fake, reviewed, result.reviews, stop))
        results = await asyncio.gather(*(p.run() for p in players), return_exceptions=True)
        result.wall = time.monotonic() - started
        stop.set()
        await sampler
        await reviewer
        cpus = [process_cpu(b.pid) for b in bots]
        result.cpu = None if None in cpus else sum(c or 0.0 for c in cpus)
        pg_after = process_cpu(pg_pid)
        if pg_before is not None and pg_after is not None:
            result.db_cpu = pg_after - pg_before
        result.share = statistics.median(shares) if shares else float("nan")
        for i, r in enumerate(results):
            if isinstance(r, BaseException):
                stats.failures.append(f"game {i}: {type(r).__name__}: {str(r)[:400]}")
        matching = await stored_positions_match(store, players)
    finally:
        if store is not None:
            await store.close()
        for b in bots:
            await b.stop()
            await b.reap_group(10)
        bot_log = "\n".join(b.log_text(4000) for b in bots)
        await fake.stop()
    result.load = (load_before, os.getloadavg()[0])
    shards = f", shards 0-{processes - 1} of {processes}" if processes > 1 else ""
    print(
        f"bot_bench: {n} games at once (+{k} against the computer), think {args.think:g} s, "
        f"decisions cap {args.decisions or 'none'}, {processes} bot process(es){shards}, "
        f"database {args.db}"
    )
    print(
        f"  {stats.interactions + ai.interactions} interactions, {stats.decisions + ai.decisions} "
        f"decisions, {stats.games_over + ai.games_over} games finished"
    )
    elapsed = result.wall
    print(
        f"  wall {elapsed:.1f} s, {(stats.interactions + ai.interactions) / elapsed:.1f} "
        f"interactions/s, {(len(stats.picture) + len(ai.picture)) / elapsed:.1f} pictures/s, "
        f"{os.cpu_count()} CPUs"
    )
    mine = time.process_time()
    cpu = f"bot processes {result.cpu:.1f} s" if result.cpu is not None else "bot processes ?"
    print(
        f"  CPU used: {cpu}, benchmark process (fake Discord + players) {mine:.1f} s (cumulative)"
    )
    print(
        f"  machine: load average {load_before:.1f} before, {result.load[1]:.1f} after; "
        f"a busy process got {result.share:.0%} of a CPU (median of {len(shares)} probes; "
        "100% = idle machine)"
    )
    print(f"  stored positions equal to the players' mirrors: {matching}/{n + k} games")
    print(row("ack", stats.ack))
    print(row("reply", stats.reply))
    print(row("picture", stats.picture))
    if k:
        print(f"  the {k} games against the computer (their human's interactions):")
        print(row("ack", ai.ack))
        print(row("reply", ai.reply))
        print(row("picture", ai.picture))
    if args.reviews:
        print(
            f"  reviews running meanwhile: {len(result.reviews)} finished "
            "(one player's decisions each, expert; seconds from the command to the answer):"
        )
        if result.reviews:
            r = result.reviews
            print(
                f"  review   n={len(r):<6} median {statistics.median(r):7.1f} s    "
                f"min {min(r):7.1f} s    max {max(r):7.1f} s"
            )
    both = stats.reply + stats.picture
    if both:
        p95 = percentile([v * 1000 for v in both], 95)
        verdict = "meets" if p95 < 300 else "MISSES"
        print(f"  reply+picture p95 {p95:.1f} ms: {verdict} the 300 ms aim")
    refused = fake.errors
    if refused:
        print(f"  {len(refused)} requests refused by the fake, e.g. {refused[:3]}")
    for f in stats.failures[:10]:
        print("  FAILED", f)
    if stats.failures or refused or matching != n + k:
        print("--- bot log (tail) ---\n" + bot_log)
        result.ok = False
    return result


async def finished_games(target: str, fake: FakeDiscord, count: int) -> list[tuple[int, str]]:
    """*count* games between r0 and r1 played to the end by quick heuristic players,
    written straight into the bot's database; returns (game, reviewed user) pairs."""
    from bot.core.service import GameService, ServiceConfig, User
    from engine.ai import choose_actions

    store = await open_store(target)
    users = [User(fake.users[n].id, n) for n in ("r0", "r1")]
    channel = fake.channels["reviews"].id
    out = []
    try:
        service = GameService(store, ServiceConfig(seed=SEED))
        for i in range(count):
            made = await service.new(
                guild_id=fake.guild_id, channel_id=channel, user=users[0], players=2
            )
            game_id = made.posts[0].game_id
            await service.join(channel_id=channel, user=users[1])
            await service.start(channel_id=channel, user=users[0])
            while True:
                row = await store.game(game_id)
                assert row is not None
                if row.status == "over":
                    break
                game = await service._load(row)
                seats = {s.name: s.user_id for s in await store.seats(game_id)}
                who = next(u for u in users if u.id == seats[game.to_move])
                actions = choose_actions(game, 0.05, level="heuristic", seed=i)
                await service.play(channel_id=channel, user=who, text="; ".join(actions))
            out.append((game_id, ("r0", "r1")[i % 2]))
    finally:
        await store.close()
    return out


async def review_loop(
    fake: FakeDiscord, games: list[tuple[int, str]], took: list[float], stop: asyncio.Event
) -> None:
    """``/torres review game:N player:@x`` for each game in turn, once each, stopping
    early at *stop*: a second ask would be answered from the bot's memory of reviews
    and measure nothing, so the reviews run while the games do only if there are enough
    of them (``--reviews``)."""
    channel = fake.channels["reviews"]
    for game_id, player in games:
        if stop.is_set():
            return
        ix = await fake.slash("reviewer", channel, "torres", "review", game=game_id, player=player)
        reply = await ix.reply(600)
        if "Review of" not in reply.content:
            raise RuntimeError(f"review of game {game_id}: {reply.content[:200]}")
        assert reply.resolved_at is not None
        took.append(reply.resolved_at - ix.sent_at)


def side_by_side(runs: list[Run]) -> None:
    """The configurations in columns: p95 and median of each kind of answer, CPU, wall."""
    print("\nside by side (ms; p95 / median):")
    print("  " + f"{'':<22}" + "".join(f"{f'{r.processes} process(es)':>24}" for r in runs))

    def cell(values: list[float]) -> str:
        if not values:
            return f"{'-':>24}"
        ms = [v * 1000 for v in values]
        return f"{f'{percentile(ms, 95):.0f} / {statistics.median(ms):.0f}':>24}"

    for name, pick in (
        ("ack", lambda r: r.stats.ack),
        ("reply", lambda r: r.stats.reply),
        ("picture", lambda r: r.stats.picture),
        ("vs computer: reply", lambda r: r.ai.reply),
        ("vs computer: picture", lambda r: r.ai.picture),
    ):
        print(f"  {name:<22}" + "".join(cell(pick(r)) for r in runs))
    print(f"  {'wall s':<22}" + "".join(f"{r.wall:>24.1f}" for r in runs))
    print(
        f"  {'bot CPU s':<22}"
        + "".join(f"{r.cpu:>24.1f}" if r.cpu is not None else f"{'?':>24}" for r in runs)
    )
    print(
        f"  {'PostgreSQL CPU s':<22}"
        + "".join(f"{r.db_cpu:>24.1f}" if r.db_cpu is not None else f"{'-':>24}" for r in runs)
    )
    print(f"  {'CPU share of a probe':<22}" + "".join(f"{r.share:>24.0%}" for r in runs))
    print(
        f"  {'load avg before/after':<22}"
        + "".join(f"{f'{r.load[0]:.1f} / {r.load[1]:.1f}':>24}" for r in runs)
    )


async def main(args: argparse.Namespace) -> int:
    counts = [int(x) for x in str(args.processes).split(",") if x.strip()]
    if any(c < 1 for c in counts) or not counts:
        print("error: --processes takes whole numbers from 1, e.g. 2 or 1,2", file=sys.stderr)
        return 2
    if args.db == "sqlite" and max(counts) > 1:
        print("error: several bot processes need PostgreSQL: --db postgres", file=sys.stderr)
        return 2
    runs: list[Run] = []
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(
            tempfile.TemporaryDirectory(prefix="torres-bench-", dir=args.db_dir)
        )
        server = None
        if args.db == "postgres":
            from tests.pgserver import TempPostgres

            server = stack.enter_context(TempPostgres())
        for i, processes in enumerate(counts):
            if args.db == "sqlite":
                target = os.path.join(tmp, f"bench{i}.db")
            elif server is not None:
                target = server.create_database("bench")
            else:
                target = args.db
                if len(counts) > 1:
                    print("error: with a --db URL, give one --processes value", file=sys.stderr)
                    return 2
            pg_pid = server.pid if server is not None else None
            runs.append(await run_once(args, processes, target, tmp, pg_pid))
            print()
    if len(runs) > 1:
        side_by_side(runs)
    return 0 if all(r.ok for r in runs) else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=50, help="games played at once (default 50)")
    p.add_argument("--think", type=float, default=1.0, help="mean pause before each interaction, s")
    p.add_argument(
        "--decisions",
        type=int,
        default=0,
        help="stop each game after N decisions (0: play to the end)",
    )
    p.add_argument(
        "--db",
        default="sqlite",
        help="sqlite (a temp file, default), postgres (a throw-away local server), "
        "or a postgresql:// URL of an empty database",
    )
    p.add_argument(
        "--processes",
        default="1",
        help="bot processes, one shard each; a comma list runs each in turn (e.g. 1,2)",
    )
    p.add_argument(
        "--ai-games",
        type=int,
        default=0,
        help="additional games of one human against a computer player (reported apart)",
    )
    p.add_argument(
        "--reviews",
        type=int,
        default=0,
        help="finished games to review (/torres review player:) one after another meanwhile",
    )
    p.add_argument(
        "--db-dir",
        default=None,
        help="directory for the bot's database (default: the system temp dir)",
    )
    return p.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
