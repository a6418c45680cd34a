"""Issue 9 (hardening), service level: hidden cards stay hidden, odd input, races, names, memory.

The leak tests compare games that look the same to the player to move but
whose decks are shuffled differently (different seeds): whatever the bot says
before a card is really drawn must be the same in all of them.
"""

from __future__ import annotations

import asyncio
import gc
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.errors import NoGame, NotAllowed, ServiceError, StaleButton
from bot.core.service import GameService, ServiceConfig, User
from bot.db.sqlite import Store
from bot.texts import posts as texts
from engine import Game, NotationError
from engine import notation as engine_notation
from tests.bot.conftest import ANN, BOB, CHANNEL, CONFIG, GUILD, Env, random_ai


def first_legal(game: Game, seconds: float) -> list[str]:
    """A deterministic stand-in for the hint player that shows what it was given:
    the last legal action (``keep …`` after a draw in personal decks)."""
    legal = game.legal()
    return [legal[-1]] if legal else []


async def make_env(path: Path, seed: int) -> Env:
    store = await Store.open(str(path))
    config = ServiceConfig(
        ai_seconds=0.01,
        reminder_interval=CONFIG.reminder_interval,
        reminder_limit=CONFIG.reminder_limit,
        idle_cancel_after=CONFIG.idle_cancel_after,
        seed=seed,
    )
    from tests.bot.conftest import Clock

    clock = Clock()
    service = GameService(
        store, config, clock=clock, choose_actions=random_ai, suggest_actions=first_legal
    )
    return Env(store, service, clock, str(path))


async def past_setup(env: Env, variant: str, channel: int = CHANNEL) -> None:
    """ANN (red) on c3, BOB (blue) on f6, the king on d1; ANN to move with 5 AP."""
    s = env.service
    await s.new(guild_id=GUILD, channel_id=channel, user=ANN, players=2, variant=variant)
    await s.join(channel_id=channel, user=BOB)
    await s.start(channel_id=channel, user=ANN)
    await s.play(channel_id=channel, user=ANN, text="place c3")
    await s.play(channel_id=channel, user=BOB, text="place f6")
    await s.play(channel_id=channel, user=BOB, text="king d1")


def hidden_order(seed: int, variant: str) -> list[str]:
    """What lies on red's (or the common) deck in the game the service opens with *seed*."""
    game = Game.new(players=2, names=["red", "blue"], variant=variant, seed=seed)
    decks = game.position()["decks"]
    return list(decks["common" if variant == "common" else "red"])


# Seeds whose hidden cards differ where it matters (checked below).
SEEDS = (7, 8, 11, 12)

COMMANDS = {
    "personal": [
        "draw; keep jump top",
        "draw; keep relocate bottom",
        "draw; keep lift top; end",
        "draw; keep doorclimb top",
        "draw; draw",
        "move c3 d3; draw; keep vault top",
    ],
    "common": [
        "draw; play lift c3",
        "draw; play lift c3 turn",
        "draw; play relocate c3 d3",
        "draw; play ap6",
        "draw; draw; play jump c3 c5",
        "move c3 d3; draw; play extra c4",
    ],
}

TYPED = ["draw; ", "draw; k", "draw; keep ", "draw; play ", "move c3 d3; draw; ", "draw; end; "]


async def answer(env: Env, text: str) -> tuple[str, str]:
    """('refused', message) when nothing changed, else ('changed', '')."""
    before = await env.store.game(1)
    try:
        await env.service.play(channel_id=CHANNEL, user=ANN, text=text)
    except ServiceError as exc:
        after = await env.store.game(1)
        if after == before:
            return "refused", exc.message
        return "changed", ""
    return "changed", ""


