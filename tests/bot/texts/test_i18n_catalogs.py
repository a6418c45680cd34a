"""Every text a user can read has a German and a Dutch translation, with the same placeholders.

The message ids are found as ``pybabel extract -F babel.cfg`` finds them (the keywords of
``renderer.i18n.KEYWORDS``; the slash commands' texts through ``bot.client.translator``), plus
those taken from tables at run time (the engine's card names and help, the engine's
refusal templates). Texts of ``bot/`` must be in the bot's catalogs (``bot/locales``),
texts of ``renderer/`` and the cards in the renderer's (``renderer/locales``).
"""

from __future__ import annotations

import re
import string
from collections import defaultdict
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

import bot.texts.i18n
import bot.texts.refusals
import renderer.i18n
from renderer.i18n import DEFAULT, KEYWORDS, LANGUAGES

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = {"bot": bot.texts.i18n.CATALOGS, "renderer": renderer.i18n.CATALOGS}
TRANSLATED = [lang for lang in LANGUAGES if lang != DEFAULT]

# (context, msgid) or (context, (singular, plural)) -> where it was found
Key = tuple[str | None, str | tuple[str, ...]]


def _extracted() -> dict[str, dict[Key, list[str]]]:
    """Every message of the sources by package, as ``pybabel extract -F babel.cfg`` finds it."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f, str(ROOT / "babel.cfg"))
    found: dict[str, dict[Key, list[str]]] = {name: defaultdict(list) for name in PACKAGES}
    for name in PACKAGES:
        for path, lineno, message, comments, context in extract_from_dir(
            str(ROOT / name), method_map, options_map, keywords=KEYWORDS
        ):
            # Texts not marked in the source say where they come from (babel_extract).
            note = f" ({comments[0]})" if comments else ""
            found[name][(context, message)].append(f"{name}/{path}:{lineno}{note}")
    # Taken from tables at run time (babel.cfg finds them too; test_the_sources_are_found).
    for msgid in renderer.i18n.dynamic_msgids():
        found["renderer"][(None, msgid)].append("renderer.i18n.dynamic_msgids()")
    # The engine's refusal templates, once bot.texts.refusals lists them.
    for msgid in _refusal_msgids():
        found["bot"][(None, msgid)].append("bot.texts.refusals.msgids()")
    return found


def _refusal_msgids() -> list[str | tuple[str, ...]]:
    msgids = getattr(bot.texts.refusals, "msgids", None)
    if msgids is None:
        return []
    return [m if isinstance(m, str) else tuple(m) for m in msgids()]


EXTRACTED = _extracted()


def _po_files(name: str) -> list[Path]:
    return sorted((ROOT / name / "locales").glob("*/LC_MESSAGES/*.po"))


def _where(name: str, lang: str) -> dict[tuple[str | None, str], list[str]]:
    """Which .po file of *lang* holds each (context, msgid)."""
    out: dict[tuple[str | None, str], list[str]] = defaultdict(list)
    for path in (ROOT / name / "locales" / lang / "LC_MESSAGES").glob("*.po"):
        with path.open("rb") as f:
            for m in read_po(f, locale=lang):
                if m.id:
                    key = m.id if isinstance(m.id, str) else m.id[0]
                    out[(m.context, key)].append(str(path.relative_to(ROOT)))
    return out


def _header(path: Path) -> str:
    """The header entry's text (msgstr of msgid ""), its quoted lines joined as written."""
    found = re.search(r'^msgid ""\nmsgstr ""\n((?:".*"\n?)*)', path.read_text("utf-8"), re.M)
    joined = "".join(re.findall(r'^"(.*)"$', found.group(1), re.M)) if found else ""
    return joined.replace("\\n", "\n")


def _names(text: str) -> set[str]:
    """The ``{name}`` placeholders of a str.format text (ValueError if malformed)."""
    out = set()
    for _literal, field, _spec, _conv in string.Formatter().parse(text):
        if field is not None:
            out.add(re.split(r"[.\[]", field, maxsplit=1)[0])
    return out


def _check(message: str | tuple[str, ...], translated: object) -> str | None:
    """What is wrong with *translated* as the translation of *message*; None if nothing."""
    if isinstance(message, str):
        if not isinstance(translated, str):
            return "a plural entry, but the source has no plural"
        forms, sources = [translated], [message]
    else:
        if not isinstance(translated, (list, tuple)):
            return "not a plural entry (msgid_plural), but the source is a plural"
        forms = list(translated)
        sources = [message[0]] + [message[1]] * (len(forms) - 1)
    if not forms or any(not form for form in forms):
        return "no translation (empty msgstr)"
    for i, (form, source) in enumerate(zip(forms, sources, strict=True)):
        label = "" if isinstance(message, str) else f" (plural form {i})"
        try:
            want, got = _names(source), _names(form)
        except ValueError as exc:
            return f"malformed placeholders{label}: {exc}"
        if not isinstance(message, str):  # tn fills {n} itself: a form may leave it out
            want, got = want - {"n"}, got - {"n"}
        if want != got:
            return f"placeholders differ{label}: {sorted(want)} in English, {sorted(got)} here"
    return None


