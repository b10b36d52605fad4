"""The house: its public names import, its wings import in one direction only, and no room or
function outgrows the size the developers' guide allows (CONTRIBUTING.md, "Layout")."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

import components

from .conftest import ROOT

COMPONENTS = ROOT / "components"
WINGS = {
    # wing: the packages of ``components`` it may import besides its own
    "registration": set(),
    "args": {"registration.routing", "registration.inputs", "registration.rules"},
    "render": {"args"},
}
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60


def modules(*folders: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for folder in folders for p in folder.rglob("*.py"))


def all_imports(path: pathlib.Path) -> set[str]:
    """Every name a module imports, as absolute dotted paths (``from a import b`` is ``a.b``)."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def imported(path: pathlib.Path) -> set[str]:
    """What a module of ``components`` imports from ``components``, as dotted paths under it."""
    return {name.removeprefix("components.") for name in all_imports(path) if name.startswith("components.")}


@pytest.mark.parametrize("name", components.__all__)
def test_every_public_name_imports(name):
    assert getattr(components, name) is not None


def test_the_public_names_import_in_a_fresh_interpreter():
    probe = "import components; [getattr(components, n) for n in components.__all__]; print(len(components.__all__))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert int(out) == len(components.__all__) >= 12


@pytest.mark.parametrize("wing", sorted(WINGS))
def test_a_wing_imports_only_itself_and_what_it_may(wing):
    allowed = WINGS[wing] | {wing}
    wrong = {}
    for path in modules(COMPONENTS / wing):
        bad = {m for m in imported(path) if not any(m == a or m.startswith(f"{a}.") for a in allowed)}
        if bad:
            wrong[str(path.relative_to(ROOT))] = sorted(bad)
    assert wrong == {}


def test_the_registration_wing_imports_neither_pydantic_nor_kubernetes_objects():
    for path in modules(COMPONENTS / "registration"):
        heavy = {name for name in all_imports(path) if name.split(".")[0] in ("pydantic", "pulumi_kubernetes")}
        assert heavy == set(), path


@pytest.mark.parametrize("path", modules(COMPONENTS, ROOT / "scripts"), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_room_or_function_outgrows_its_size(path):
    text = path.read_text()
    assert text.count("\n") <= MAX_MODULE_LINES
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node) else node.body
            if not body:
                continue
            lines = (node.end_lineno or 0) - body[0].lineno + 1
            assert lines <= MAX_FUNCTION_LINES, f"{node.name}: {lines} lines"


@pytest.mark.parametrize("package", ["args", "render", "registration", "package"])
def test_each_wing_says_what_it_is(package):
    doc = ast.get_docstring(ast.parse((COMPONENTS / package / "__init__.py").read_text()))
    assert doc and len(doc.splitlines()) == 2, "two lines: what the wing is and what it may import"