@pytest.mark.parametrize("variant", ["personal", "common"])
async def test_refusals_and_suggestions_never_depend_on_undrawn_cards(tmp_path, variant):
    """Item 1: the same command or typed prefix gets the same answer whatever the deck hides.

    Before the fix, `draw; keep jump top` was refused with "jump is not among
    the cards you drew (relocate, doorclimb, lift)", and autocomplete on
    `draw; ` offered `keep` for exactly those cards.
    """
    orders = {seed: hidden_order(seed, variant)[:3] for seed in SEEDS}
    assert len({tuple(o) for o in orders.values()}) == len(SEEDS), orders
    seen: dict[str, dict[int, object]] = {}
    n = 0
    for seed in SEEDS:
        for text in COMMANDS[variant]:
            n += 1
            env = await make_env(tmp_path / f"c{n}.db", seed)
            try:
                await past_setup(env, variant)
                seen.setdefault(text, {})[seed] = await answer(env, text)
            finally:
                await env.store.close()
        n += 1
        env = await make_env(tmp_path / f"s{n}.db", seed)
        try:
            await past_setup(env, variant)
            for typed in TYPED:
                pairs = await env.service.suggest(channel_id=CHANNEL, user_id=ANN.id, typed=typed)
                seen.setdefault(f"suggest {typed!r}", {})[seed] = pairs
                assert not any(v.split("; ")[-1].startswith("keep") for _, v in pairs), pairs
        finally:
            await env.store.close()
    for what, by_seed in seen.items():
        assert len({repr(v) for v in by_seed.values()}) == 1, (what, by_seed)


async def test_a_draw_in_a_chain_is_made_then_the_rest_checked_against_the_real_cards(tmp_path):
    """Item 1, the ruling: the chain is played up to and including the draw; the rest after."""
    env = await make_env(tmp_path / "t.db", 7)
    try:
        await past_setup(env, "personal")
        drawn = hidden_order(7, "personal")[:3]
        missing = next(c for c in ("jump", "vault", "ap6", "ap7") if c not in drawn)
        out = await env.service.play(channel_id=CHANNEL, user=ANN, text=f"draw; keep {missing} top")
        row = await env.store.game(1)
        assert row is not None and row.position is not None
        game = Game.from_position(row.position)
        assert game.stage == "draw-keep", "the draw stands"
        assert [a.action for a in await env.store.actions(1, after_seq=row.turn_start_seq)] == [
            "draw"
        ]
        reply = out.reply
        assert reply.startswith("Done: `draw`"), reply
        assert f"`keep {missing} top` was not played" in reply, reply
        assert all(c in reply for c in drawn), reply  # really drawn now: named to their owner
        assert out.posts == []
        # What follows a draw is all or nothing too, and then the turn goes on normally.
        keep = f"keep {drawn[0]} bottom"
        out = await env.service.play(channel_id=CHANNEL, user=ANN, text=f"{keep}; end")
        assert "played `draw; keep ? bottom; end`" in out.posts[0].text
        assert drawn[0] not in out.posts[0].text
    finally:
        await env.store.close()


async def test_common_deck_draw_then_more_in_one_command(tmp_path):
    """`draw; move …; end`: the draw, then the move and the end, one public turn message."""
    env = await make_env(tmp_path / "t.db", 7)
    try:
        await past_setup(env, "common")
        out = await env.service.play(channel_id=CHANNEL, user=ANN, text="draw; move c3 d3; end")
        assert len(out.posts) == 1 and "played `draw; move c3 d3; end`" in out.posts[0].text
        rows = await env.store.actions(1)
        assert [r.action for r in rows][-2:] == ["draw", "move c3 d3; end"]
        game = await env.service.replay(1)
        row = await env.store.game(1)
        assert row is not None and game.position() == row.position
    finally:
        await env.store.close()


async def test_the_hint_player_never_sees_hidden_cards(tmp_path):
    """Item 1: the 💡 computer player gets the same game whatever the decks hide."""
    given: dict[int, list[dict]] = {}
    for seed in SEEDS[:2]:
        env = await make_env(tmp_path / f"h{seed}.db", seed)
        seen = given.setdefault(seed, [])

        def record(game: Game, seconds: float, seen: list[dict] = seen) -> list[str]:
            seen.append(game.position())
            return first_legal(game, seconds)

        env.service._suggest_actions = record
        try:
            await past_setup(env, "personal")
            for typed in ("", "move c3 d3; ", "mo"):
                await env.service.suggest(channel_id=CHANNEL, user_id=ANN.id, typed=typed)
        finally:
            await env.store.close()
    assert given[SEEDS[0]] and given[SEEDS[0]] == given[SEEDS[1]]


# -- item 2: odd numbers --------------------------------------------------------------

