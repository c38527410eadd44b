"""The layer's floors, checked on the source: each floor imports only what lies below it.

store (floor 1) -> guards (floor 2) -> domain (floor 3) -> ddbguard_api (the HTTP edge). The shared kernel
(`ddbguard.errors`, `ddbguard.limits`, `ddbguard.observability`, `ddbguard.release`, `ddbguard.tracing`,
`ddbguard.snapshot_hooks`)
may be imported from every floor and imports no floor itself. Only `ddbguard.store` touches the DynamoDB client.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

LAYER = Path(__file__).resolve().parents[2] / "functions" / "layer" / "python"
KERNEL = {
    "ddbguard.errors",
    "ddbguard.limits",
    "ddbguard.observability",
    "ddbguard.records",
    "ddbguard.release",
    "ddbguard.snapshot_hooks",
    "ddbguard.tracing",
}
# floor -> the ddbguard modules it may import (prefixes), besides its own
ALLOWED = {
    "ddbguard.store": ("ddbguard.store",),
    "ddbguard.guards": ("ddbguard.store", "ddbguard.guards"),
    "ddbguard.domain": ("ddbguard.store", "ddbguard.guards", "ddbguard.domain"),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(LAYER).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in ("ddbguard", "ddbguard_api")}


LAYER_MODULES = sorted((LAYER / "ddbguard").rglob("*.py"))


def _is_module(name: str) -> bool:
    return (LAYER / Path(*name.split("."))).with_suffix(".py").exists() or (LAYER / Path(*name.split("."))).is_dir()


@pytest.mark.parametrize("path", LAYER_MODULES, ids=lambda p: str(p.relative_to(LAYER)))
def test_each_floor_imports_only_what_lies_below_it(path: Path) -> None:
    name = _module_name(path)
    imported = {module for module in _imports(path) if _is_module(module)}
    assert not {m for m in imported if m.startswith("ddbguard_api")}, f"{name}: ddbguard never imports the HTTP edge"
    if name in KERNEL:
        assert imported <= KERNEL, f"{name} is kernel and imports a floor: {imported - KERNEL}"
        return
    floor = next((f for f in ALLOWED if name.startswith(f)), None)
    if floor is None:  # the package docstring module
        assert not imported - KERNEL, name
        return
    for module in imported - KERNEL:
        assert module.startswith(ALLOWED[floor]), f"{name} (floor {floor}) imports {module}"


def test_only_the_store_calls_the_dynamodb_client() -> None:
    calls = re.compile(r"\bclient\(\)")
    offenders = [
        str(path.relative_to(LAYER))
        for path in (LAYER / "ddbguard").rglob("*.py")
        if calls.search(path.read_text(encoding="utf-8")) and "store" not in path.relative_to(LAYER).parts
    ]
    assert offenders == []


def test_the_boundary_check_sees_the_floors() -> None:
    """Not vacuous: the floors exist and hold modules."""
    names = {_module_name(p) for p in LAYER_MODULES}
    for floor in ALLOWED:
        assert any(n.startswith(floor + ".") for n in names), floor
