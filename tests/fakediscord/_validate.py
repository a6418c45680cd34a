"""Discord's own limits, checked so that a bot which would fail on Discord fails here too.

Real Discord answers 400 ``Invalid Form Body`` (code 50035) for these; the fake
does the same and records the error, so a test notices instead of passing on a
payload Discord would reject.
"""

from __future__ import annotations

import re
from typing import Any

NAME_RE = re.compile(r"^[-_'\w]{1,32}$", re.UNICODE)

# The locales Discord accepts as keys of name_localizations / description_localizations
# (https://discord.com/developers/docs/reference#locales).
LOCALES = frozenset(
    [
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    ]
)


class FormError(Exception):
    """One violated limit: ``path`` like ``data.components.0.components.1.label``."""

    def __init__(self, path: str, message: str, *, code: int = 50035, status: int = 400):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message
        self.code = code
        self.status = status

    def body(self) -> dict[str, Any]:
        errors: dict[str, Any] = {}
        node = errors
        parts = [p for p in self.path.split(".") if p]
        for p in parts:
            node = node.setdefault(p, {})
        node["_errors"] = [{"code": "FAKE_DISCORD_LIMIT", "message": self.message}]
        if self.code != 50035:
            return {"code": self.code, "message": self.message}
        return {"code": 50035, "message": "Invalid Form Body", "errors": errors}


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


IS_COMPONENTS_V2 = 1 << 15
# Components V2 (https://discord.com/developers/docs/components/reference): what may
# stand at the top of a message, and inside a Container.
V2_TOP = frozenset({1, 9, 10, 12, 13, 14, 17})
V2_IN_CONTAINER = frozenset({1, 9, 10, 12, 13, 14})
MAX_COMPONENTS = 40  # every component of a message, nested ones included
MAX_TEXT_DISPLAY = 4000  # the text of all Text Displays of a message, together
MAX_MEDIA_DESCRIPTION = 1024


