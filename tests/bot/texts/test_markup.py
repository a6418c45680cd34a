"""bot.texts.markup: the one writer of Discord's markup, and Discord's limits by name."""

from __future__ import annotations

from bot.texts import markup


def test_mentions_links_and_times_in_discord_syntax() -> None:
    assert markup.mention(42) == "<@42>"
    assert markup.channel_link(7) == "<#7>"
    assert markup.timestamp(1700000000.9) == "<t:1700000000:R>"
    assert markup.timestamp(1700000000, "f") == "<t:1700000000:f>"


def test_code_span_survives_a_backtick() -> None:
    assert markup.code("move c3 d3") == "`move c3 d3`"
    assert markup.code("a`b") == "`` a`b ``"


def test_names_never_format_or_ping() -> None:
    assert markup.shown_name("**Bold** @everyone") == "\\*\\*Bold\\*\\* \\@\u200beveryone"
    assert markup.shown_name("a\nb") == "a b"
    assert markup.shown_name("   ") == "?"
    assert len(markup.shown_name("x" * 200)) == markup.NAME_MAX


def test_cuts_keep_within_the_limit() -> None:
    text = "abcdefghij" * 30
    for limit in (10, 100, 299):
        assert len(markup.shorten(text, limit)) == limit
        assert len(markup.cut_end(text, limit)) == limit and markup.cut_end(text, limit)[-1] == "…"
        assert (
            len(markup.cut_start(text, limit)) == limit and markup.cut_start(text, limit)[0] == "…"
        )
    assert markup.cut_end("short", 10) == markup.cut_start("short", 10) == "short"
    assert markup.shorten("x" * 5000) == markup.shorten("x" * 5000, markup.MESSAGE_LIMIT)
    assert len(markup.shorten("x" * 5000)) == 2000
