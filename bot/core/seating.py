"""A game's life around its turns: open, join, leave, start; resign and cancel, with the
confirmation they ask first."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core.config import AI_LEVELS
from bot.core.errors import NoGame, NotAllowed, NotSeated
from bot.core.games import GameCore
from bot.core.values import COLOURS, VARIANTS, Confirmable, Outcome, Post, User
from bot.db.rows import ChannelBusy, GameRow, SeatRow
from bot.texts import lobby_words
from bot.texts import posts as texts
from bot.texts.i18n import N_, t
from bot.texts.markup import (
    mention,
    shown_name,
    timestamp,
)
from engine import Game, new_seed


class Seating(GameCore):
    """The lobby and the ways out of a game."""

    # -- lobby ------------------------------------------------------------------

    async def new(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        user: User,
        players: int = 2,
        variant: str = "common",
        bots: int = 0,
        language: str = "en",
        ai_level: str | None = None,
        lobby_channel_id: int | None = None,
        lobby_message_id: int | None = None,
    ) -> Outcome:
        """Open a game in a channel; its author takes the first seat.

        *ai_level* is how its computer players play (None: the configured level).
        A game in a thread of its own (*channel_id* the thread) has its lobby card,
        *lobby_message_id*, in *lobby_channel_id*: the card shows the lobby, so no
        lobby post is made.

        *language* is the game's (its public posts and pictures): the Discord
        layer decides it with :func:`bot.texts.i18n.game_language`.
        """
        lang = user.lang
        if not 2 <= players <= 4:
            raise NotAllowed(t(lang, "A game has 2 to 4 players."))
        if variant not in VARIANTS:
            raise NotAllowed(
                t(
                    lang,
                    "Unknown variant {variant}: choose common, personal or master.",
                    variant=repr(variant),
                )
            )
        if ai_level is not None and ai_level not in AI_LEVELS:
            raise NotAllowed(
                t(
                    lang,
                    "Unknown computer level {level}: choose random, heuristic, search or expert.",
                    level=repr(ai_level),
                )
            )
        if not 0 <= bots <= players - 1:
            raise NotAllowed(
                t(
                    lang,
                    "With {players} players there can be 0 to {most} computer players "
                    "(you take one seat yourself).",
                    players=players,
                    most=players - 1,
                )
            )
        cfg = self.config
        seed = cfg.seed if cfg.seed is not None else new_seed()  # 128 bits (docs/rules.md)
        try:
            game_id = await self._store.create_game(
                guild_id=guild_id,
                channel_id=channel_id,
                author_id=user.id,
                author_display=user.display,
                seats_wanted=players,
                bots=bots,
                variant=variant,
                seed=seed,
                reminder_interval=cfg.reminder_interval,
                reminder_limit=cfg.reminder_limit,
                idle_cancel_after=cfg.idle_cancel_after,
                now=self._clock(),
                language=language,
                ai_level=ai_level,
                lobby_channel_id=lobby_channel_id,
                lobby_message_id=lobby_message_id,
            )
        except ChannelBusy:
            row = await self._store.active_game(channel_id)
            if row:
                which = t(
                    lang,
                    "game #{game}, opened by {author}",
                    game=row.id,
                    author=mention(row.author_id),
                )
            else:
                which = t(lang, "another game")
            raise NotAllowed(
                t(
                    lang,
                    "This channel already has a Torres game ({which}). One game per channel: "
                    "start yours in a thread (or another channel), or finish that one first.",
                    which=which,
                )
            ) from None
        humans = players - bots
        text = texts.lobby_opened(game_id, user.id, players, variant, bots, humans, language)
        return Outcome(
            reply=t(lang, "You opened game #{game} and took the first seat.", game=game_id),
            posts=[] if lobby_message_id else [Post(channel_id, game_id, text, language=language)],
            game_id=game_id,
        )

    async def join(self, *, channel_id: int, user: User) -> Outcome:
        """Take a seat in the channel's open game."""
        lang = user.lang
        async with self.channel_game(channel_id, lang) as row:
            if row.status != "open":
                raise NotAllowed(t(lang, "This game has already started; wait for the next one."))
            seats = await self._store.seats(row.id)
            if any(s.user_id == user.id for s in seats):
                raise NotAllowed(t(lang, "You're already in this game."))
            human_seats = row.seats_wanted - row.bots
            if len(seats) >= human_seats:
                raise NotAllowed(
                    t(lang, "This game is full ({players} players).", players=human_seats)
                )
            await self._store.add_seat(row.id, user.id, user.display, self._clock())
        joined = len(seats) + 1
        public = row.language
        text = t(
            public,
            "{player} joined game #{game} ({joined}/{players} players).",
            player=shown_name(user.display),
            game=row.id,
            joined=joined,
            players=human_seats,
        )
        if (joined >= 2 or row.bots) and row.lobby_message_id:
            text += " " + t(
                public,
                "{author} can start it with **Start** on the game's card (or `/torres start`).",
                author=mention(row.author_id),
            )
        elif joined >= 2 or row.bots:
            text += " " + t(
                public,
                "{author} can start it with `/torres start`.",
                author=mention(row.author_id),
            )
        return Outcome(
            reply=t(lang, "You joined game #{game} (seat {seat}).", game=row.id, seat=joined),
            posts=[Post(row.channel_id, row.id, text, language=public)],
        )

    async def leave(self, *, channel_id: int, user: User) -> Outcome:
        """Give up a seat in the channel's open game."""
        lang = user.lang
        async with self.channel_game(channel_id, lang) as row:
            if row.status != "open":
                raise NotAllowed(
                    t(lang, "The game has started; to stop playing use `/torres resign`.")
                )
            seats = await self._store.seats(row.id)
            if not any(s.user_id == user.id for s in seats):
                raise NotSeated(t(lang, "You're not in this game."))
            if user.id == row.author_id:
                raise NotAllowed(
                    t(lang, "You opened this game; close it with `/torres cancel` instead.")
                )
            await self._store.remove_seat(row.id, user.id, self._clock())
        text = t(
            row.language,
            "{player} left game #{game}.",
            player=shown_name(user.display),
            game=row.id,
        )
        return Outcome(
            reply=t(lang, "You left game #{game}.", game=row.id),
            posts=[Post(row.channel_id, row.id, text, language=row.language)],
        )

    async def start(self, *, channel_id: int, user: User) -> Outcome:
        """Start the open game: seats in join order, then the computer players."""
        lang = user.lang
        async with self.channel_game(channel_id, lang) as row:
            if row.status != "open":
                raise NotAllowed(t(lang, "This game has already started."))
            if user.id != row.author_id:
                raise NotAllowed(
                    t(
                        lang,
                        "Only the game's author, {author}, can start it.",
                        author=mention(row.author_id),
                    )
                )
            humans = await self._store.seats(row.id)
            total = len(humans) + row.bots
            if total < 2:
                raise NotAllowed(
                    t(lang, "A game needs at least 2 players: wait for someone to `/torres join`.")
                )
            names = list(COLOURS[:total])
            game = Game.new(players=total, names=names, variant=row.variant, seed=row.seed)
            seating: list[tuple[int | None, str, str, bool]] = [
                (s.user_id, s.display, names[i], False) for i, s in enumerate(humans)
            ]
            seating += [(None, "Computer", names[i], True) for i in range(len(humans), total)]
            initial = game.position()
            now = self._clock()
            seats = [
                SeatRow(row.id, i, uid, display, name, is_ai, False, now)
                for i, (uid, display, name, is_ai) in enumerate(seating, start=1)
            ]
            row = replace(row, status="running", turn_no=1, turn_start_seq=0, last_seq=0)
            clock = await self._turn_clock(row.id)
            posts = [self._start_post(row, game, seats, initial, clock)]
            if row.lobby_channel_id is not None:  # the channel hears once that it started
                notice = lobby_words.start_notice(row, seats, row.language)
                posts.append(Post(row.lobby_channel_id, row.id, notice, language=row.language))
            ids = await self._store.start_game(
                row.id,
                seats=seating,
                initial=initial,
                now=now,
                outbox=[p.to_payload() for p in posts],
            )
            for post, outbox_id in zip(posts, ids, strict=True):
                post.outbox_id = outbox_id
            self._cache[row.id] = (row.last_seq, game.copy())
        return Outcome(
            reply=t(lang, "Game #{game} started.", game=row.id),
            posts=posts,
            ai_game=self._ai_pending(game, seats),
        )

    def _start_post(
        self,
        row: GameRow,
        game: Game,
        seats: list[SeatRow],
        initial: dict[str, Any],
        clock: float | None = None,
    ) -> Post:
        lang = row.language
        lines = [
            t(
                lang,
                "**Game #{game} starts** ({variant}).",
                game=row.id,
                variant=texts.variant_name(row.variant, lang),
            )
        ]
        lines += [f"{texts.dotted(s.name, lang)}: {texts.who(s, lang)}" for s in seats]
        master = texts.master_card_line(initial.get("master_card"), lang)
        if master:
            lines.append(master)
        lines.append(
            t(
                lang,
                "On your turn press **Play** below: a panel only you see lets you play by taps. "
                "`/torres play` does the same by text; `/torres rules` explains the game.",
            )
        )
        lines.append(self._next_line(row, game, seats, clock))
        return self._board_post(row, game, seats, "\n".join(lines), frozenset())

    # -- leaving and ending ----------------------------------------------------------

    async def resign(self, *, channel_id: int, user: User) -> Outcome:
        """Leave a running game: a computer takes the seat if the game has any, else it ends."""
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        if row.status != "running":
            raise NotAllowed(
                t(lang, "The game hasn't started; use `/torres leave` to give up your seat.")
            )
        async with self._lock(row.id):
            row = await self._fresh(row.id, lang=lang)
            if row.status != "running":
                raise NoGame(t(lang, "This game is not running any more."))
            seats = await self._store.seats(row.id)
            seat = next((s for s in seats if s.user_id == user.id and not s.resigned), None)
            if seat is None or seat.name is None:
                raise NotSeated(t(lang, "You're not playing in this game."))
            game = await self._load(row)
            humans_left = [s for s in seats if not s.is_ai and s.user_id != user.id]
            has_ai = any(s.is_ai for s in seats)
            public = row.language
            if has_ai and humans_left:
                text = t(
                    public,
                    "{player} ({colour}) resigned from game #{game}; "
                    "the computer plays their seat from now on.",
                    player=shown_name(user.display),
                    colour=texts.colour(seat.name, public),
                    game=row.id,
                )
                post = Post(row.channel_id, row.id, text, language=public)
                await self._resigned(row, seat, user.id, game, post, seat_to_ai=seat.name)
                seats = await self._store.seats(row.id)
                return Outcome(
                    reply=t(lang, "You resigned; the computer takes over your seat."),
                    posts=[post],
                    ai_game=self._ai_pending(game, seats),
                )
            stand_ins = await self._stand_ins(row, [s for s in seats if s.name != seat.name])
            result: dict[str, Any] = {
                "reason": "resigned",
                "by": seat.name,
                "scores": dict(game.scores),
                "winners": [],
            }
            if stand_ins:
                result["stand_ins"] = stand_ins
            mentions = tuple(
                s.user_id for s in seats if s.user_id and s.user_id != user.id and not s.is_ai
            )
            text = (
                t(
                    public,
                    "{player} ({colour}) resigned, so game #{game} ends here {mentions}",
                    player=shown_name(user.display),
                    colour=texts.colour(seat.name, public),
                    game=row.id,
                    mentions=" ".join(mention(m) for m in mentions),
                )
                + "\n"
                + texts.score_table(game, seats, public)
            )
            note = texts.stand_in_note(seats, stand_ins, public)
            text += f"\n{note}" if note else ""
            post = Post(row.channel_id, row.id, text, mentions=mentions, language=public)
            await self._resigned(row, seat, user.id, game, post, result=result)
            self._forget(row.id)
        return Outcome(reply=t(lang, "You resigned; the game is over."), posts=[post])

    async def _resigned(
        self,
        row: GameRow,
        seat: SeatRow,
        user_id: int,
        game: Game,
        post: Post,
        *,
        seat_to_ai: str | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        """The resignation in the log with its post: the seat goes to the computer, or the
        game ends with *result*."""
        await self._record(
            row,
            seat,
            user_id,
            "resign",
            "resign",
            game,
            turn_ended=False,
            result=result,
            seat_to_ai=seat_to_ai,
            outbox=[post],
        )

    async def cancel(self, *, channel_id: int, user: User, can_manage_channel: bool) -> Outcome:
        """End the channel's game: its author may; a channel manager may once it is idle."""
        lang = user.lang
        async with self.channel_game(channel_id, lang) as row:
            now = self._clock()
            not_idle = N_(
                "Only the author can cancel an active game; as a channel manager you "
                "can cancel it once it has been idle for {duration} ({time})."
            )
            self._may_cancel(row, user.id, can_manage_channel, now, lang, not_idle)
            scores = dict((row.position or {}).get("scores") or {})
            result = {"reason": "cancelled", "by": user.id, "scores": scores, "winners": []}
            public = row.language
            text = t(
                public,
                "Game #{game} was cancelled by {player}.",
                game=row.id,
                player=shown_name(user.display),
            )
            if scores:
                text += " " + t(
                    public,
                    "Scores at that point: {scores}",
                    scores=texts.score_list(
                        scores, (row.position or {}).get("players") or scores, public
                    ),
                )
            post = Post(row.channel_id, row.id, text, language=public)
            queued: list[int] = []  # the note is committed with the game's end
            if not await self._store.finish(
                row.id,
                status="cancelled",
                result=result,
                now=now,
                outbox=[post.to_payload()],
                queued=queued,
            ):
                raise NoGame(t(lang, "This game has already ended."))
            (post.outbox_id,) = queued
            self._forget(row.id)
        return Outcome(reply=t(lang, "Game #{game} is cancelled.", game=row.id), posts=[post])

    async def confirmable(
        self, *, what: str, channel_id: int, user: User, can_manage_channel: bool = False
    ) -> Confirmable:
        """Check a resign or cancel request before asking the player to confirm it.

        The question and the Confirm button's label are in the user's language.
        """
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        if what == "resign":
            if row.status != "running":
                raise NotAllowed(
                    t(lang, "The game hasn't started; use `/torres leave` to give up your seat.")
                )
            seats = await self._store.seats(row.id)
            seat = next((s for s in seats if s.user_id == user.id and not s.resigned), None)
            if seat is None or seat.name is None:
                raise NotSeated(t(lang, "You're not playing in this game."))
            humans_left = [s for s in seats if not s.is_ai and s.user_id != user.id]
            if any(s.is_ai for s in seats) and humans_left:
                question = t(
                    lang,
                    "Resign from game #{game}? You can't come back: the computer plays your "
                    "seat from then on.",
                    game=row.id,
                )
            else:
                question = t(
                    lang,
                    "Resign from game #{game}? You can't come back: the game ends for everyone.",
                    game=row.id,
                )
            return Confirmable(row.id, question, t(lang, "Resign"))
        not_idle = N_(  # worded apart from cancel's in the catalogs
            "Only the author can cancel an active game; as a channel manager you "
            "can cancel it once it has been idle for {duration} ({when})."
        )
        self._may_cancel(row, user.id, can_manage_channel, self._clock(), lang, not_idle)
        return Confirmable(
            row.id,
            t(
                lang,
                "Cancel game #{game} for everyone? It ends now, without a winner.",
                game=row.id,
            ),
            t(lang, "Cancel the game"),
        )

    async def end_needs_confirm(self, *, game_id: int, turn: int, user: User) -> int:
        """AP the player would give up by ending now (0: no confirmation needed)."""
        row, seats = await self._check_button(game_id, turn, lang=user.lang)
        game = await self._load(row)
        self._mover(row, game, seats, user)
        return (game.ap or 0) if game.stage == "play" else 0

    @staticmethod
    def _may_cancel(
        row: GameRow, user_id: int, can_manage_channel: bool, now: float, lang: str, not_idle: str
    ) -> None:
        """Refuse a cancel unless *user_id* is the author, or manages the channel and the
        game has been idle long enough (*not_idle*: the refusal's wording, in *lang*)."""
        if user_id == row.author_id:
            return
        if not can_manage_channel:
            raise NotAllowed(
                t(
                    lang,
                    "Only the game's author, {author}, can cancel it.",
                    author=mention(row.author_id),
                )
            )
        if now - row.last_activity < row.idle_cancel_after:
            when = timestamp(int(row.last_activity + row.idle_cancel_after))
            duration = texts.duration(row.idle_cancel_after, lang)
            raise NotAllowed(t(lang, not_idle, duration=duration, time=when, when=when))
