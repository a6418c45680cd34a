"""Several public posts of one game as one message (consecutive computer decisions),
and one long post as several messages (Discord takes at most 2,000 characters)."""

from __future__ import annotations

from dataclasses import replace

from bot.core.service import Post
from bot.texts.i18n import t
from bot.texts.posts import next_label, scores_label


def merge_posts(posts: list[Post]) -> Post:
    """One post reporting *posts* in order: each decision listed, one picture of the result.

    The earlier posts give their decision lines and any phase scoring; the last
    one adds the scores and who is next. The merged post's outbox rows are all
    marked delivered when it is sent (``Post.merged``).
    """
    if len(posts) == 1:
        return posts[0]
    lines: list[str] = []
    highlight: set[str] = set()
    for post in posts[:-1]:
        skip = (scores_label(post.language), next_label(post.language))
        lines.extend(line for line in post.text.splitlines() if line and not line.startswith(skip))
        highlight |= post.highlight
    last = posts[-1]
    lines.extend(last.text.splitlines())
    highlight |= last.highlight
    earlier = [p for p in posts[:-1] if p.position is not None or p.outbox_id is not None]
    return replace(
        last,
        text="\n".join(lines),
        highlight=frozenset(highlight),
        merged=[*earlier, *last.merged],
        highlight_note=t(last.language, "changed by the turns listed above"),
    )


MESSAGE_LIMIT = 2000  # characters Discord takes in one message's content


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """*text* as messages of at most *limit* characters, in order, cut between lines.

    A merged computer post (several decisions and phase scorings) can pass the
    limit; nothing of it may be lost, and a line cut in two reads badly. Only a
    single line longer than a message is cut, at a space where it has one (that
    space becomes the cut). Blank lines at a cut are dropped: Discord refuses
    empty messages.
    """
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in _lines_within(text.split("\n"), limit):
        extra = len(line) + (1 if current else 0)
        if current and size + extra > limit:
            pieces.append("\n".join(current))
            current, size, extra = [], 0, len(line)
        if not current and not line.strip():
            continue
        current.append(line)
        size += extra
    if current:
        pieces.append("\n".join(current))
    return pieces


def _lines_within(lines: list[str], limit: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        while len(line) > limit:
            cut = line.rfind(" ", 1, limit + 1)
            if cut <= 0:
                out.append(line[:limit])
                line = line[limit:]
            else:
                out.append(line[:cut])
                line = line[cut + 1 :]
        out.append(line)
    return out