def test_the_sources_are_found() -> None:
    """babel.cfg finds the command texts and the engine's tables too, so the documented
    ``pybabel extract`` makes complete templates (docs/bot.md, "Adding a language")."""
    assert any(ctx == "command" for ctx, _ in EXTRACTED["bot"]), "no slash command texts"
    by_cfg = {
        name: {key for key, where in found.items() if any(w.startswith(name + "/") for w in where)}
        for name, found in EXTRACTED.items()
    }
    missed = {(None, m) for m in renderer.i18n.dynamic_msgids()} - by_cfg["renderer"]
    missed |= {(None, m) for m in _refusal_msgids()} - by_cfg["bot"]
    assert not missed, f"babel.cfg does not find {sorted(missed, key=str)[:5]}"


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_po_files_parse_and_declare_their_plurals(name: str) -> None:
    problems = []
    for lang in TRANSLATED:
        if not list((ROOT / name / "locales" / lang / "LC_MESSAGES").glob("*.po")):
            problems.append(f"{name}/locales/{lang}/LC_MESSAGES: no .po file")
    for path in _po_files(name):
        rel = path.relative_to(ROOT)
        lang = path.parts[-3]
        if lang not in LANGUAGES:
            problems.append(f"{rel}: {lang!r} is not in renderer.i18n.LANGUAGES")
        try:
            with path.open("rb") as f:
                catalog = read_po(f, locale=lang, abort_invalid=True)
        except Exception as exc:  # noqa: BLE001 - any parse error is the finding
            problems.append(f"{rel}: does not parse: {exc}")
            continue
        headers = _header(path)
        if not re.search(r"^Plural-Forms: *nplurals=\d+; *plural=.+;?$", headers, re.M):
            problems.append(f"{rel}: no Plural-Forms header")
        if not re.search(rf"^Language: *{lang}$", headers, re.M):
            problems.append(f"{rel}: no 'Language: {lang}' header")
        for m in catalog:
            if m.id and m.pluralizable and len(m.string) != catalog.num_plurals:
                problems.append(
                    f"{rel}: {m.id[0]!r} has {len(m.string)} plural forms, not {catalog.num_plurals}"
                )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_message_is_translated_with_the_same_placeholders(name: str, lang: str) -> None:
    catalog = PACKAGES[name].catalog(lang)
    files = _where(name, lang)
    problems = []
    for (context, message), sources in sorted(EXTRACTED[name].items(), key=str):
        msgid = message if isinstance(message, str) else message[0]
        shown = f"{msgid!r}" + (f" (msgctxt {context!r})" if context else "")
        entry = catalog.get(msgid, context=context)
        if entry is None:
            problems.append(f"missing: {shown}, from {', '.join(sorted(set(sources))[:3])}")
            continue
        where = ", ".join(files.get((context, msgid), ["?"]))
        if entry.fuzzy:
            problems.append(f"fuzzy: {shown} in {where}")
            continue
        wrong = _check(message, entry.string)
        if wrong:
            problems.append(f"{wrong}: {shown} in {where}")
    assert not problems, (
        f"{len(problems)} {name} texts lack a proper {lang} translation "
        f"({name}/locales/{lang}/LC_MESSAGES/*.po):\n  " + "\n  ".join(problems)
    )


def test_refusal_templates_are_extracted_once_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    listed = ["{square} is not next to {other}.", ("one block", "{n} blocks")]
    monkeypatch.setattr(bot.texts.refusals, "msgids", lambda: listed, raising=False)
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f, "babel.cfg")
    found = {
        message
        for path, _lineno, message, _comments, _context in extract_from_dir(
            str(ROOT / "bot"), method_map, options_map, keywords=KEYWORDS
        )
        if path == "texts/refusals.py"
    }
    assert {listed[0], listed[1]} <= found


def test_the_checks_catch_what_they_should() -> None:
    assert _check("Knight {square} moved.", "Ritter {square} gezogen.") is None
    assert "differ" in str(_check("Knight {square} moved.", "Ritter {feld} gezogen."))
    assert "empty" in str(_check("Done.", ""))
    assert _check(("one block", "{n} blocks"), ["ein Baustein", "{n} Bausteine"]) is None
    assert "form 1" in str(_check(("{n} block of {who}", "{n} blocks"), ["{n} {who}", "{x}"]))
    assert "plural" in str(_check(("one block", "{n} blocks"), "Bausteine"))
    assert "malformed" in str(_check("{a}", "{a"))
