"""The words of game summaries and turn reviews (``/torres review``, the final post).

Plain text and Discord's bold/code markdown only: nobody is mentioned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.db.rows import SeatRow
from bot.texts.i18n import DEFAULT, t, tn
from bot.texts.posts import seat_name
from engine.ai.review import MUCH, DecisionReview
from engine.summary import CastleScore

BEST_CASTLES = 3


def chart_title(game_id: int, lang: str = DEFAULT) -> str:
    """The chart's heading (the renderer draws it as given)."""
    return t(lang, "Game #{game}: points after every decision", game=game_id)


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
    return f"{value:.0f}"


def _lost(r: DecisionReview) -> str:
    """The loss as the two rounded worths shown beside it differ (never "71, 35 more")."""
    return str(round(r.suggested_after) - round(r.after))


def _where(r: DecisionReview, lang: str) -> str:
    if r.stage in ("castles", "place"):
        return t(lang, "setup")
    if r.stage == "king":
        return t(lang, "king's move after phase {phase}", phase=r.phase)
    return t(lang, "phase {phase}, round {round}", phase=r.phase, round=r.round)


def review_front(
    game_id: int, seat: SeatRow, reviews: Sequence[DecisionReview], top: Sequence[DecisionReview],
    lang: str = DEFAULT,
) -> str:  # fmt: skip
    """The first page: whose review, and the largest swings."""
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
    lines.append(
        tn(
            lang,
            "▶ goes through your {n} decision, one at a time.",
            "▶ goes through the {n} decisions, one at a time.",
            len(reviews),
            n=len(reviews),
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
) -> str:
    """One decision's page: what was played and its worth, and the expert's choice
    where it was worth much more."""
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
            actions="; ".join(r.played),
            words=played_words,
        ),
        t(
            lang,
            "Worth before: {before}; after: {after} ({change}).",
            before=_worth(r.before),
            after=_worth(r.after),
            change=f"{round(r.after) - round(r.before):+d}",
        ),
    ]
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
        lines.append(
            t(
                lang,
                "The expert's choice, `{actions}`, is worth {best}: about as much.",
                actions="; ".join(r.suggested),
                best=_worth(r.suggested_after),
            )
        )
    else:
        lines.append(t(lang, "The expert would have decided the same."))
    return "\n".join(lines)


def played_note(lang: str = DEFAULT) -> str:
    """The picture's legend for the squares the decision played changed."""
    return t(lang, "changed by the decision played")


def suggested_note(lang: str = DEFAULT) -> str:
    """The legend of the expert's picture."""
    return t(lang, "changed by the expert's choice")