def check_components(components: Any, path: str, *, flags: int = 0) -> None:
    """Legacy messages: up to 5 action rows. Components V2 (flag 1 << 15): the layout types,
    nested as Discord allows, 40 components in all and 4,000 characters of Text Display.
    Everywhere: action rows of at most 5 buttons or one select, custom_ids unique, <= 100."""
    if components is None:
        return
    if not isinstance(components, list):
        raise FormError(path, "must be a list")
    v2 = bool(flags & IS_COMPONENTS_V2)
    if not v2 and len(components) > 5:
        raise FormError(path, "must have at most 5 action rows")
    seen: set[str] = set()
    ids: set[int] = set()
    count = 0
    text = 0

    def walk(items: list[Any], p: str, parent: int | None) -> None:
        nonlocal count, text
        for i, c in enumerate(items):
            cp = f"{p}.{i}"
            if not isinstance(c, dict) or "type" not in c:
                raise FormError(cp, "component needs a type")
            t = c["type"]
            count += 1
            if count > MAX_COMPONENTS:
                raise FormError(path, f"a message holds at most {MAX_COMPONENTS} components")
            if c.get("id") is not None:
                if c["id"] in ids:
                    raise FormError(f"{cp}.id", "component ids must be unique in a message")
                ids.add(c["id"])
            if parent is None and not v2 and t != 1:
                raise FormError(
                    cp, "top-level components must be action rows (no IS_COMPONENTS_V2 flag)"
                )
            if parent is None and v2 and t not in V2_TOP:
                raise FormError(cp, f"component type {t} cannot be at the top level")
            if parent == 17 and t not in V2_IN_CONTAINER:
                raise FormError(cp, f"a container cannot hold component type {t}")
            if parent == 1 and t not in (2, 3, 5, 6, 7, 8):
                raise FormError(cp, f"an action row cannot hold component type {t}")
            if t in (9, 10, 11, 12, 13, 14, 17) and not v2:
                raise FormError(cp, f"component type {t} needs the IS_COMPONENTS_V2 flag")
            if t == 1:
                children = c.get("components", [])
                if not 1 <= len(children) <= 5:
                    raise FormError(f"{cp}.components", "an action row holds 1 to 5 components")
                selects = [x for x in children if isinstance(x, dict) and x.get("type") != 2]
                if selects and len(children) > 1:
                    raise FormError(f"{cp}.components", "a select menu needs a row of its own")
                walk(children, f"{cp}.components", 1)
            elif t == 2:
                _check_button(c, cp, seen)
            elif t in (3, 5, 6, 7, 8):
                if parent != 1:
                    raise FormError(cp, "a select menu must be inside an action row")
                _check_select(c, cp, seen)
            elif t == 4:
                _check_custom_id(c, cp, seen)
            elif t == 10:
                content = c.get("content")
                if not isinstance(content, str) or not content:
                    raise FormError(f"{cp}.content", "a text display needs text")
                text += len(content)
                if text > MAX_TEXT_DISPLAY:
                    raise FormError(
                        path, f"text displays exceed {MAX_TEXT_DISPLAY} characters in total"
                    )
            elif t == 9:
                children = c.get("components") or []
                if not 1 <= len(children) <= 3:
                    raise FormError(f"{cp}.components", "a section holds 1 to 3 text displays")
                if any(not isinstance(x, dict) or x.get("type") != 10 for x in children):
                    raise FormError(f"{cp}.components", "a section holds text displays only")
                walk(children, f"{cp}.components", 9)
                acc = c.get("accessory")
                if not isinstance(acc, dict) or acc.get("type") not in (2, 11):
                    raise FormError(f"{cp}.accessory", "a section needs a button or thumbnail")
                walk([acc], f"{cp}.accessory", 9)
            elif t == 11:
                if parent != 9:
                    raise FormError(cp, "a thumbnail is a section's accessory")
                _check_media(c, cp)
            elif t == 12:
                items = c.get("items") or []
                if not 1 <= len(items) <= 10:
                    raise FormError(f"{cp}.items", "a media gallery holds 1 to 10 items")
                for j, item in enumerate(items):
                    _check_media(item, f"{cp}.items.{j}")
            elif t == 13:
                url = (c.get("file") or {}).get("url")
                if not isinstance(url, str) or not url.startswith("attachment://"):
                    raise FormError(f"{cp}.file.url", "a file component shows an attachment://")
            elif t == 14:
                if c.get("spacing", 1) not in (1, 2):
                    raise FormError(f"{cp}.spacing", "spacing is 1 (small) or 2 (large)")
                if not isinstance(c.get("divider", True), bool):
                    raise FormError(f"{cp}.divider", "divider is a boolean")
            elif t == 17:
                children = c.get("components") or []
                if not children:
                    raise FormError(f"{cp}.components", "a container holds 1 or more components")
                accent = c.get("accent_color")
                if accent is not None and (
                    not isinstance(accent, int) or not 0 <= accent <= 0xFFFFFF
                ):
                    raise FormError(f"{cp}.accent_color", "a colour is an RGB integer")
                walk(children, f"{cp}.components", 17)
            else:
                raise FormError(f"{cp}.type", f"unknown component type {t!r}")

    walk(components, path, None)


def media_urls(components: list[Any]) -> list[tuple[str, str]]:
    """(path, url) of every media a V2 message shows (gallery items, thumbnails, files)."""
    out: list[tuple[str, str]] = []

    def walk(items: list[Any], p: str) -> None:
        for i, c in enumerate(items):
            if not isinstance(c, dict):
                continue
            cp = f"{p}.{i}"
            if c.get("type") == 11:
                out.append((f"{cp}.media.url", (c.get("media") or {}).get("url", "")))
            elif c.get("type") == 12:
                for j, item in enumerate(c.get("items") or []):
                    out.append(
                        (f"{cp}.items.{j}.media.url", (item.get("media") or {}).get("url", ""))
                    )
            elif c.get("type") == 13:
                out.append((f"{cp}.file.url", (c.get("file") or {}).get("url", "")))
            for key in ("components", "accessory"):
                sub = c.get(key)
                if isinstance(sub, list):
                    walk(sub, f"{cp}.{key}")
                elif isinstance(sub, dict):
                    walk([sub], f"{cp}.{key}")

    walk(components, "components")
    return out


