"""The tutorial service (bot.core.learning) on a real SQLite store: a tutorial played
to its end through taps, each lesson shown once and tried before the next; left and
picked up again after a restart; taps on an older message change nothing."""

from __future__ import annotations

from bot.core import learn
from bot.core.learn import SCRIPT
from bot.core.learning import LearnService, LearnView, replay
from bot.core.panel import DO, WHAT
from bot.core.service import User
from bot.db.sqlite import Store
from tests.bot.conftest import ANN, BOB, Clock, random_ai

ALL = [lesson.id for lesson in SCRIPT]


def _first_action(view: LearnView) -> tuple[str, str]:
    """The tap a hurried learner makes: the first action offered (a group's first, once
    the group shows), else End turn."""
    for select in sorted(view.selects, key=lambda s: s.key == "what"):
        for option in select.options:
            return ("what" if select.key == "what" else "do"), option.value
    if view.can_confirm:
        return "ok", ""
    assert view.can_end, view.text
    return "end", ""


async def _play_through(service: LearnService, user=ANN, limit: int = 600) -> list[str]:
    """Tap until the tutorial ends; the lesson titles as they were first shown."""
    view = await service.begin(user)
    titles: list[str] = []
    for _ in range(limit):
        titles += [line for line in view.text.splitlines() if line.startswith("🎓 **Lesson")]
        if view.position is not None:  # the learner's view: never the computer's cards
            assert view.position["seed"] is None
            assert set(view.position["hands"]["red"]) <= {"hidden"}
            assert set(view.position["decks"]["common"]) <= {"hidden"}
        if view.closed:
            return titles
        op, value = _first_action(view)
        view = await service.press(user, owner=user.id, version=view.version, op=op, value=value)
    raise AssertionError("the tutorial did not end")


async def test_a_tutorial_is_played_to_its_end_by_taps(tmp_path):
    store = await Store.open(str(tmp_path / "t.db"))
    service = LearnService(store, seed=7, clock=Clock(), think=random_ai)
    titles = await _play_through(service)
    # each lesson once, numbered in the order shown (it shows on every tap while open)
    firsts = list(dict.fromkeys(titles))
    assert len(firsts) == len(SCRIPT)
    assert [t.split(":")[0] for t in firsts] == [
        f"🎓 **Lesson {n} of {len(SCRIPT)}" for n in range(1, len(SCRIPT) + 1)
    ]
    row = await store.tutorial(ANN.id)
    assert row is not None and row.finished
    assert list(row.shown) == list(row.tried), "each tried before the next was shown"
    assert sorted(row.shown) == sorted(ALL) and row.shown[:5] == tuple(ALL[:5])
    game = replay(row)
    assert learn.finished(game, row.tried)
    again = await service.begin(ANN)
    assert "Lesson 1 of" in again.text, "a finished tutorial: /torres learn begins a new one"
    await store.close()


async def test_leaving_and_coming_back_after_a_restart(tmp_path):
    path = str(tmp_path / "t.db")
    store = await Store.open(path)
    service = LearnService(store, seed=7, clock=Clock(), think=random_ai)
    view = await service.begin(BOB)
    assert "Placing your first knight" in view.text and view.highlight
    assert view.position is not None and view.position["hands"]["red"] == []
    op, value = _first_action(view)
    view = await service.press(BOB, owner=BOB.id, version=view.version, op=op, value=value)
    assert "The king" in view.text
    left = await service.press(BOB, owner=BOB.id, version=view.version, op="leave")
    assert left.closed and "/torres learn" in left.text
    await store.close()
    store = await Store.open(path)
    service = LearnService(store, seed=7, clock=Clock(), think=random_ai)
    back = await service.begin(BOB)
    assert back.version == view.version and "The king" in back.text, "picked up where it was"
    assert back.selects == view.selects and back.highlight == view.highlight
    assert not back.closed and back.selects
    await store.close()


async def test_a_tap_on_an_older_message_or_someone_elses_changes_nothing(tmp_path):
    store = await Store.open(str(tmp_path / "t.db"))
    service = LearnService(store, seed=7, clock=Clock(), think=random_ai)
    view = await service.begin(ANN)
    op, value = _first_action(view)
    after = await service.press(ANN, owner=ANN.id, version=view.version, op=op, value=value)
    stale = await service.press(ANN, owner=ANN.id, version=view.version, op=op, value=value)
    assert "out of date" in stale.text and stale.version == after.version
    assert (await store.tutorial(ANN.id)).version == after.version
    other = await service.press(BOB, owner=ANN.id, version=after.version, op="leave")
    assert other.closed and "someone else's" in other.text
    wrong = await service.press(ANN, owner=ANN.id, version=after.version, op="do", value=DO + "end")
    assert "not one of the choices" in wrong.text, "only the lesson's actions while it is open"
    assert (await store.tutorial(ANN.id)).version == after.version
    await store.close()


async def test_free_play_between_lessons_offers_the_whole_panel(tmp_path):
    store = await Store.open(str(tmp_path / "t.db"))
    service = LearnService(store, seed=7, clock=Clock(), think=random_ai)
    view = await service.begin(ANN)
    for _ in range(40):  # to the first moment with no lesson open
        if "Play your turn as you like" in view.text:
            break
        op, value = _first_action(view)
        view = await service.press(ANN, owner=ANN.id, version=view.version, op=op, value=value)
    else:
        raise AssertionError("no free play in the first turn")
    assert view.can_end and view.selects[0].key == "what"
    group = next(o.value for o in view.selects[0].options if o.value.startswith(WHAT))
    shown = await service.press(ANN, owner=ANN.id, version=view.version, op="what", value=group)
    assert shown.version == view.version and len(shown.selects) >= 2, "the group's choices"
    await store.close()


async def test_the_lessons_speak_the_learners_language(tmp_path):
    store = await Store.open(str(tmp_path / "t.db"))
    service = LearnService(store, seed=7, clock=Clock(), think=random_ai)
    for locale, title, marks in (
        (
            "de",
            "Lektion 1 von 12: Deinen ersten Ritter einsetzen",
            "leere Burgen für deinen Ritter",
        ),
        ("nl", "Les 1 van 12: Je eerste ridder inzetten", "lege burchten voor je ridder"),
    ):
        user = User(300 + len(locale), "Lea", locale=locale)
        view = await service.begin(user)
        assert title in view.text and view.note == marks
        assert "Choose" not in view.text and view.selects[0].placeholder != "Try it: choose"
    await store.close()
