"""German and Dutch games name the colours in German and Dutch: no "red", "blue",
"green" or "yellow" in any sentence a player reads.

A scripted game in each language (two humans who speak it, two computers) is played
through the service, and every text it produces is collected: the public posts (and
the legend, the picture's labels and the alt text of their pictures), the private
replies, the hands, the panels, ``/torres board``, refusals (one naming another
seat's knight), autocomplete, a reminder, resignations, a cancellation with its
scores, and the home texts after the end. The seat ids stay English only inside
notation (code spans), which is left out of the check.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from bot.core.errors import IllegalMove, NotYourTurn
from bot.core.home import HomeService
from bot.core.service import Outcome, _random_decision
from renderer import describe_view, read_view
from renderer.i18n import colour_name
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env
from tests.bot.core.test_home import to_move

ENGLISH_COLOUR = re.compile(r"\b(red|blue|green|yellow)\b", re.IGNORECASE)
#: Notation (code spans), mentions, channel links and timestamps are no prose.
NOT_PROSE = re.compile(r"`[^`]*`|<[@#t][^>]*>")


def english_colours(text: str) -> list[str]:
    """The English colour words of *text*'s prose."""
    return ENGLISH_COLOUR.findall(NOT_PROSE.sub("", text))


class Reader:
    """Everything a player reads, with where it came from."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.texts: list[tuple[str, str]] = []

    def add(self, where: str, text: str | None) -> None:
        if text:
            self.texts.append((where, text))

    def picture(self, where: str, position, viewer, highlight, note, labels, lang) -> None:
        if position is None:
            return
        for name, label in labels.items():
            self.add(f"{where}: label of {name}", label)
        self.add(f"{where}: legend", note)
        view = read_view(
            position, viewer, sorted(highlight), highlight_note=note, labels=labels, language=lang
        )
        self.add(f"{where}: alt text", describe_view(view))

    def outcome(self, where: str, out: Outcome | None) -> None:
        if out is None:
            return
        self.add(f"{where}: reply", out.reply)
        for post in out.posts:
            self.add(f"{where}: post", post.text)
            self.picture(
                f"{where}: post",
                post.position,
                None,
                post.highlight,
                post.highlight_note,
                post.labels,
                post.language,
            )

    def found(self) -> list[tuple[str, list[str], str]]:
        return [(w, english_colours(x), x) for w, x in self.texts if english_colours(x)]


async def play_a_scripted_game(env: Env, lang: str) -> Reader:
    read = Reader(lang)
    ann, bob = replace(ANN, locale=lang), replace(BOB, locale=lang)
    users = {ann.id: ann, bob.id: bob}
    service = env.service
    read.outcome(
        "new",
        await service.new(
            guild_id=GUILD, channel_id=CHANNEL, user=ann, players=4, bots=2, language=lang
        ),
    )
    read.outcome("join", await service.join(channel_id=CHANNEL, user=bob))
    started = await service.start(channel_id=CHANNEL, user=ann)
    read.outcome("start", started)
    game_id = started.posts[0].game_id
    rng = random.Random(3)
    reminded = False
    knight_refused = False
    for decision in range(2000):
        now = await to_move(env, game_id)
        if now is None:
            break
        row, game, seat = now
        if seat.is_ai:
            read.outcome("computer", await service.ai_step(game_id))
            continue
        user = users[seat.user_id]
        other = bob if user is ann else ann
        if not reminded and game.stage == "play":
            env.clock.now += 3600.0
            for post in await service.due_reminders():
                read.add("reminder", post.text)
            reminded = True
        theirs = [
            square
            for name, squares in row.position["knights"].items()
            if name != game.to_move
            for square in squares
        ]
        if not knight_refused and game.stage == "play" and theirs:
            # the engine's refusal names the knight's owner: a seat, so a colour
            with pytest.raises(IllegalMove) as refused:
                await service.play(channel_id=CHANNEL, user=user, text=f"move {theirs[0]} a1")
            read.add("knight refusal", refused.value.message)
            knight_refused = True
        if decision % 5 == 0:
            with pytest.raises(NotYourTurn) as refused:
                await service.play(channel_id=CHANNEL, user=other, text="end")
            read.add("refusal", refused.value.message)
            for label, _ in await service.suggest(
                channel_id=CHANNEL, user_id=other.id, typed="", lang=lang
            ):
                read.add("autocomplete", label)
            board = await service.board(channel_id=CHANNEL, user=other)
            read.add("board", board.text)
            read.picture(
                "board",
                board.position,
                board.viewer,
                board.highlight,
                board.highlight_note,
                board.labels,
                lang,
            )
        panel = await service.panel_open(game_id=game_id, turn=row.turn_no, user=user)
        read.add("panel", panel.model.text)
        for select in panel.model.selects:
            for option in select.options:
                read.add("panel option", f"{option.label} {option.description or ''}")
        read.picture(
            "panel",
            panel.position,
            panel.viewer,
            panel.highlight,
            panel.note,
            panel.labels,
            lang,
        )
        if game.stage == "play":
            read.add("hand", await service.hand(channel_id=CHANNEL, user=user))
        actions = _random_decision(game, rng)
        if actions[-1] == "end" and len(actions) > 1:
            first = await service.play(channel_id=CHANNEL, user=user, text=actions[0])
            read.outcome("play", first)
            actions = actions[1:]
        read.outcome(
            "play", await service.play(channel_id=CHANNEL, user=user, text="; ".join(actions))
        )
    else:
        raise AssertionError("the game did not end")

    home = HomeService(env.store, ai_level="search", clock=env.clock)
    await home.record_results()
    read.add("history", await home.history(channel_id=CHANNEL, guild_id=GUILD, lang=lang))
    read.add("stats", await home.stats(guild_id=GUILD, user_id=ann.id, name="Ann", lang=lang))
    for decision in (0, 3, None):
        past = await home.past_board(
            channel_id=CHANNEL,
            guild_id=GUILD,
            user_id=ann.id,
            game_id=game_id,
            decision=decision,
            lang=lang,
        )
        read.add("past board", past.text)
        read.picture(
            "past board",
            past.position,
            past.viewer,
            past.highlight,
            past.highlight_note,
            past.labels,
            lang,
        )

    # a second game in which both humans resign
    await service.new(
        guild_id=GUILD, channel_id=CHANNEL, user=ann, players=3, bots=1, language=lang
    )
    await service.join(channel_id=CHANNEL, user=bob)
    await service.start(channel_id=CHANNEL, user=ann)
    read.add("my games", await home.my_games(user_id=ann.id, guild_id=GUILD, lang=lang))
    read.outcome("resign", await service.resign(channel_id=CHANNEL, user=ann))
    read.outcome("resign", await service.resign(channel_id=CHANNEL, user=bob))
    await home.record_results()
    read.add("history", await home.history(channel_id=CHANNEL, guild_id=GUILD, lang=lang))
    assert knight_refused

    # a third game, cancelled after its first decision: the post gives the scores
    await service.new(guild_id=GUILD, channel_id=CHANNEL, user=ann, players=2, language=lang)
    await service.join(channel_id=CHANNEL, user=bob)
    await service.start(channel_id=CHANNEL, user=ann)
    cancelled = await service.cancel(channel_id=CHANNEL, user=ann, can_manage_channel=False)
    read.outcome("cancel", cancelled)
    in_seat_order = " · ".join(f"{colour_name(lang, p)} 0" for p in ("red", "blue"))
    assert cancelled.posts[0].text.endswith(in_seat_order)
    return read


@pytest.mark.parametrize("lang", ["de", "nl"])
async def test_no_english_colour_word_in_a_german_or_dutch_game(env: Env, lang: str):
    """Every text of a whole game names the colours in the game's language."""
    read = await play_a_scripted_game(env, lang)
    assert len(read.texts) > 200
    found = read.found()
    assert not found, "\n".join(f"{w}: {words}: {text!r}" for w, words, text in found[:40])


def test_the_check_sees_colour_words_and_skips_notation():
    """The check itself: prose is checked, code spans and mentions are not."""
    assert english_colours("Punkte: red 0 · Blue 3") == ["red", "Blue"]
    assert english_colours("Greenland, redo, `move red`, <@123>") == []