def _check_media(item: Any, path: str) -> None:
    """An unfurled media item (a URL or an ``attachment://`` name) and its alt text."""
    if not isinstance(item, dict):
        raise FormError(path, "must be an object")
    url = (item.get("media") or {}).get("url")
    if not isinstance(url, str) or not url:
        raise FormError(f"{path}.media.url", "a media item needs a url")
    if not url.startswith(("attachment://", "https://", "http://")):
        raise FormError(f"{path}.media.url", "a media url is attachment:// or http(s)://")
    if _len(item.get("description")) > MAX_MEDIA_DESCRIPTION:
        raise FormError(
            f"{path}.description", f"must be {MAX_MEDIA_DESCRIPTION} or fewer in length"
        )


def _check_button(c: dict[str, Any], cp: str, seen: set[str]) -> None:
    style = c.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        raise FormError(f"{cp}.style", f"invalid button style {style!r}")
    if _len(c.get("label")) > 80:
        raise FormError(f"{cp}.label", "must be 80 or fewer in length")
    if not c.get("label") and not c.get("emoji"):
        raise FormError(cp, "a button needs a label or an emoji")
    if style == 5:
        if not c.get("url") or c.get("custom_id"):
            raise FormError(cp, "a link button has a url and no custom_id")
    elif style != 6:
        _check_custom_id(c, cp, seen)


def _check_select(c: dict[str, Any], cp: str, seen: set[str]) -> None:
    _check_custom_id(c, cp, seen)
    if c["type"] == 3:
        _check_options_of_select(c, cp)
    low, high = c.get("min_values", 1), c.get("max_values", 1)
    if not (0 <= low <= 25 and 1 <= high <= 25 and low <= high):
        raise FormError(f"{cp}.min_values", "min_values/max_values out of range")
    if _len(c.get("placeholder")) > 150:
        raise FormError(f"{cp}.placeholder", "must be 150 or fewer in length")


def _check_options_of_select(c: dict[str, Any], cp: str) -> None:
    """String select options: 1-25, label and value 1-100, description <= 100, unique values."""
    opts = c.get("options", [])
    if not 1 <= len(opts) <= 25:
        raise FormError(f"{cp}.options", "a select menu has 1 to 25 options")
    values: set[str] = set()
    defaults = 0
    for j, o in enumerate(opts):
        op = f"{cp}.options.{j}"
        if not 1 <= _len(o.get("label")) <= 100:
            raise FormError(f"{op}.label", "Must be between 1 and 100 in length.")
        if not 1 <= _len(o.get("value")) <= 100:
            raise FormError(f"{op}.value", "Must be between 1 and 100 in length.")
        if _len(o.get("description")) > 100:
            raise FormError(f"{op}.description", "Must be 100 or fewer in length.")
        if o["value"] in values:
            raise FormError(f"{op}.value", "Select menu option values must be unique")
        values.add(o["value"])
        defaults += bool(o.get("default"))
    if defaults > c.get("max_values", 1):
        raise FormError(f"{cp}.options", "more default options than max_values")


def _check_custom_id(c: dict[str, Any], path: str, seen: set[str]) -> None:
    cid = c.get("custom_id")
    if not isinstance(cid, str) or not 1 <= len(cid) <= 100:
        raise FormError(f"{path}.custom_id", "custom_id must be 1 to 100 characters")
    if cid in seen:
        raise FormError(f"{path}.custom_id", "Component custom id cannot be duplicated")
    seen.add(cid)


def check_embeds(embeds: Any, path: str) -> None:
    if embeds is None:
        return
    if not isinstance(embeds, list) or len(embeds) > 10:
        raise FormError(path, "at most 10 embeds")
    total = 0
    for i, e in enumerate(embeds):
        ep = f"{path}.{i}"
        limits = {"title": 256, "description": 4096}
        for key, limit in limits.items():
            n = _len(e.get(key))
            total += n
            if n > limit:
                raise FormError(f"{ep}.{key}", f"must be {limit} or fewer in length")
        fields = e.get("fields", [])
        if len(fields) > 25:
            raise FormError(f"{ep}.fields", "at most 25 fields")
        for j, f in enumerate(fields):
            if not 1 <= _len(f.get("name")) <= 256:
                raise FormError(f"{ep}.fields.{j}.name", "must be 1 to 256 in length")
            if not 1 <= _len(f.get("value")) <= 1024:
                raise FormError(f"{ep}.fields.{j}.value", "must be 1 to 1024 in length")
            total += _len(f.get("name")) + _len(f.get("value"))
        footer = (e.get("footer") or {}).get("text")
        if _len(footer) > 2048:
            raise FormError(f"{ep}.footer.text", "must be 2048 or fewer in length")
        total += _len(footer) + _len((e.get("author") or {}).get("name"))
    if total > 6000:
        raise FormError(path, "embeds exceed 6000 characters in total")


