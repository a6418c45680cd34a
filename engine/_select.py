"""Which engine runs: the compiled core or the pure-Python reference (docs/engine-speed.md).

``engine._core`` holds the modules of ``COMPILED`` compiled by mypyc from a copy of this
very source (setup.py), which call the C kernels of ``engine._native`` (engine/_native.c)
in the hottest paths.  Unless ``TORRES_ENGINE=reference``, ``choose`` puts the core's
modules in place of the reference's at the first import of ``engine`` when the core is
built from the source beside it: ``engine.game`` is then the core's module, so
``engine.Game`` is the core's, and the computer players' search and evaluation
(``engine.ai._*``) are compiled too.  The rest (errors, events, messages, squares,
records, the command line, ``engine.ai`` itself) is the same Python for both engines.
``TORRES_ENGINE=core`` insists on the core: an ImportError without it.

No relative imports: setup.py loads this file on its own.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import sys
from pathlib import Path
from types import ModuleType

# The modules compiled into the core, in an order that imports each one's needs first.
COMPILED = (
    "cards",
    "board",
    "castle_steps",
    "state",
    "notation",
    "rules",
    "rules.tables",
    "rules.common",
    "rules.moveblock",
    "rules.scoring",
    "rules.setup",
    "rules.turn",
    "rules.cards",
    "rules.actions",
    "position_fast",
    "position",
    "game",
    # the computer players' search and evaluation (engine.ai itself, with the knobs
    # callers set, such as NODES_PER_SECOND, stays Python)
    "ai._hidden",
    "ai._evaluate",
    "ai._expert_eval",
    "ai._plan",
    "ai._search",
    "ai._expert",
)
# The C kernels the compiled modules call (engine._native, built beside them from
# engine/_native*.c and the header they share)
NATIVE = "_native*.[ch]"
# Imported by the compiled modules from the reference: one IllegalAction, one Stage, ...
SHARED = ("errors", "events", "messages", "squares")

log = logging.getLogger("engine.core")
log.addHandler(logging.NullHandler())  # a library: the application decides what it shows


def source_hash(root: Path) -> str:
    """A digest of the compiled modules' source and the C kernels' under ``root`` (the
    core keeps its own)."""
    digest = hashlib.sha256()
    for name in COMPILED:
        rel = name.replace(".", "/") + ("/__init__.py" if name == "rules" else ".py")
        digest.update(rel.encode())
        digest.update((root / rel).read_bytes())
    for path in sorted(root.glob(NATIVE)):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _core_modules() -> dict[str, ModuleType]:
    """The core's modules by the reference names they replace; ImportError if not built."""
    try:
        core = importlib.import_module("engine._core")
    except ModuleNotFoundError as exc:
        raise ImportError(f"the compiled core is not built ({exc})") from exc
    built_from = getattr(core, "SOURCE_HASH", None)  # None: an empty directory, no core
    if built_from is None:
        raise ImportError("the compiled core is not built")
    if built_from != source_hash(Path(__file__).parent):
        raise ImportError(
            "the compiled core was built from other engine source: reinstall "
            "(pip install -e .) to rebuild it"
        )
    # mypyc derives a subpackage's __path__ wrongly (2.4.1): set before its modules load
    ai = importlib.import_module("engine._core.ai")
    ai.__path__ = [os.path.dirname(ai.__file__ or "")]
    modules = {}
    for name in COMPILED:
        module = modules[f"engine.{name}"] = importlib.import_module(f"engine._core.{name}")
        if name == "rules":
            module.__path__ = [os.path.dirname(module.__file__ or "")]
    return modules


def choose() -> tuple[str, str]:
    """Put the core in place when built and wanted; ("core" or "reference", a note)."""
    wanted = os.environ.get("TORRES_ENGINE", "").strip().lower()
    if wanted == "reference":
        return "reference", "the reference engine (pure Python, TORRES_ENGINE=reference)"
    note = (
        "" if wanted in ("", "core") else f"TORRES_ENGINE={wanted!r} is not 'core' or 'reference'; "
    )
    try:
        modules = _core_modules()
    except ImportError as exc:
        if wanted == "core":
            raise ImportError(f"TORRES_ENGINE=core: {exc}") from exc
        note += f"the reference engine (pure Python): {exc}"
        log.warning("%s", note)
        return "reference", note
    for name, module in modules.items():  # all imported first: no half-replaced engine
        sys.modules[name] = module
    for name, module in modules.items():
        parent, _, attr = name.rpartition(".")
        # engine.ai, not yet imported, imports its modules from the ones just put in place
        setattr(importlib.import_module(parent), attr, module)
    note += "the compiled engine core (mypyc)"
    log.info("%s", note)
    return "core", note
