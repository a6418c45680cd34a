"""The words of a game played in a thread of its own: the lobby card in the channel,
the channel's start and result notices, the thread's name (docs/bot.md, "Threads")."""

from __future__ import annotations

from collections.abc import Sequence

from bot.db.rows import GameRow, SeatRow
from bot.texts.i18n import DEFAULT, N_, t, tn
from bot.texts.markup import channel_link, mention, shorten, shown_name
from bot.texts.posts import score_list, seat_name, variant_name


def thread_name(game_id: int, author: str, lang: str = DEFAULT) -> str:
    """The name of a game's thread (Discord allows 100 characters)."""
    return shorten(t(lang, "Torres game #{game} ({author})", game=game_id, author=author), 100)


def lobby_card(
    row: GameRow, seats: Sequence[SeatRow], lang: str = DEFAULT, replay_url: str | None = None
) -> str:
    """The lobby card in the channel, as the game stands: open (seats, what to press),
    running (who plays, whose turn), over (the result and the replay) or cancelled."""
    head = t(
        lang,
        "**Torres game #{game}** · {variant} · opened by {author}",
        game=row.id,
        variant=variant_name(row.variant, lang),
        author=mention(row.author_id),
    )
    thread = channel_link(row.channel_id)
    lines = [head]
    if row.status == "open":
        humans = row.seats_wanted - row.bots
        names = ", ".join(shown_name(s.display) for s in seats)
        lines.append(
            tn(
                lang,
                "{joined} of {n} seat taken: {players}.",
                "{joined} of {n} seats taken: {players}.",
                humans,
                joined=len(seats),
                players=names,
            )
        )
        if row.bots:
            lines.append(
                tn(lang, "And {n} computer player.", "And {n} computer players.", row.bots)
            )
        if len(seats) < humans:
            lines.append(
                t(
                    lang,
                    "Press **Join** to take a seat; the author presses **Start** when ready. "
                    "The game plays in {thread}.",
                    thread=thread,
                )
            )
        else:
            lines.append(
                t(
                    lang,
                    "Every seat is taken: the author can press **Start**. "
                    "The game plays in {thread}.",
                    thread=thread,
                )
            )
    elif row.status == "running":
        players = ", ".join(seat_name(s, lang) for s in seats)
        lines.append(t(lang, "Playing in {thread}: {players}.", thread=thread, players=players))
        to_move = (row.position or {}).get("to_move")
        mover = next((s for s in seats if s.name == to_move), None)
        if mover is not None:
            lines.append(
                t(
                    lang,
                    "Turn {turn}: {player} to move.",
                    turn=row.turn_no,
                    player=seat_name(mover, lang),
                )
            )
    elif row.status == "over":
        lines.append(result_line(row, seats, lang))
        lines.append(t(lang, "The game is in {thread}.", thread=thread))
        if replay_url:
            lines.append(t(lang, "Replay: {link}", link=replay_url))
    else:
        lines.append(t(lang, "This game was cancelled."))
    return "\n".join(lines)


def result_line(row: GameRow, seats: Sequence[SeatRow], lang: str = DEFAULT) -> str:
    """A finished game's result in one line: who won, and every score."""
    result = row.result or {}
    scores: dict[str, int] = dict(result.get("scores") or {})
    by_name = {s.name: s for s in seats}
    winners = [seat_name(by_name[w], lang) for w in result.get("winners") or [] if w in by_name]
    order = [s.name for s in seats if s.name]
    table = score_list(scores, order, lang)
    if len(winners) == 1:
        return t(lang, "{player} won. {scores}", player=winners[0], scores=table)
    if winners:
        return t(
            lang, "Shared victory: {players}. {scores}", players=", ".join(winners), scores=table
        )
    return t(lang, "Game over. {scores}", scores=table)


def start_notice(row: GameRow, seats: Sequence[SeatRow], lang: str = DEFAULT) -> str:
    """The channel's one post when a game in a thread starts."""
    players = ", ".join(seat_name(s, lang) for s in seats)
    text = N_("**Torres game #{game} has started** in {thread}: {players}.")
    return _thread_notice(row, lang, text, players=players)


def result_notice(row: GameRow, seats: Sequence[SeatRow], lang: str = DEFAULT) -> str:
    """The channel's one post when a game in a thread ends."""
    text = N_("**Torres game #{game} is over** ({thread}): {result}")
    return _thread_notice(row, lang, text, result=result_line(row, seats, lang))


def _thread_notice(row: GameRow, lang: str, text: str, **params: object) -> str:
    """*text* (a msgid) in *lang*, naming game *row* (``{game}``) and linking the thread
    it is played in (``{thread}``): the start and result notices the channel gets."""
    return t(lang, text, game=row.id, thread=channel_link(row.channel_id), **params)


def which_game(rows: Sequence[GameRow], lang: str = DEFAULT) -> str:
    """Asked in a channel whose games each play in a thread: which one is meant."""
    games = ", ".join(
        t(lang, "#{game} in {thread}", game=r.id, thread=channel_link(r.channel_id)) for r in rows
    )
    return t(
        lang,
        "This channel has several Torres games: {games}. Use the command in the game's thread "
        "(or the buttons on its card).",
        games=games,
    )