def check_message(body: dict[str, Any], path: str, *, n_files: int, creating: bool) -> None:
    """The message limits of Create Message / Execute Webhook / callback data."""
    content = body.get("content")
    if content is not None and not isinstance(content, str):
        raise FormError(f"{path}content", "must be a string")
    if _len(content) > 2000:
        raise FormError(f"{path}content", "Must be 2000 or fewer in length.")
    am = body.get("allowed_mentions")
    if am is not None:
        parse = am.get("parse") or []
        for kind in ("users", "roles"):
            if kind in parse and am.get(kind):
                raise FormError(
                    f"{path}allowed_mentions",
                    f"parse:[{kind}] and {kind}:[...] are mutually exclusive",
                )
            if len(am.get(kind) or []) > 100:
                raise FormError(f"{path}allowed_mentions.{kind}", "at most 100 ids")
    check_embeds(body.get("embeds"), f"{path}embeds")
    flags = body.get("flags") or 0
    check_components(body.get("components"), f"{path}components", flags=flags)
    if flags & IS_COMPONENTS_V2:
        for key in ("content", "embeds", "poll", "sticker_ids"):
            if body.get(key):
                raise FormError(
                    f"{path}{key}", f"{key} cannot be used with the IS_COMPONENTS_V2 flag"
                )
    if creating and not (
        content
        or body.get("embeds")
        or n_files
        or body.get("components")
        or body.get("poll")
        or body.get("sticker_ids")
    ):
        raise FormError(path.rstrip(".") or "content", "Cannot send an empty message", code=50006)


OPTION_TYPES = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}


def check_commands(commands: Any) -> None:
    """Bulk-overwrite body: names, descriptions, option order and counts as Discord checks them."""
    if not isinstance(commands, list):
        raise FormError("", "body must be a list of commands")
    if len(commands) > 100:
        raise FormError("", "at most 100 commands")
    names: set[tuple[int, str]] = set()
    for i, cmd in enumerate(commands):
        cp = str(i)
        ctype = cmd.get("type", 1)
        name = cmd.get("name")
        if not isinstance(name, str):
            raise FormError(f"{cp}.name", "required")
        if ctype == 1:
            if not NAME_RE.match(name) or name != name.lower():
                raise FormError(f"{cp}.name", f"invalid chat input command name {name!r}")
            if not 1 <= _len(cmd.get("description")) <= 100:
                raise FormError(f"{cp}.description", "must be 1 to 100 in length")
        _check_localizations(cmd, cp, chat_input=ctype == 1)
        if (ctype, name) in names:
            raise FormError(f"{cp}.name", f"Application command names must be unique ({name!r})")
        names.add((ctype, name))
        _check_options(cmd.get("options") or [], f"{cp}.options", depth=0)
    for ctype in {c.get("type", 1) for c in commands}:
        _check_unique_localized([c for c in commands if c.get("type", 1) == ctype], "")


