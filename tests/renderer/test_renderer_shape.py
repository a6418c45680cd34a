"""The renderer's shape (issue 34): modules small enough to read in one
sitting, no class over 40 methods (counting those it inherits from the
renderer's own classes)."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

RENDERER = Path(__file__).resolve().parents[2] / "renderer"
MAX_LINES = 600
MAX_METHODS = 40
MODULES = sorted(
    "renderer" if p.stem == "__init__" else f"renderer.{p.stem}" for p in RENDERER.glob("*.py")
)


def test_no_module_over_600_lines():
    sizes = {p.name: len(p.read_text().splitlines()) for p in RENDERER.glob("*.py")}
    assert {n: s for n, s in sizes.items() if s > MAX_LINES} == {}


@pytest.mark.parametrize("name", MODULES)
def test_no_class_over_40_methods(name):
    module = importlib.import_module(name)
    for cls_name, cls in inspect.getmembers(module, inspect.isclass):
        if not cls.__module__.startswith("renderer"):
            continue
        methods = [
            m
            for m, f in inspect.getmembers(cls, inspect.isfunction)
            if f.__module__.startswith("renderer")
        ]
        assert len(methods) <= MAX_METHODS, (cls_name, len(methods), methods)
