"""The house: its public names import, its wings import in one direction only, and no room or
function outgrows the size the developers' guide allows (CONTRIBUTING.md, "Layout")."""

from __future__ import annotations

import ast
import collections
import json
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
    "args": {"registration.routing", "registration.inputs", "registration.rules", "registration.attributes"},
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


HEAVY = {
    # wing: what none of its modules may load, directly or through anything it imports
    "args": {"pulumi", "pulumi_kubernetes", "httpx", "httpcore"},
    "render": {"pulumi", "pulumi_kubernetes", "httpx", "httpcore"},
    "registration": {"pydantic", "pulumi_kubernetes"},
}


def module_name(path: pathlib.Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


@pytest.mark.parametrize(
    ("wing", "module"),
    [(wing, module_name(path)) for wing in sorted(HEAVY) for path in modules(COMPONENTS / wing)],
    ids=lambda value: value,
)
def test_no_module_of_a_wing_loads_what_the_wing_must_not(wing, module):
    """In a fresh interpreter, so that what an import loads on the way is seen too."""
    probe = f"import importlib, json, sys; importlib.import_module({module!r}); print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    )
    assert sorted(HEAVY[wing] & {name.split(".")[0] for name in loaded}) == []


def test_the_probe_sees_a_heavy_import():
    """The check above can fail: a module of the glue loads the SDK."""
    probe = "import importlib, sys; importlib.import_module('components.connector_component'); print('pulumi' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()
        == "True"
    )


def test_no_two_modules_share_a_stem():
    """A name says one thing: ``registration`` is the wing, not also a model, a resource and a glue module."""
    stems = collections.Counter(p.stem for p in modules(COMPONENTS) if p.stem not in ("__init__", "__main__"))
    stems.update(p.name for p in COMPONENTS.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert [stem for stem, count in stems.items() if count > 1] == []


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


@pytest.mark.parametrize("wing", ["render", "registration"])
def test_every_module_of_a_wing_has_its_test_module_beside_the_wings_tests(wing):
    untested = [
        p.stem
        for p in modules(COMPONENTS / wing)
        if p.stem != "__init__" and not (ROOT / "tests" / wing / f"test_{p.stem}.py").exists()
    ]
    assert untested == []