ODD = [
    "score ²",
    "stack ³",
    "score ٣",
    "play lift c3 ²",
    "score " + "9" * 4400,
    "stack " + "1" * 5000,
    "play lift c3 " + "7" * 4400,
    "score 4" + "0" * 4400,
]


@pytest.mark.parametrize("text", ODD)
def test_odd_numbers_are_notation_errors_in_the_engine(text):
    with pytest.raises(NotationError) as err:
        engine_notation.parse_actions(text)
    assert len(str(err.value)) < 300, "the message echoes a short part of the input"
    with pytest.raises(NotationError):
        Game.new(players=2, seed=1).play(text)


def test_leading_zeros_still_read_as_the_number():
    """Backwards compatible: `score 0002` is `score 2`, however many zeros lead."""
    z = "0" * 4400
    assert engine_notation.parse_actions(f"score {z}2; stack {z}; play lift c3 {z}1") == (
        ("score", 2),
        ("stack", 0),
        ("play", "lift", 18, 1),
    )


@pytest.mark.parametrize("text", ODD)
async def test_odd_numbers_get_a_clear_refusal_from_play_and_autocomplete(env: Env, text):
    await past_setup(env, "common")
    with pytest.raises(ServiceError) as err:
        await env.service.play(channel_id=CHANNEL, user=ANN, text=text)
    assert "Nothing was changed" in err.value.message and len(err.value.message) < 600
    for typed in (text, text + "; ", "end; " + text, text + "; mo"):
        await env.service.suggest(channel_id=CHANNEL, user_id=ANN.id, typed=typed)


# -- fuzz: arbitrary text, 0 tracebacks ----------------------------------------------

TOKENS = [
    "move",
    "build",
    "stack",
    "score",
    "draw",
    "keep",
    "play",
    "end",
    "knight",
    "lift",
    "turn",
    "top",
    "bottom",
    "c3",
    "d3",
    "c4",
    "e4",
    "h8",
    "a1",
    "jump",
    "ap6",
    "²",
    "٣",
    "१२",
    "9" * 4400,
    "0",
    "-1",
    ";",
    "\n",
    "\r",
    "\u2028",
    "\x00",
    "İ",
    "ǅ",
    "ß",
    "K",
]
NUMBERISH = ["²", "³", "٣", "१२", "9" * 4400, "4" + "0" * 4300, "0" * 4400, "0", "-1", "007", "٠"]
hostile = st.one_of(
    st.text(max_size=200),
    st.tuples(
        st.sampled_from(["score", "stack", "play lift c3", "move c3 d3; score", "draw; score"]),
        st.sampled_from(NUMBERISH),
    ).map(" ".join),
    st.lists(st.sampled_from(TOKENS), max_size=12).map(" ".join),
    st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=5)), max_size=12).map(" ".join),
)


@settings(max_examples=400, deadline=None)
@given(hostile)
def test_fuzz_the_engine_parser(text):
    try:
        actions = engine_notation.parse_actions(text)
    except NotationError:
        return
    assert isinstance(actions, tuple)


