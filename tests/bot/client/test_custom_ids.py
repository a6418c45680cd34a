"""The custom ids of the bot's components, as discord.py matches them (issue 33, items 6 and 9).

discord.py finds a ``DynamicItem`` by ``fullmatch`` of its compiled template.
``\\d`` would also match other scripts' digits, which ``int`` reads (``int("١")`` is 1):
the templates take ASCII digits only, and a panel's id carries the state it shows.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.client import replies
from bot.client.app import COMPONENTS
from bot.client.learn_views import LearnButton, LearnSelect
from bot.client.lobby import LobbyButton
from bot.client.panel_views import ConfirmButton, PanelButton, PanelSelect, panel_id
from bot.client.replies import first_delivery
from bot.client.review_views import BoardButton, ReviewButton
from bot.client.views import TurnButton


def match(cls: type, custom_id: str) -> dict[str, str | None] | None:
    found = cls.__discord_ui_compiled_template__.fullmatch(custom_id)  # type: ignore[attr-defined]
    return found.groupdict() if found else None


def test_panel_ids_carry_the_version_and_old_ones_still_match() -> None:
    assert panel_id(3, 12, 57, "hint") == "tp:3:12:57:hint"
    assert match(PanelButton, "tp:3:12:57:hint") == {
        "game": "3",
        "turn": "12",
        "version": "57",
        "op": "hint",
    }
    assert match(PanelSelect, panel_id(3, 12, 57, "do1"))["version"] == "57"  # type: ignore[index]
    # Posted by the bot before versions: still read (and redrawn at the first press).
    assert match(PanelSelect, "tp:3:12:what") == {
        "game": "3",
        "turn": "12",
        "version": None,
        "op": "what",
    }
    assert panel_id(3, 12, None, "end") == "tp:3:12:end"


@pytest.mark.parametrize(
    "custom_id",
    [
        "tp:\u0661:4:hint",  # Arabic-Indic digit one
        "tp:1:\u0664:7:hint",
        "tp:1:4:\u0667:hint",
        "tp:-1:4:hint",
        "tp:1:4:-7:hint",
        "tp:x:4:hint",
        "tp:1:4:7:8:hint",
        "torres:\u0661:1:end",
        "torres:-1:1:undo",
        "torres:ok:end:\u0661:1:yes",
        "torres:ok:end:1:\uff11:no",  # a fullwidth digit one
        "torres:review:\u0661:red:1:next",
        "torres:review:1:red:\u0661:prev",
        "torres:review:1:Red:1:next",
        "torres:board:1:\u0661:next",
        "torres:board:-1:2:prev",
        "torres:board:1:2:up",
        "tl:\u0661:3:ok",
        "tl:1:-3:leave",
        "tl:1:3:4:do0",
    ],
)
def test_no_component_reads_digits_of_other_scripts_or_signs(custom_id: str) -> None:
    assert all(match(cls, custom_id) is None for cls in COMPONENTS), custom_id


def test_each_id_the_bot_posts_has_exactly_one_reader() -> None:
    """discord.py runs every matching item: two readers of one id would act twice."""
    for custom_id in (
        "tp:1:2:3:what",
        "tp:1:2:do0",
        "tp:1:2:3:endok",
        "torres:1:2:play",
        "torres:ok:resign:1:0:yes",
        "torres:lobby:1:join",
        "torres:lobby:1:cancel",
        "torres:review:1:red:2:next",
        "torres:board:1:0:first",
        "torres:board:1:7:last",
        "tl:12:3:what",
        "tl:12:3:do2",
        "tl:12:3:leave",
    ):
        readers = [cls for cls in COMPONENTS if match(cls, custom_id)]
        assert len(readers) == 1, (custom_id, readers)
    assert {
        PanelSelect,
        PanelButton,
        TurnButton,
        ConfirmButton,
        ReviewButton,
        LobbyButton,
        BoardButton,
        LearnSelect,
        LearnButton,
    } == set(COMPONENTS)
    assert match(LobbyButton, "torres:lobby:١:join") is None  # ASCII digits only


def test_an_interaction_is_taken_once_and_memory_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replies, "SEEN_INTERACTIONS", 3)
    monkeypatch.setattr(replies, "_seen", type(replies._seen)())
    first, again = press(1), press(1)
    assert first_delivery(first) and not first_delivery(again)  # type: ignore[arg-type]
    for n in range(2, 6):
        assert first_delivery(press(n))  # type: ignore[arg-type]
    assert len(replies._seen) == 3 and first_delivery(first)  # type: ignore[arg-type]


def press(number: int, kind: str = "component") -> SimpleNamespace:
    """An interaction as ``first_delivery`` reads it."""
    return SimpleNamespace(id=number, type=getattr(discord.InteractionType, kind))


def test_keystrokes_do_not_push_presses_out_of_the_duplicate_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Autocomplete requests are answered every time and not remembered: a full memory's
    worth of keystrokes after a press leaves that press's second delivery ignored."""
    monkeypatch.setattr(replies, "SEEN_INTERACTIONS", 3)
    monkeypatch.setattr(replies, "_seen", type(replies._seen)())
    assert first_delivery(press(1))  # type: ignore[arg-type]
    for n in range(2, 6):
        keystroke = press(n, "autocomplete")
        assert first_delivery(keystroke) and first_delivery(keystroke)  # type: ignore[arg-type]
    assert not first_delivery(press(1))  # type: ignore[arg-type]


FIELDS = ("game_id", "turn", "op", "version", "user", "seat", "page", "decision", "action")
FIELDS += ("what", "answer", "to")


@pytest.mark.parametrize(
    "item",
    [
        TurnButton(7, 3, "play"),
        PanelSelect(7, 3, "what", version=12),
        PanelSelect(7, 3, "do1", version=None),  # a panel posted before versions
        PanelButton(7, 3, "undo", version=12),
        PanelButton(7, 3, "endok", version=None),
        ConfirmButton("resign", 7, 3, "yes"),
        LobbyButton(7, "join"),
        ReviewButton(7, "blue", 4, "next"),
        BoardButton(7, 0, "first"),
        LearnSelect(42, 5, "do2"),
        LearnButton(42, 5, "leave"),
    ],
    ids=lambda item: item.item.custom_id,
)
async def test_a_component_is_rebuilt_from_its_custom_id_as_it_was_posted(item: Any) -> None:
    """After a restart discord.py rebuilds a pressed component from its custom id alone
    (``from_custom_id``): every field must come back, with its type, in its place."""
    cls = type(item)
    found = cls.__discord_ui_compiled_template__.fullmatch(item.item.custom_id)
    assert found is not None
    rebuilt = await cls.from_custom_id(None, None, found)  # type: ignore[arg-type]
    assert rebuilt.item.custom_id == item.item.custom_id
    for name in FIELDS:
        if hasattr(item, name):
            value = getattr(rebuilt, name)
            assert value == getattr(item, name) and type(value) is type(getattr(item, name)), name
