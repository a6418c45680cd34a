"""The tutorials table (``/torres learn``) on both backends (SQLite and a real PostgreSQL):
a tutorial is written whole, read back as written, and a write over an older version
is refused without changing anything."""

from __future__ import annotations

from dataclasses import replace

from bot.db.rows import TutorialRow
from tests.bot.db.test_store import backend  # noqa: F401 - the fixture, both backends

SEED = 2**127 + 12345  # a 128-bit seed, as new tutorials get


async def test_a_tutorial_is_read_back_as_written(backend):  # noqa: F811
    store = await backend.open()
    assert await store.tutorial(7) is None
    row = TutorialRow(
        7,
        SEED,
        log=("place c3", "place f6", "king f3", "undo"),
        shown=("place", "king"),
        tried=("place",),
        version=3,
        created_at=100.5,
        updated_at=200.25,
    )
    assert await store.save_tutorial(row, replacing=None)
    assert await store.tutorial(7) == row
    assert await store.tutorial(8) is None, "one user's tutorial is not another's"
    await store.close()


async def test_a_write_over_an_older_version_changes_nothing(backend):  # noqa: F811
    store = await backend.open()
    first = TutorialRow(9, SEED, log=("place c3",), version=1, created_at=1.0, updated_at=1.0)
    await store.save_tutorial(first, replacing=None)
    second = replace(first, log=("place c3", "place f6"), version=2, updated_at=2.0)
    assert await store.save_tutorial(second, replacing=1)
    stale = replace(first, log=("place c3", "place a5"), version=2, updated_at=3.0)
    assert not await store.save_tutorial(stale, replacing=1), "version 1 is gone"
    assert await store.tutorial(9) == second
    done = replace(second, finished=True, version=3)
    assert await store.save_tutorial(done, replacing=2)
    assert (await store.tutorial(9)).finished
    anew = TutorialRow(9, 5, version=1, created_at=4.0, updated_at=4.0)
    assert await store.save_tutorial(anew, replacing=None), "begun anew: whatever is there"
    assert await store.tutorial(9) == anew
    await store.close()
