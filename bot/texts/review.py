"""The words of game summaries and turn reviews (``/torres review``, the final post).

Plain text and Discord's bold/code markdown only: nobody is mentioned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.db.rows import SeatRow
from bot.texts.i18n import DEFAULT, t, tn
from bot.texts.posts import seat_name
from engine.ai.review import MUCH, DecisionReview, shown
from engine.summary import CastleScore

BEST_CASTLES = 3


def chart_title(game_id: int, lang: str = DEFAULT) -> str:
    """The chart's heading (the renderer draws it as given)."""
    return t(lang, "Game #{game}: points after every decision", game=game_id)


ALT_LIMIT = 1024  # Discord's longest attachment description


def chart_alt(
    game_id: int, seats: Sequence[SeatRow], final: Mapping[str, int],
    scorings: Sequence[tuple[int, int, int]], lang: str = DEFAULT,
) -> str:  # fmt: skip
    """The chart's alt text: the final scores, and when each phase was scored with the
    king's castle's size then (*scorings*: phase, decision, size)."""
    scores = ", ".join(
        f"{seat_name(s, lang)} {final.get(s.name, 0)}" for s in seats if s.name is not None
    )
    parts = [
        t(lang, "Score chart of game #{game}. Final scores: {scores}.", game=game_id, scores=scores)
    ]
    for phase, decision, size in scorings:
        parts.append(
            tn(
                lang,
                "Phase {phase} scored after decision {decision}; the king's castle covered "
                "{n} square.",
                "Phase {phase} scored after decision {decision}; the king's castle covered "
                "{n} squares.",
                size,
                phase=phase,
                decision=decision,
            )
        )
    text = " ".join(parts)
    return text if len(text) <= ALT_LIMIT else text[: ALT_LIMIT - 1] + "…"


def best_castles(
    best: Mapping[str, Sequence[CastleScore]], seats: Sequence[SeatRow], lang: str = DEFAULT
) -> str:
    """Per player, the castles that scored most over the game, most points first."""
    lines = [t(lang, "**Castles that scored most**")]
    for seat in seats:
        if seat.name is None:
            continue
        found = best.get(seat.name) or []
        if found:
            what = ", ".join(_castle(c, lang) for c in found[:BEST_CASTLES])
        else:
            what = t(lang, "no castle scored")
        lines.append(f"{seat_name(seat, lang)}: {what}")
    return "\n".join(lines)


def _castle(c: CastleScore, lang: str) -> str:
    return t(
        lang,
        "{square} {points} ({area} × level {level}, phase {phase})",
        square=c.square,
        points=c.points,
        area=c.area,
        level=c.level,
        phase=c.phase,
    )


def summary_text(game_id: int, seats: Sequence[SeatRow], best: str, lang: str = DEFAULT) -> str:
    """``/torres review game:N``'s answer beside the chart."""
    head = t(
        lang,
        "Game #{game}: every player's points after every decision, the phase scorings "
        "and the size of the king's castle (`chart.png`).",
        game=game_id,
    )
    more = t(
        lang,
        "A player's decisions, one by one against the `expert` computer player: "
        "`/torres review game:{game} player:@name`.",
        game=game_id,
    )
    return "\n".join((head, best, more))


def _worth(value: float) -> str:
    return str(shown(value))


def _lost(r: DecisionReview) -> str:
    """The loss as the two rounded worths shown beside it differ (never "71, 35 more")."""
    return str(r.loss)


def _where(r: DecisionReview, lang: str) -> str:
    setup_king = r.stage == "king" and (r.phase, r.round) == (1, 1) and not r.world.get("king")
    if r.stage in ("castles", "place") or setup_king:
        return t(lang, "setup")
    if r.stage == "king":
        return t(lang, "king's move after phase {phase}", phase=r.phase)
    return t(lang, "phase {phase}, round {round}", phase=r.phase, round=r.round)