def test_fuzz_play_and_autocomplete(tmp_path):
    """Any text to `/torres play` and to autocomplete: a refusal or a result, never a crash."""
    loop = asyncio.new_event_loop()
    envs: list[Env] = []

    async def setup() -> None:
        for variant in ("personal", "common"):
            env = await make_env(tmp_path / f"{variant}.db", 7)
            await past_setup(env, variant)
            envs.append(env)

    loop.run_until_complete(setup())

    async def one(text: str) -> None:
        for env in envs:
            pairs = await env.service.suggest(channel_id=CHANNEL, user_id=ANN.id, typed=text)
            assert len(pairs) <= 25
            assert all(len(label) <= 100 and len(value) <= 100 for label, value in pairs)
            row = await env.store.game(1)
            assert row is not None and row.position is not None
            mover = ANN if Game.from_position(row.position).to_move == "red" else BOB
            try:
                await env.service.play(channel_id=CHANNEL, user=mover, text=text)
            except ServiceError as exc:
                assert exc.message and "Traceback" not in exc.message

    @settings(
        max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(hostile)
    def check(text: str) -> None:
        loop.run_until_complete(one(text))

    try:
        check()
    finally:
        for env in envs:
            loop.run_until_complete(env.store.close())
        loop.close()


# -- item 8: races and forged ids ------------------------------------------------------


async def test_undo_racing_a_cancel_gets_a_clear_answer(env: Env):
    await past_setup(env, "common")
    await env.service.play(channel_id=CHANNEL, user=ANN, text="move c3 d3")
    results = await asyncio.gather(
        env.service.cancel(channel_id=CHANNEL, user=ANN, can_manage_channel=False),
        env.service.undo(channel_id=CHANNEL, user=ANN),
        return_exceptions=True,
    )
    assert not isinstance(results[0], BaseException), results
    # Either the undo was served first (the service remembers the channel's game and
    # goes straight to its lock), or it waited for the cancel and is refused clearly.
    undone = await env.store.actions(1, after_seq=0)
    if isinstance(results[1], NoGame):
        assert "not running" in results[1].message or "no Torres game" in results[1].message
        assert all(a.action != "undo" for a in undone)
    else:
        assert results[1].reply.startswith("Took back `move c3 d3`"), results
        assert [a.action for a in undone].count("undo") == 1
    with pytest.raises(NoGame, match="There is no Torres game in this channel"):
        await env.service.undo(channel_id=CHANNEL, user=ANN)


@pytest.mark.parametrize("game_id, turn", [(2**63, 1), (1, 2**63), (2**64 + 5, 2**70), (-1, 1)])
async def test_forged_button_ids_are_refused_before_the_database(env: Env, game_id, turn):
    await past_setup(env, "common")
    for call in (
        env.service.end_turn(game_id=game_id, turn=turn, user=ANN),
        env.service.panel_open(game_id=game_id, turn=turn, user=ANN, undo=True),
        env.service.hand(game_id=game_id, turn=turn, user=ANN),
        env.service.end_needs_confirm(game_id=game_id, turn=turn, user=ANN),
        env.service.panel_open(game_id=game_id, turn=turn, user=ANN),
        env.service.panel_press(game_id=game_id, turn=turn, user=ANN, op="end"),
    ):
        with pytest.raises(StaleButton, match="doesn't belong to any game"):
            await call


async def test_a_command_sent_before_the_turn_began_is_refused(env: Env):
    """bob's `end`, typed while it was still ann's turn, must not end bob's brand-new turn."""
    await past_setup(env, "common")
    env.clock.now += 10
    typed_at = env.clock.now  # bob sends `end` now (out of turn) ...
    env.clock.now += 0.5
    await env.service.play(channel_id=CHANNEL, user=ANN, text="end", created_at=typed_at - 1)
    # ... ann's end landed first: it is bob's turn when his command is handled.
    with pytest.raises(NotAllowed, match="before your turn began") as refused:
        await env.service.play(channel_id=CHANNEL, user=BOB, text="end", created_at=typed_at)
    assert "Nothing was changed" in refused.value.message
    with pytest.raises(NotAllowed, match="before your turn began"):
        await env.service.undo(channel_id=CHANNEL, user=BOB, created_at=typed_at)
    row = await env.store.game(1)
    assert row is not None and row.turn_no == 5
    with pytest.raises(NotAllowed, match="before your turn began"):
        await env.service.end_turn(game_id=1, turn=5, user=BOB, created_at=typed_at)
    # Sent after the turn began: played.
    out = await env.service.play(
        channel_id=CHANNEL, user=BOB, text="end", created_at=env.clock.now + 0.1
    )
    assert out.posts


async def test_a_host_clock_ahead_of_discord_does_not_refuse_fresh_commands(env: Env):
    """This host's clock runs a minute ahead of Discord's: commands sent after the turn
    began are played; one sent before it is still refused."""
    ahead = 60.0
    await past_setup(env, "common")

    def discord_now() -> float:
        return env.clock.now - ahead

    env.clock.now += 10
    await env.service.play(
        channel_id=CHANNEL, user=ANN, text="move c3 d3", created_at=discord_now() - 0.05
    )
    early = discord_now() - 0.2  # bob's `end`, sent out of turn just before ann's end
    env.clock.now += 0.1
    await env.service.play(channel_id=CHANNEL, user=ANN, text="end", created_at=discord_now())
    env.clock.now += 0.1
    with pytest.raises(NotAllowed, match="before your turn began"):
        await env.service.play(channel_id=CHANNEL, user=BOB, text="end", created_at=early)
    env.clock.now += 1.0
    out = await env.service.play(
        channel_id=CHANNEL, user=BOB, text="move f6 f5", created_at=discord_now() - 0.05
    )
    assert out.reply.startswith("Done"), out.reply


# -- item 9: names ---------------------------------------------------------------------

HOSTILE_NAMES = [
    "[click](https://evil.example)",
    "<@123456789012345678>",
    "@everyone",
    "**bold** __u__ ~~s~~ ||spoiler||",
    "# Heading",
    "> quote",
    "`code`",
    "<#123456789012345678>",
    "-# small",
]


def unescaped(shown: str, chars: str) -> list[str]:
    """Markup characters in *shown* without the backslash that makes Discord show them as is."""
    return re.findall(r"(?<!\\)[" + re.escape(chars) + "]", shown)


@pytest.mark.parametrize("raw", HOSTILE_NAMES)
def test_names_are_shown_literally(raw):
    shown = texts.shown_name(raw)
    assert unescaped(shown, "*_~`|<>[]()#@-") == [], shown
    assert "@everyone" not in shown and not re.search(r"@\d", shown), shown
    # What the reader sees is the name as typed: drop the escapes again.
    assert re.sub(r"\\(.)", r"\1", shown).replace("\u200b", "") == raw


async def test_hostile_names_are_escaped_in_every_public_message(env: Env):
    raw = "[x](https://evil.example) <@999999999999999999> @everyone **M**"
    mallory = User(666, raw)
    s = env.service
    posts = []
    posts += (await s.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=3, bots=1)).posts
    posts += (await s.join(channel_id=CHANNEL, user=mallory)).posts
    out = await s.start(channel_id=CHANNEL, user=ANN)
    posts += out.posts
    posts += (await s.play(channel_id=CHANNEL, user=ANN, text="place c3")).posts
    board = await s.board(channel_id=CHANNEL, user=ANN)
    posts += (await s.resign(channel_id=CHANNEL, user=mallory)).posts
    shown = texts.shown_name(raw)
    texts_seen = [p.text for p in posts] + [board.text]
    with_name = [t for t in texts_seen if "evil" in t]
    assert len(with_name) >= 3, texts_seen  # join, board, resign
    for t in with_name:
        assert shown in t, t
        assert (
            "](" not in t
            and "<@999999999999999999>" not in t
            and "@everyone" not in t
            and "**M" not in t
        ), t