def _localizations(item: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    """``item[key]`` (``None`` or a dict keyed by Discord locales); invalid keys refused."""
    value = item.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FormError(f"{path}.{key}", "must be an object (locale: text) or null")
    for locale in value:
        if locale not in LOCALES:
            raise FormError(
                f"{path}.{key}.{locale}", f"Invalid Form Body: {locale!r} is not a locale"
            )
    return value


def _check_localizations(item: dict[str, Any], path: str, *, chat_input: bool) -> None:
    """A command's or an option's localized names and descriptions, as Discord checks them."""
    for locale, name in _localizations(item, "name_localizations", path).items():
        bad = not isinstance(name, str) or not NAME_RE.match(name) or name != name.lower()
        if (chat_input and bad) or not 1 <= _len(name) <= 32:
            raise FormError(f"{path}.name_localizations.{locale}", f"invalid name {name!r}")
    for locale, text in _localizations(item, "description_localizations", path).items():
        if not 1 <= _len(text) <= 100:
            raise FormError(
                f"{path}.description_localizations.{locale}", "must be 1 to 100 in length"
            )


def _check_unique_localized(items: list[dict[str, Any]], path: str) -> None:
    """Names must stay unique among siblings in every locale (a localized name or the name)."""
    locales = set()
    for item in items:
        locales |= set(item.get("name_localizations") or {})
    for locale in sorted(locales):
        seen: set[str] = set()
        for i, item in enumerate(items):
            name = (item.get("name_localizations") or {}).get(locale, item.get("name"))
            if name in seen:
                raise FormError(
                    f"{path}{i}.name_localizations.{locale}",
                    f"names must be unique in every locale ({name!r} twice in {locale})",
                )
            seen.add(name)


def _check_options(options: list[dict[str, Any]], path: str, depth: int) -> None:
    if len(options) > 25:
        raise FormError(path, "at most 25 options")
    seen: set[str] = set()
    optional_seen = False
    has_sub = any(o.get("type") in (1, 2) for o in options)
    for i, o in enumerate(options):
        op = f"{path}.{i}"
        t = o.get("type")
        if t not in OPTION_TYPES:
            raise FormError(f"{op}.type", f"invalid option type {t!r}")
        name = o.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name) or name != name.lower():
            raise FormError(f"{op}.name", f"invalid option name {name!r}")
        if name in seen:
            raise FormError(f"{op}.name", f"duplicate option name {name!r}")
        seen.add(name)
        if not 1 <= _len(o.get("description")) <= 100:
            raise FormError(f"{op}.description", "must be 1 to 100 in length")
        _check_localizations(o, op, chat_input=True)
        if has_sub and t not in (1, 2):
            raise FormError(op, "subcommands cannot be mixed with other options")
        if t == 2:
            if depth > 0:
                raise FormError(op, "subcommand groups cannot be nested")
            subs = o.get("options") or []
            if any(s.get("type") != 1 for s in subs):
                raise FormError(f"{op}.options", "a subcommand group holds only subcommands")
            _check_options(subs, f"{op}.options", depth + 1)
        elif t == 1:
            _check_options(o.get("options") or [], f"{op}.options", depth + 2)
        else:
            if o.get("required"):
                if optional_seen:
                    raise FormError(
                        op, "Required options must be placed before non-required options"
                    )
            else:
                optional_seen = True
            choices = o.get("choices")
            if choices is not None:
                if len(choices) > 25:
                    raise FormError(f"{op}.choices", "at most 25 choices")
                if o.get("autocomplete"):
                    raise FormError(op, "autocomplete and choices are mutually exclusive")
                for j, c in enumerate(choices):
                    if not 1 <= _len(c.get("name")) <= 100:
                        raise FormError(f"{op}.choices.{j}.name", "must be 1 to 100 in length")
                    cp = f"{op}.choices.{j}"
                    for locale, text in _localizations(c, "name_localizations", cp).items():
                        if not 1 <= _len(text) <= 100:
                            raise FormError(
                                f"{cp}.name_localizations.{locale}", "must be 1 to 100 in length"
                            )
    _check_unique_localized(options, f"{path}.")


def check_autocomplete(data: dict[str, Any]) -> None:
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise FormError("data.choices", "required")
    if len(choices) > 25:
        raise FormError("data.choices", "Must be 25 or fewer in length.")
    for j, c in enumerate(choices):
        if not 1 <= _len(c.get("name")) <= 100:
            raise FormError(f"data.choices.{j}.name", "Must be between 1 and 100 in length.")
        v = c.get("value")
        if isinstance(v, str) and not 1 <= len(v) <= 100:
            raise FormError(f"data.choices.{j}.value", "Must be between 1 and 100 in length.")


def check_modal(data: dict[str, Any]) -> None:
    if not 1 <= _len(data.get("custom_id")) <= 100:
        raise FormError("data.custom_id", "must be 1 to 100 in length")
    if not 1 <= _len(data.get("title")) <= 45:
        raise FormError("data.title", "must be 1 to 45 in length")
    if not 1 <= len(data.get("components") or []) <= 5:
        raise FormError("data.components", "a modal holds 1 to 5 components")
