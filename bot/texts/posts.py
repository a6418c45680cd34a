"""Message texts: what the bot says, kept apart from what it does."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import engine
from bot.texts.i18n import DEFAULT, N_, t, tn
from bot.texts.markup import code, mention, shown_name, timestamp
from bot.texts.markup import shorten as shorten  # callers written before markup.py
from renderer.i18n import card_help, card_name, colour_name, master_card_help, master_card_name

if TYPE_CHECKING:
    from bot.db.rows import GameRow, SeatRow
    from engine import Game

STALE_BUTTON = N_(
    "These buttons belong to an earlier turn. Use the buttons on the latest turn message, "
    "or the `/torres` commands."
)

_DOTS = {"red": "🔴", "blue": "🔵", "green": "🟢", "yellow": "🟡"}
_VARIANTS = {
    "common": N_("common deck"),
    "personal": N_("personal decks"),
    "master": N_("master version"),
}


def colour_dot(name: str | None) -> str:
    return _DOTS.get(name or "", "⚪")


def colour(name: str | None, lang: str = DEFAULT) -> str:
    """A seat's colour in words, in *lang*: seat ids (``red``) belong in notation only."""
    return colour_name(lang, name or "?")


def dotted(name: str | None, lang: str = DEFAULT) -> str:
    """A seat's colour as its dot and its word: ``🟢 Grün``."""
    return f"{colour_dot(name)} {colour(name, lang)}"


def variant_name(variant: str, lang: str = DEFAULT) -> str:
    return t(lang, _VARIANTS[variant]) if variant in _VARIANTS else variant


def seat_name(seat: SeatRow, lang: str = DEFAULT) -> str:
    """A player as shown in a public message, without pinging them."""
    if seat.is_ai and seat.user_id is not None:
        who = t(lang, "Computer (for {player})", player=shown_name(seat.display))
    elif seat.is_ai:
        who = t(lang, "Computer")
    else:
        who = shown_name(seat.display)
    return f"{colour_dot(seat.name)} {who} ({colour(seat.name, lang)})"


