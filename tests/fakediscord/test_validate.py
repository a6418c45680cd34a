"""Discord's limits as the fake enforces them (pure functions, no client needed)."""

from __future__ import annotations

import pytest

from tests.fakediscord._model import FakeUser, parse_mentions
from tests.fakediscord._validate import (
    FormError,
    check_autocomplete,
    check_commands,
    check_components,
    check_message,
)


def button(cid: str, label: str = "x", style: int = 1) -> dict:
    return {"type": 2, "style": style, "label": label, "custom_id": cid}


def row(*items: dict) -> dict:
    return {"type": 1, "components": list(items)}


def test_components_accept_three_turn_buttons() -> None:
    check_components([row(button("t:1:1:end"), button("t:1:1:undo"), button("t:1:1:hand"))], "c")


@pytest.mark.parametrize(
    ("components", "needle"),
    [
        ([row(*(button(f"b{i}") for i in range(6)))], "1 to 5"),
        ([row(button("same"), button("same"))], "duplicated"),
        ([row(button("x" * 101))], "custom_id"),
        ([row(button("ok", label="L" * 81))], "80"),
        ([button("loose")], "action rows"),
        ([row(button("a")) for _ in range(6)], "5 action rows"),
        ([row({"type": 2, "style": 5, "label": "link", "custom_id": "no"})], "link"),
    ],
)
def test_components_refused_like_discord(components: list, needle: str) -> None:
    with pytest.raises(FormError, match=needle):
        check_components(components, "components")


def test_message_limits() -> None:
    check_message({"content": "x" * 2000}, "", n_files=0, creating=True)
    with pytest.raises(FormError, match="2000"):
        check_message({"content": "x" * 2001}, "", n_files=0, creating=True)
    with pytest.raises(FormError) as empty:
        check_message({"content": ""}, "", n_files=0, creating=True)
    assert empty.value.code == 50006
    check_message({"content": ""}, "", n_files=1, creating=True)  # a file alone is a message
    with pytest.raises(FormError, match="mutually exclusive"):
        check_message(
            {"content": "x", "allowed_mentions": {"parse": ["users"], "users": ["1"]}},
            "",
            n_files=0,
            creating=True,
        )


def test_command_sync_rules() -> None:
    ok = [
        {
            "name": "torres",
            "description": "d",
            "options": [
                {
                    "type": 1,
                    "name": "play",
                    "description": "d",
                    "options": [
                        {"type": 3, "name": "actions", "description": "d", "required": True}
                    ],
                }
            ],
        }
    ]
    check_commands(ok)
    bad_name = [{"name": "Torres", "description": "d"}]
    with pytest.raises(FormError, match="name"):
        check_commands(bad_name)
    order = [
        {
            "name": "t",
            "description": "d",
            "options": [
                {"type": 3, "name": "a", "description": "d"},
                {"type": 3, "name": "b", "description": "d", "required": True},
            ],
        }
    ]
    with pytest.raises(FormError, match="Required options"):
        check_commands(order)
    with pytest.raises(FormError, match="unique"):
        check_commands(ok + ok)
    mixed = [
        {
            "name": "t",
            "description": "d",
            "options": [ok[0]["options"][0], {"type": 3, "name": "z", "description": "d"}],
        }
    ]
    with pytest.raises(FormError, match="mixed"):
        check_commands(mixed)


def _localized(**changes: object) -> list[dict]:
    option = {
        "type": 3,
        "name": "topic",
        "description": "What to explain",
        "description_localizations": {"de": "Was erklärt werden soll", "nl": "Wat uitleggen"},
        "choices": [{"name": "king", "value": "king", "name_localizations": {"de": "König"}}],
    }
    sub = {"type": 1, "name": "rules", "description": "d", "options": [option]}
    cmd = {
        "name": "torres",
        "description": "Play Torres",
        "name_localizations": None,
        "description_localizations": {"de": "Torres spielen", "nl": "Speel Torres"},
        "options": [sub, {"type": 1, "name": "hand", "description": "d"}],
    }
    for key, value in changes.items():
        where, _, field = key.partition("__")
        {"cmd": cmd, "sub": sub, "option": option, "choice": option["choices"][0]}[where][field] = (
            value
        )
    return [cmd]