def review_front(
    game_id: int, seat: SeatRow, reviews: Sequence[DecisionReview], top: Sequence[DecisionReview],
    lang: str = DEFAULT, *, own: bool = True,
) -> str:  # fmt: skip
    """The first page: whose review, and the largest swings (*own*: the reviewed
    player reads it)."""
    lines = [
        t(
            lang,
            "**Review of {player} in game #{game}**, by the `expert` computer player",
            player=seat_name(seat, lang),
            game=game_id,
        ),
        t(
            lang,
            "Worth: the points a position promises by the expert's evaluation "
            "(the points scored plus what the board, knights and cards hold).",
        ),
    ]
    if top:
        lines.append(t(lang, "**Largest swings** (points given away against the expert's choice):"))
        for i, r in enumerate(top, start=1):
            lines.append(
                t(
                    lang,
                    "{i}. Decision {decision} ({where}): worth {after} instead of {best} (−{loss})",
                    i=i,
                    decision=r.number,
                    where=_where(r, lang),
                    after=_worth(r.after),
                    best=_worth(r.suggested_after),
                    loss=_lost(r),
                )
            )
    else:
        lines.append(
            t(
                lang,
                "No decision gave away {much} points or more against the expert's choice.",
                much=_worth(MUCH),
            )
        )
    if own:
        lines.append(
            tn(
                lang,
                "▶ shows your {n} decision.",
                "▶ goes through your {n} decisions, one at a time.",
                len(reviews),
            )
        )
    else:
        lines.append(
            tn(
                lang,
                "▶ shows the {n} decision of {player}.",
                "▶ goes through the {n} decisions of {player}, one at a time.",
                len(reviews),
                player=seat_name(seat, lang),
            )
        )
    return "\n".join(lines)


def review_page(
    game_id: int,
    r: DecisionReview,
    index: int,
    count: int,
    played_words: str,
    suggested_words: str,
    lang: str = DEFAULT,
    *,
    played: Sequence[str] | None = None,
) -> str:
    """One decision's page: what was played and its worth, and the expert's choice
    where it was worth much more (*played*: the actions as the reader may see them,
    by default ``r.played``)."""
    lines = [
        t(
            lang,
            "**Game #{game}, decision {decision}** ({where}) · {index}/{count}",
            game=game_id,
            decision=r.number,
            where=_where(r, lang),
            index=index,
            count=count,
        ),
        t(
            lang,
            "Played: `{actions}` ({words})",
            actions="; ".join(r.played if played is None else played),
            words=played_words,
        ),
        t(
            lang,
            "Worth before: {before}; after: {after} ({change}).",
            before=_worth(r.before),
            after=_worth(r.after),
            change=f"{shown(r.after) - shown(r.before):+d}",
        ),
    ]
    if r.suggested[-1:] == ("draw",):  # cut at a personal draw (engine.ai.review._cut)
        suggested_words = t(lang, "{words}, then keep the best", words=suggested_words)
    if r.swing:
        lines.append(
            t(
                lang,
                "The expert would have played `{actions}` ({words}): worth {best}, "
                "{loss} more. Pictures: the decision played, then the expert's.",
                actions="; ".join(r.suggested),
                words=suggested_words,
                best=_worth(r.suggested_after),
                loss=_lost(r),
            )
        )
    elif r.suggested and r.suggested != r.played:
        lines.append(_close(r, lang))
    else:
        lines.append(t(lang, "The expert would have decided the same."))
    return "\n".join(lines)


def _close(r: DecisionReview, lang: str) -> str:
    """The expert's other choice that was no swing, by the worths shown (never "about
    as much" for 4 more, or for less)."""
    diff = shown(r.suggested_after) - shown(r.after)
    actions, best = "; ".join(r.suggested), _worth(r.suggested_after)
    if diff > 0:
        return t(
            lang,
            "The expert's choice, `{actions}`, is worth {best}: {diff} more.",
            actions=actions, best=best, diff=diff,
        )  # fmt: skip
    if diff < 0:
        return t(
            lang,
            "The expert's choice, `{actions}`, is worth {best}: {diff} less.",
            actions=actions, best=best, diff=-diff,
        )  # fmt: skip
    return t(
        lang, "The expert's choice, `{actions}`, is worth {best}: as much.", actions=actions,
        best=best,
    )  # fmt: skip


def played_note(lang: str = DEFAULT) -> str:
    """The picture's legend for the squares the decision played changed."""
    return t(lang, "changed by the decision played")


def suggested_note(lang: str = DEFAULT) -> str:
    """The legend of the expert's picture."""
    return t(lang, "changed by the expert's choice")