# -- item 11: bounded memory ------------------------------------------------------------


def test_the_parse_cache_stays_bounded_under_hostile_input():
    rng = random.Random(5)
    engine_notation.parse_actions("end")
    for i in range(20_000):
        text = "move c3 d3" + " " * rng.randrange(1, 50) + f"; {'end' if i % 2 else 'score'}"
        text += " " * (i % 3000)
        engine_notation.parse_actions(text)
    cache = engine_notation._CACHE
    assert len(cache) <= 4096
    assert sum(len(k) for k in cache) <= 4096 * 64


async def test_finished_games_leave_memory(env: Env):
    s = env.service
    for n in range(40):
        channel = 5000 + n
        await past_setup(env, "common", channel=channel)
        await s.suggest(channel_id=channel, user_id=ANN.id, typed="move c3 d3; ")
        await s.play(channel_id=channel, user=ANN, text="move c3 d3")
        if n % 2:
            await s.cancel(channel_id=channel, user=ANN, can_manage_channel=False)
        else:
            await s.resign(channel_id=channel, user=BOB)
    gc.collect()
    assert s._cache_size() == 0, "every game here is over"
    assert len(s._locks) == 0
    # Running games are cached, but only so many of them (a small bound here, to see it).
    for cache in (s._cache, s._hints, s._turn_log):
        cache.maxsize = 50
    for n in range(120):
        channel = 9000 + n
        await past_setup(env, "common", channel=channel)
        await s.suggest(channel_id=channel, user_id=ANN.id, typed="move c3 d3; ")
        await s.play(channel_id=channel, user=ANN, text="move c3 d3")
    assert 0 < s._cache_size() <= 3 * 50
    assert len(s._cache) == len(s._turn_log) == 50