def test_localized_command_payload_accepted() -> None:
    check_commands(_localized())
    check_commands(_localized(sub__name_localizations={"de": "regeln", "nl": "regels"}))


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"cmd__description_localizations": {"german": "x"}}, "not a locale"),
        ({"cmd__description_localizations": {"de-DE": "x"}}, "not a locale"),
        ({"cmd__description_localizations": {"de": "x" * 101}}, "1 to 100"),
        ({"option__description_localizations": {"nl": ""}}, "1 to 100"),
        ({"choice__name_localizations": {"de": "K" * 101}}, "1 to 100"),
        ({"choice__name_localizations": {"xx": "K"}}, "not a locale"),
        ({"sub__name_localizations": {"de": "Regeln"}}, "invalid name"),
        ({"sub__name_localizations": {"de": "die regeln"}}, "invalid name"),
        ({"option__name_localizations": {"nl": "o" * 33}}, "invalid name"),
        ({"sub__name_localizations": {"de": "hand"}}, "unique"),
        ({"cmd__description_localizations": "Torres spielen"}, "object"),
    ],
)
def test_localizations_refused_like_discord(changes: dict, needle: str) -> None:
    with pytest.raises(FormError, match=needle):
        check_commands(_localized(**changes))


def test_autocomplete_limits() -> None:
    check_autocomplete({"choices": [{"name": "a", "value": "a"}] * 25})
    with pytest.raises(FormError, match="25"):
        check_autocomplete({"choices": [{"name": "a", "value": "a"}] * 26})
    with pytest.raises(FormError, match="100"):
        check_autocomplete({"choices": [{"name": "a", "value": "v" * 101}]})


def test_mentions_follow_allowed_mentions() -> None:
    a, b = FakeUser(1, "a"), FakeUser(2, "b")
    members = {1: a, 2: b}
    content = "<@1> and <@!2> and <@3>"
    assert parse_mentions(content, None, members) == ([1, 2], [1, 2])
    assert parse_mentions(content, {"parse": []}, members) == ([1, 2], [])
    assert parse_mentions(content, {"parse": [], "users": ["2"]}, members) == ([1, 2], [2])


def select(cid: str, options: list[dict], **extra: object) -> dict:
    return {"type": 3, "custom_id": cid, "options": options, **extra}


def opt(value: str, label: str = "x", **extra: object) -> dict:
    return {"label": label, "value": value, **extra}


def test_a_select_of_25_options_in_its_own_row_is_accepted() -> None:
    check_components(
        [row(select("s", [opt(f"v{i}", "L" * 100, description="D" * 100) for i in range(25)]))],
        "c",
    )


@pytest.mark.parametrize(
    ("components", "needle"),
    [
        ([row(select("s", [opt(f"v{i}") for i in range(26)]))], "1 to 25 options"),
        ([row(select("s", []))], "1 to 25 options"),
        ([row(select("s", [opt("v", "L" * 101)]))], "100"),
        ([row(select("s", [opt("V" * 101)]))], "100"),
        ([row(select("s", [opt("v", description="D" * 101)]))], "100"),
        ([row(select("s", [opt("v"), opt("v")]))], "unique"),
        ([row(select("s", [opt("a", default=True), opt("b", default=True)]))], "default"),
        ([row(select("s", [opt("v")]), button("b"))], "row of its own"),
        ([row(select("s", [opt("v")], max_values=26))], "min_values"),
        ([row(select("x" * 101, [opt("v")]))], "custom_id"),
    ],
)
def test_select_menus_break_discords_limits(components: list, needle: str) -> None:
    with pytest.raises(FormError) as err:
        check_components(components, "c")
    assert needle in str(err.value)


