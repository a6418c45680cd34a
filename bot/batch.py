"""Several public posts of one game as one message (consecutive computer decisions)."""

from __future__ import annotations

from dataclasses import replace

from bot.i18n import t
from bot.service import Post
from bot.texts import next_label, scores_label


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
