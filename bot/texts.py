"""Message texts: what the bot says, kept apart from what it does."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import engine

if TYPE_CHECKING:
    from bot.store import GameRow, SeatRow
    from engine import Game

STALE_BUTTON = (
    "These buttons belong to an earlier turn. Use the buttons on the latest turn message, "
    "or the `/torres` commands."
)

_DOTS = {"red": "🔴", "blue": "🔵", "green": "🟢", "yellow": "🟡"}
_VARIANTS = {
    "common": "common deck",
    "personal": "personal decks",
    "master": "master version",
}


def shorten(text: str, limit: int = 2000) -> str:
    """*text* cut in the middle to at most *limit* characters.

    Discord refuses messages over 2000 characters, and error messages may echo
    whatever a player typed.
    """
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return text[:half] + " … " + text[-(limit - 3 - half) :]


# Discord's markdown lets a backslash escape any ASCII punctuation; these are
# the characters that start markdown, links, mentions, headings, lists or quotes.
_MARKUP = re.compile(r"([\\*_~`|<>\[\]()#@:!./-])")
NAME_MAX = 64


def shown_name(display: str) -> str:
    """A display name as literal text in a message, whatever its owner put in it.

    Names are chosen by their owners: ``**x**``, ``[text](https://…)``,
    ``<@id>``, ``@everyone`` or ``# Big`` must show as typed, never format,
    link or ping. Every markup character is escaped, ``@`` is also broken with
    a zero-width space (as :func:`discord.utils.escape_mentions` does), and
    line breaks become spaces.
    """
    flat = " ".join(display.split())[:NAME_MAX] or "?"
    return _MARKUP.sub(r"\\\1", flat).replace("@", "@\u200b")


def colour_dot(name: str | None) -> str:
    return _DOTS.get(name or "", "⚪")


def variant_name(variant: str) -> str:
    return _VARIANTS.get(variant, variant)


def seat_name(seat: SeatRow) -> str:
    """A player as shown in a public message, without pinging them."""
    who = "Computer" if seat.is_ai and seat.user_id is None else shown_name(seat.display)
    if seat.is_ai and seat.user_id is not None:
        who = f"Computer (for {shown_name(seat.display)})"
    return f"{colour_dot(seat.name)} {who} ({seat.name})"


def duration(seconds: float) -> str:
    """``14 days``, ``24 hours``, ``90 minutes``, ``30 seconds``."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    n = int(seconds)
    return f"{n} second{'s' if n != 1 else ''}"


def lobby_opened(
    game_id: int, author_id: int, players: int, variant: str, bots: int, humans: int
) -> str:
    bot_part = f", {bots} of them played by the computer" if bots else ""
    need = humans - 1
    join = f" {need} more can join with `/torres join`;" if need else ""
    return (
        f"<@{author_id}> opened Torres game #{game_id}: {players} players{bot_part}, "
        f"{variant_name(variant)}.{join} <@{author_id}> starts it with `/torres start`."
    )


def status_line(game_id: int, game: Game, seats: Sequence[SeatRow]) -> str:
    if game.stage == "over":
        return f"Game #{game_id} is over. " + _scores(game.scores, game.players)
    where = f"phase {game.phase}, round {game.round}"
    mover = next((s for s in seats if s.name == game.to_move), None)
    who = seat_name(mover) if mover else str(game.to_move)
    return f"Game #{game_id}, {where}: {who} to move. " + _scores(game.scores, game.players)


def _scores(scores: Mapping[str, int], order: Iterable[str]) -> str:
    return "Scores: " + " · ".join(f"{p} {scores.get(p, 0)}" for p in order)


def scores_line(after: Mapping[str, int], before: Mapping[str, int], order: Iterable[str]) -> str:
    parts = []
    for p in order:
        now, then = after.get(p, 0), before.get(p, 0)
        parts.append(f"{p} {now}" + (f" (+{now - then})" if now != then else ""))
    return "Scores: " + " · ".join(parts)


def score_table(game: Game, seats: Sequence[SeatRow]) -> str:
    """Scores, highest first."""
    ranked = sorted(game.players, key=lambda p: -game.scores.get(p, 0))
    by_name = {s.name: s for s in seats}
    lines = ["Scores:"]
    for p in ranked:
        lines.append(f"{colour_dot(p)} {p} ({_plain(by_name.get(p))}): {game.scores.get(p, 0)}")
    return "\n".join(lines)


def _plain(seat: SeatRow | None) -> str:
    if seat is None:
        return "?"
    return "computer" if seat.user_id is None else shown_name(seat.display)


def turn_header(game_id: int, seat: SeatRow, actions: Sequence[str]) -> str:
    played = "; ".join(actions) if actions else "(nothing)"
    return f"**{seat_name(seat)}** played `{played}`"


def phase_summary(
    event: Mapping[str, Any],
    seats: Sequence[SeatRow],
    position: Mapping[str, Any] | None = None,
) -> str:
    """One line per player: where the phase's points came from, and the new score.

    With the *position* the phase was scored on (scoring changes no block or knight),
    each player's line goes on to list every castle that scored and the king's bonus.
    """
    points: Mapping[str, Mapping[str, int]] = event.get("points") or {}
    scores: Mapping[str, int] = event.get("scores") or {}
    by_name = {s.name: s for s in seats}
    detail = castle_points(position) if position is not None else {}
    lines = [f"**Phase {event.get('phase')} scoring**"]
    for player, parts in points.items():
        bits = [f"castles {parts.get('castles', 0)}"]
        if parts.get("king"):
            bits.append(f"king {parts['king']}")
        if parts.get("master"):
            bits.append(f"master card {parts['master']}")
        total = sum(int(v) for v in parts.values())
        line = (
            f"{colour_dot(player)} {player} ({_plain(by_name.get(player))}): "
            f"+{total} ({' + '.join(bits)}), now {scores.get(player, '?')} points"
        )
        castles = detail.get(player) or []
        if position is not None and (castles or parts.get("king")):
            items = [
                f"castle {where}: {area} squares × level {level} = {area * level}"
                for where, area, level in castles
            ]
            if parts.get("king"):
                items.append(f"king's bonus {parts['king']}")
            line += "\n↳ " + "; ".join(items)
        lines.append(line)
    return "\n".join(lines)


def castle_points(position: Mapping[str, Any]) -> dict[str, list[tuple[str, int, int]]]:
    """Per player, each castle that scores: ``(its first square, area, knight's level)``.

    A player scores each castle they have a knight in (above the ground) once, with the
    highest of their knights there: area x level (docs/rules.md, "Scoring").
    """
    heights: Mapping[str, int] = position.get("heights") or {}
    knights: Mapping[str, Sequence[str]] = position.get("knights") or {}
    found = engine.castles(heights)
    out: dict[str, list[tuple[str, int, int]]] = {}
    for player, squares in knights.items():
        best: dict[int, int] = {}
        for square in squares:
            level = int(heights.get(square, 0))
            index = next((i for i, c in enumerate(found) if square in c), None)
            if index is not None and level >= 1 and level > best.get(index, 0):
                best[index] = level
        out[player] = sorted(
            ((_first(found[i]), len(found[i]), lv) for i, lv in best.items()),
            key=lambda x: (-x[1] * x[2], x[0]),
        )
    return out


def _first(squares: Iterable[str]) -> str:
    """A castle's name: its lowest square by rank, then file (``c3`` before ``a4``)."""
    return min(squares, key=lambda sq: (int(sq[1:]), sq[0]))


def next_player(game: Game, seat: SeatRow, deadline: int | None) -> str:
    """Who moves next and what they have to decide."""
    if seat.is_ai or seat.user_id is None:
        return f"Next: {seat_name(seat)} is thinking…"
    who = f"<@{seat.user_id}> ({seat.name})"
    stage = game.stage
    if stage == "castles":
        what = "place a starting block: press **Play** (or `/torres play castle SQ`)"
    elif stage == "place":
        what = "place your first knight on a starting castle: press **Play** (or `/torres play place SQ`)"
    elif stage == "king" and game.position().get("king") is None:
        what = "put the king on an empty castle: press **Play** (or `/torres play king SQ`)"
    elif stage == "king":
        what = (
            "you have the fewest points: move the king or leave him, press **Play** "
            "(or `king SQ` / `king pass`)"
        )
    else:
        what = f"your turn (phase {game.phase}, round {game.round}, {game.ap} AP): press **Play**"
    line = f"Next: {who}, {what}."
    if deadline is not None:
        line += f" Reminder <t:{deadline}:R>."
    return line


def game_over(game: Game, seats: Sequence[SeatRow]) -> str:
    by_name = {s.name: s for s in seats}
    winners = list(game.winners)
    names = [
        f"<@{by_name[w].user_id}> ({w})" if w in by_name and by_name[w].user_id else f"{w}"
        for w in winners
    ]
    head = "**Game over!** "
    if len(names) == 1:
        head += f"{names[0]} wins."
    elif names:
        head += "Shared victory: " + ", ".join(names) + "."
    others = [
        f"<@{s.user_id}>"
        for s in seats
        if s.user_id is not None and not s.is_ai and s.name not in winners
    ]
    if others:
        head += " Well played, " + ", ".join(others) + "."
    return head + "\n" + score_table(game, seats)


def hand(game: Game, name: str) -> str:
    """A player's cards with their effects (only ever sent to that player)."""
    cards = list(game.hand(name))
    view = game.position(viewer=name)
    turn = view.get("turn") or {}
    lines = [f"Your hand ({colour_dot(name)} {name}):"]
    if not cards:
        lines.append("no cards.")
    for card, count in Counter(cards).items():
        label = engine.CARDS.get(card, card)
        helptext = engine.CARD_HELP.get(card, "")
        many = f"{count}× " if count > 1 else ""
        lines.append(f"• {many}**{label}** — `play {card}`: {helptext}")
    drawn = [c for c in (turn.get("drawn") or []) if c != "hidden"]
    if drawn and game.to_move == name:
        lines.append(
            "Drawn this turn (playable from your next turn): "
            + ", ".join(engine.CARDS.get(c, c) for c in drawn)
        )
    revealed = [c for c in (turn.get("revealed") or []) if c != "hidden"]
    if revealed and game.to_move == name:
        lines.append(
            "Drawn, keep one with `keep CARD top` or `keep CARD bottom`: "
            + ", ".join(f"{engine.CARDS.get(c, c)} (`{c}`)" for c in revealed)
        )
    master = master_card_line(view.get("master_card"))
    if master:
        lines.append(master)
    return "\n".join(lines)


def master_card_line(card: str | None) -> str:
    """The master card in play (public in the master version), or '' if none."""
    if not card:
        return ""
    label = engine.MASTER_CARDS.get(card, card)
    return f"Master card in play: **{label}** — {engine.MASTER_CARD_HELP.get(card, '')}"


def reminder(row: GameRow, seat: SeatRow, sent: int, now: float) -> str:
    idle_since = int(row.last_activity)
    text = (
        f"<@{seat.user_id}>, it's your move in Torres game #{row.id} ({seat.name}), "
        f"waiting since <t:{idle_since}:R>."
    )
    if sent < row.reminder_limit:
        nxt = int(row.last_activity + row.reminder_interval * (sent + 1))
        text += f" Next reminder <t:{nxt}:R>."
    else:
        cancel_at = int(row.last_activity + row.idle_cancel_after)
        text += (
            f" This is the last reminder. From <t:{cancel_at}:R> the author or a channel "
            "manager may end the game with `/torres cancel`."
        )
    return text