def test_members_and_guilds_get_their_locales_at_creation() -> None:
    from tests.fakediscord import FakeDiscord

    fake = FakeDiscord(locales={"alice": "de", "bob": "nl"}, guild_locale="nl", guilds=2)
    assert [fake.users[n].locale for n in ("alice", "bob", "carol")] == ["de", "nl", "en-US"]
    for gid in fake.guild_ids:
        assert fake._guild_payload(full=True, guild_id=gid)["preferred_locale"] == "nl"
    assert FakeDiscord()._guild_payload(full=False)["preferred_locale"] == "en-US"
    with pytest.raises(ValueError, match="not a Discord locale"):
        FakeDiscord(locales={"alice": "de-DE"})


def text(content: str) -> dict:
    return {"type": 10, "content": content}


def container(*items: dict, accent: int | None = 0x3366CC) -> dict:
    return {"type": 17, "accent_color": accent, "components": list(items)}


def gallery(url: str = "attachment://board.png", alt: str = "alt") -> dict:
    return {"type": 12, "items": [{"media": {"url": url}, "description": alt}]}


V2 = 1 << 15


def test_v2_layout_accepted_with_the_flag_only() -> None:
    card = [
        container(
            text("**Alice** to move"),
            {"type": 14, "divider": True, "spacing": 1},
            gallery(),
            {"type": 9, "components": [text("a")], "accessory": button("sec")},
            row(button("t:1:1:end"), button("t:1:1:undo")),
        )
    ]
    check_components(card, "components", flags=V2)
    check_message({"components": card, "flags": V2}, "", n_files=1, creating=True)
    with pytest.raises(FormError, match="IS_COMPONENTS_V2"):
        check_components(card, "components")


@pytest.mark.parametrize(
    ("components", "needle"),
    [
        ([text("x" * 2000), container(text("y" * 2001))], "4000"),
        ([container(*[row(button(f"b{i}")) for i in range(20)])], "40 components"),
        ([container(container(text("x")))], "cannot hold component type 17"),
        ([text("")], "needs text"),
        ([{"type": 9, "components": [text("a")] * 4, "accessory": button("x")}], "1 to 3"),
        ([{"type": 9, "components": [text("a")]}], "button or thumbnail"),
        ([{"type": 9, "components": [row(button("x"))], "accessory": button("y")}], "text"),
        ([gallery(alt="a" * 1025)], "1024"),
        ([gallery(url="board.png")], "attachment://"),
        ([{"type": 12, "items": []}], "1 to 10"),
        ([container(accent=0x1000000)], "1 or more"),
        ([container(text("x"), accent=0x1000000)], "RGB"),
        ([{"type": 14, "spacing": 3}], "spacing"),
        ([{"type": 11, "media": {"url": "attachment://a.png"}}], "top level"),
        ([row(text("x"))], "action row cannot hold"),
        ([{"type": 3, "custom_id": "s", "options": [{"label": "a", "value": "a"}]}], "top level"),
        ([container(text("x"), {"type": 99})], "type 99"),
        ([text("a") | {"id": 1}, text("b") | {"id": 1}], "unique"),
    ],
)
def test_v2_layouts_refused_like_discord(components: list, needle: str) -> None:
    with pytest.raises(FormError, match=needle):
        check_components(components, "components", flags=V2)


def test_v2_limits_at_the_edge_pass() -> None:
    check_components([text("x" * 2000), container(text("y" * 2000))], "c", flags=V2)
    rows = [
        row(button(f"a{i}"), button(f"b{i}"), button(f"c{i}"), button(f"d{i}")) for i in range(7)
    ]
    check_components([container(*rows, text("t"), text("u"))], "c", flags=V2)  # 1+7*5+2 = 38


def test_v2_message_has_no_content_or_embeds() -> None:
    for extra in ({"content": "hi"}, {"embeds": [{"title": "t"}]}):
        with pytest.raises(FormError, match="IS_COMPONENTS_V2"):
            check_message(
                {"components": [text("x")], "flags": V2, **extra}, "", n_files=0, creating=True
            )
