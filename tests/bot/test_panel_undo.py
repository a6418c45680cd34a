"""Undo and the panel's version (issue 33 review): the public Undo acts once however
often it is pressed, the panel's words after an undo say each thing once, and a
resignation elsewhere does not make the mover's panel out of date."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.i18n import t
from bot.panel import DO, ap_line, describe
from tests.bot.conftest import ANN, Env
from tests.bot.test_panel_presses import past_setup, position


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_panel_after_an_undo_says_each_thing_once(env: Env, lang: str) -> None:
    ann = replace(ANN, locale=lang)
    turn = await past_setup(env)
    opened = await env.service.panel_open(game_id=1, turn=turn, user=ann)
    moved = await env.service.panel_press(
        game_id=1, turn=turn, user=ann, op="do", value=DO + "move c3 d3", version=opened.version
    )
    undone = await env.service.panel_press(
        game_id=1, turn=turn, user=ann, op="undo", version=moved.version
    )
    text = undone.model.text
    took = t(
        lang,
        "Took back `{action}` — {description}.",
        action="move c3 d3",
        description=describe("move c3 d3", lang=lang),
    )
    assert took in text.splitlines(), text
    # the panel shows the AP (and what to do at 0 AP) itself: the reply's line is left out
    assert ap_line(await position(env), lang=lang) not in text, text