def duration(seconds: float, lang: str = DEFAULT) -> str:
    """``14 days``, ``24 hours``, ``90 minutes``, ``30 seconds``."""
    if seconds >= 86400 and seconds % 86400 == 0:
        return tn(lang, "{n} day", "{n} days", int(seconds // 86400))
    if seconds >= 3600 and seconds % 3600 == 0:
        return tn(lang, "{n} hour", "{n} hours", int(seconds // 3600))
    if seconds >= 60 and seconds % 60 == 0:
        return tn(lang, "{n} minute", "{n} minutes", int(seconds // 60))
    return tn(lang, "{n} second", "{n} seconds", int(seconds))


def lobby_opened(
    game_id: int,
    author_id: int,
    players: int,
    variant: str,
    bots: int,
    humans: int,
    lang: str = DEFAULT,
) -> str:
    author = mention(author_id)
    kind = variant_name(variant, lang)
    if bots:
        head = tn(
            lang,
            "{author} opened Torres game #{game}: {players} players, {n} of them played by "
            "the computer, {variant}.",
            "{author} opened Torres game #{game}: {players} players, {n} of them played by "
            "the computer, {variant}.",
            bots,
            author=author,
            game=game_id,
            players=players,
            variant=kind,
        )
    else:
        head = t(
            lang,
            "{author} opened Torres game #{game}: {players} players, {variant}.",
            author=author,
            game=game_id,
            players=players,
            variant=kind,
        )
    need = humans - 1
    if need:
        tail = tn(
            lang,
            "{n} more can join with `/torres join`; {author} starts it with `/torres start`.",
            "{n} more can join with `/torres join`; {author} starts it with `/torres start`.",
            need,
            author=author,
        )
    else:
        tail = t(lang, "{author} starts it with `/torres start`.", author=author)
    return f"{head} {tail}"


def status_line(game_id: int, game: Game, seats: Sequence[SeatRow], lang: str = DEFAULT) -> str:
    scores = _scores(game.scores, game.players, lang)
    if game.stage == "over":
        return t(lang, "Game #{game} is over.", game=game_id) + " " + scores
    mover = next((s for s in seats if s.name == game.to_move), None)
    who = seat_name(mover, lang) if mover else str(game.to_move)
    text = t(
        lang,
        "Game #{game}, phase {phase}, round {round}: {player} to move.",
        game=game_id,
        phase=game.phase,
        round=game.round,
        player=who,
    )
    return f"{text} {scores}"


def scores_label(lang: str = DEFAULT) -> str:
    """The word that starts a line of scores (:func:`bot.core.batch.merge_posts` looks for it)."""
    return t(lang, "Scores:")


def next_label(lang: str = DEFAULT) -> str:
    """The word that starts the line saying who is next (see :func:`scores_label`)."""
    return t(lang, "Next:")


def _scores(scores: Mapping[str, int], order: Iterable[str], lang: str = DEFAULT) -> str:
    return scores_label(lang) + " " + score_list(scores, order, lang)


def score_list(scores: Mapping[str, int], order: Iterable[str], lang: str = DEFAULT) -> str:
    """Each seat's colour and score in seat *order*: ``Rot 3 · Blau 0``."""
    return " · ".join(f"{colour(p, lang)} {scores.get(p, 0)}" for p in order)


def scores_line(
    after: Mapping[str, int],
    before: Mapping[str, int],
    order: Iterable[str],
    lang: str = DEFAULT,
) -> str:
    parts = []
    for p in order:
        now, then = after.get(p, 0), before.get(p, 0)
        parts.append(f"{colour(p, lang)} {now}" + (f" (+{now - then})" if now != then else ""))
    return scores_label(lang) + " " + " · ".join(parts)


def score_table(game: Game, seats: Sequence[SeatRow], lang: str = DEFAULT) -> str:
    """Scores, highest first."""
    ranked = sorted(game.players, key=lambda p: -game.scores.get(p, 0))
    by_name = {s.name: s for s in seats}
    lines = [scores_label(lang)]
    for p in ranked:
        lines.append(f"{dotted(p, lang)} ({_plain(by_name.get(p), lang)}): {game.scores.get(p, 0)}")
    return "\n".join(lines)


def _plain(seat: SeatRow | None, lang: str = DEFAULT) -> str:
    if seat is None:
        return "?"
    return t(lang, "computer") if seat.user_id is None else shown_name(seat.display)


def turn_header(game_id: int, seat: SeatRow, actions: Sequence[str], lang: str = DEFAULT) -> str:
    played = "; ".join(actions) if actions else t(lang, "(nothing)")
    return t(lang, "**{player}** played `{actions}`", player=seat_name(seat, lang), actions=played)


def phase_summary(
    event: Mapping[str, Any],
    seats: Sequence[SeatRow],
    position: Mapping[str, Any] | None = None,
    lang: str = DEFAULT,
    prior: Mapping[str, int] | None = None,
) -> str:
    """One line per player: where the phase's points came from, and the new score.

    With the *position* the phase was scored on (scoring changes no block or knight),
    each player's line goes on to list every castle that scored and the king's bonus.
    With the scores before the scoring (*prior*), a player whose marker jumped over
    taken spaces (leap-frog, docs/rules.md §4) gets one line saying so.
    """
    points: Mapping[str, Mapping[str, int]] = event.get("points") or {}
    scores: Mapping[str, int] = event.get("scores") or {}
    by_name = {s.name: s for s in seats}
    detail = castle_points(position) if position is not None else {}
    lines = [t(lang, "**Phase {phase} scoring**", phase=event.get("phase"))]
    for player, parts in points.items():
        bits = [t(lang, "castles {points}", points=parts.get("castles", 0))]
        if parts.get("king"):
            bits.append(t(lang, "king {points}", points=parts["king"]))
        if parts.get("master"):
            bits.append(t(lang, "master card {points}", points=parts["master"]))
        total = sum(int(v) for v in parts.values())
        who = f"{dotted(player, lang)} ({_plain(by_name.get(player), lang)})"
        score = scores.get(player)
        if score is None:  # the engine always reports the new scores
            line = t(
                lang,
                "{player}: +{total} ({parts})",
                player=who,
                total=total,
                parts=" + ".join(bits),
            )
        else:
            line = tn(
                lang,
                "{player}: +{total} ({parts}), now {n} point",
                "{player}: +{total} ({parts}), now {n} points",
                int(score),
                player=who,
                total=total,
                parts=" + ".join(bits),
            )
        castles = detail.get(player) or []
        if position is not None and (castles or parts.get("king")):
            items = [
                tn(
                    lang,
                    "castle {square}: {n} square × level {level} = {points}",
                    "castle {square}: {n} squares × level {level} = {points}",
                    area,
                    square=where,
                    level=level,
                    points=area * level,
                )
                for where, area, level in castles
            ]
            if parts.get("king"):
                items.append(t(lang, "king's bonus {points}", points=parts["king"]))
            line += "\n↳ " + "; ".join(items)
        if prior is not None and score is not None and player in prior:
            landed = int(prior[player]) + total
            if total and int(score) != landed:
                line += "\n↳ " + t(
                    lang,
                    "Leap-frog: space {space} was taken, so the marker moved on to {score}.",
                    space=landed,
                    score=score,
                )
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


def next_player(
    game: Game,
    seat: SeatRow,
    deadline: int | None,
    lang: str = DEFAULT,
    *,
    clock_ends: int | None = None,
) -> str:
    """Who moves next and what they have to decide; in a game with a clock, when the
    computer plays the turn for them (*clock_ends*), else when they are reminded."""
    label = next_label(lang)
    if seat.is_ai or seat.user_id is None:
        return label + " " + t(lang, "{player} is thinking…", player=seat_name(seat, lang))
    who = f"{mention(seat.user_id)} ({colour(seat.name, lang)})"
    stage = game.stage
    if stage == "castles":
        what = t(
            lang,
            "{player}, place a starting block: press **Play** (or `/torres play castle SQ`).",
            player=who,
        )
    elif stage == "place":
        what = t(
            lang,
            "{player}, place your first knight on a starting castle: press **Play** "
            "(or `/torres play place SQ`).",
            player=who,
        )
    elif stage == "king" and game.position().get("king") is None:
        what = t(
            lang,
            "{player}, put the king on an empty castle: press **Play** "
            "(or `/torres play king SQ`).",
            player=who,
        )
    elif stage == "king":
        what = t(
            lang,
            "{player}, you have the fewest points: move the king or leave him, press **Play** "
            "(or `king SQ` / `king pass`).",
            player=who,
        )
    else:
        what = tn(
            lang,
            "{player}, your turn (phase {phase}, round {round}, {n} AP): press **Play**.",
            "{player}, your turn (phase {phase}, round {round}, {n} AP): press **Play**.",
            game.ap or 0,
            player=who,
            phase=game.phase,
            round=game.round,
        )
    line = f"{label} {what}"
    if clock_ends is not None:
        line += "\n" + t(
            lang,
            "⏰ The computer plays for {player} {time}.",
            player=mention(seat.user_id),
            time=timestamp(clock_ends),
        )
    elif deadline is not None:
        line += " " + t(lang, "Reminder {time}.", time=timestamp(deadline))
    return line


def game_over(game: Game, seats: Sequence[SeatRow], lang: str = DEFAULT) -> str:
    by_name = {s.name: s for s in seats}
    winners = list(game.winners)
    names = [_winner(by_name.get(w), w, lang) for w in winners]
    if len(names) == 1:
        head = t(lang, "**Game over!** {player} wins.", player=names[0])
    elif names:
        head = t(lang, "**Game over!** Shared victory: {players}.", players=", ".join(names))
    else:
        head = t(lang, "**Game over!**") + " "
    others = [
        mention(s.user_id)
        for s in seats
        if s.user_id is not None and not s.is_ai and s.name not in winners
    ]
    if others:
        head += " " + t(lang, "Well played, {players}.", players=", ".join(others))
    return head + "\n" + score_table(game, seats, lang)


def _winner(seat: SeatRow | None, name: str, lang: str) -> str:
    """A winner: their mention, or the computer that played the seat for them."""
    if seat is None or seat.user_id is None:
        return t(lang, "Computer ({colour})", colour=colour(name, lang))
    if seat.is_ai:
        who = t(lang, "Computer (for {player})", player=shown_name(seat.display))
        return f"{who} ({colour(name, lang)})"
    return f"{mention(seat.user_id)} ({colour(name, lang)})"


def hand(game: Game, name: str, lang: str = DEFAULT) -> str:
    """A player's cards with their effects (only ever sent to that player)."""
    cards = list(game.hand(name))
    view = game.position(viewer=name)
    turn = view.get("turn") or {}
    lines = [t(lang, "Your hand ({player}):", player=dotted(name, lang))]
    if not cards:
        lines.append(t(lang, "no cards."))
    for card, count in Counter(cards).items():
        many = f"{count}× " if count > 1 else ""
        lines.append(
            f"• {many}**{card_name(lang, card)}** — `play {card}`: {card_help(lang, card)}"
        )
    drawn = [c for c in (turn.get("drawn") or []) if c != "hidden"]
    if drawn and game.to_move == name:
        lines.append(
            t(
                lang,
                "Drawn this turn (playable from your next turn): {cards}",
                cards=", ".join(card_name(lang, c) for c in drawn),
            )
        )
    revealed = [c for c in (turn.get("revealed") or []) if c != "hidden"]
    if revealed and game.to_move == name:
        lines.append(
            t(
                lang,
                "Drawn, keep one with `keep CARD top` or `keep CARD bottom`: {cards}",
                cards=", ".join(f"{card_name(lang, c)} ({code(c)})" for c in revealed),
            )
        )
    master = master_card_line(view.get("master_card"), lang)
    if master:
        lines.append(master)
    return "\n".join(lines)


def master_card_line(card: str | None, lang: str = DEFAULT) -> str:
    """The master card in play (public in the master version), or '' if none."""
    if not card:
        return ""
    return t(
        lang,
        "Master card in play: **{card}** — {effect}",
        card=master_card_name(lang, card),
        effect=master_card_help(lang, card),
    )


def reminder(
    row: GameRow, seat: SeatRow, sent: int, now: float, *, clock_ends: float | None = None
) -> str:
    """A public reminder, in the game's language; in a game with a clock, when the
    computer plays the turn for its player (*clock_ends*), not when it may be cancelled."""
    lang = row.language
    text = t(
        lang,
        "{user}, it's your move in Torres game #{game} ({player}), waiting since {since}.",
        user=mention(seat.user_id or 0),
        game=row.id,
        player=colour(seat.name, lang),
        since=timestamp(row.last_activity),
    )
    nxt = int(row.last_activity + row.reminder_interval * (sent + 1))
    last = sent >= row.reminder_limit or (clock_ends is not None and nxt >= clock_ends)
    if not last:
        text += " " + t(lang, "Next reminder {time}.", time=timestamp(nxt))
    if clock_ends is not None:
        if last:
            ends = t(
                lang,
                "This is the last reminder: the computer plays this turn for you {time}.",
                time=timestamp(clock_ends),
            )
        else:
            ends = t(
                lang, "⏰ The computer plays this turn for you {time}.", time=timestamp(clock_ends)
            )
        text += " " + ends
    elif last:
        cancel_at = int(row.last_activity + row.idle_cancel_after)
        text += " " + t(
            lang,
            "This is the last reminder. From {time} the author or a channel manager "
            "may end the game with `/torres cancel`.",
            time=timestamp(cancel_at),
        )
    return text


def stand_ins_count(seats: Iterable[SeatRow], stand_ins: Collection[str]) -> bool:
    """Whether a finished game counts in stats and ratings (docs/bot.md, "Ratings").

    It does when some person really played a seat (one not among *stand_ins*, the seats
    the computer played for their players, ``GameService._stand_ins``): each stand-in
    seat then counts as a loss for its player. When the computer played every person's
    seat, nobody played the game and it counts for nobody.
    """
    return any(s.user_id is not None and s.name not in stand_ins for s in seats)


def stand_in_note(seats: Sequence[SeatRow], stand_ins: Sequence[str], lang: str = DEFAULT) -> str:
    """The game-over line saying for whom the computer played, and what counts (or "")."""
    if not stand_ins:
        return ""
    players = ", ".join(
        f"{shown_name(s.display)} ({colour(s.name, lang)})" for s in seats if s.name in stand_ins
    )
    if stand_ins_count(seats, stand_ins):
        return t(
            lang,
            "🤖 The computer played most of the turns of {players}: that counts as a loss "
            "for them in stats and ratings.",
            players=players,
        )
    return t(
        lang,
        "🤖 The computer played most of the turns of {players}: this game counts in nobody's "
        "stats or rating.",
        players=players,
    )


def picture_labels(seats: Iterable[SeatRow], lang: str = DEFAULT) -> dict[str, str]:
    """What the board picture calls each seat: the player's display name, or
    "Computer (green)" for a computer seat (the picture draws text: nothing to escape)."""
    return {s.name: picture_label(s, lang) for s in seats if s.name}


def picture_label(seat: SeatRow, lang: str = DEFAULT) -> str:
    if seat.is_ai or seat.user_id is None:
        return t(lang, "Computer ({colour})", colour=colour(seat.name, lang))
    return seat.display


def who(seat: SeatRow, lang: str = DEFAULT) -> str:
    if seat.is_ai or seat.user_id is None:
        return t(lang, "the computer")
    return mention(seat.user_id)
