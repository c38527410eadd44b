"""tests/README.md's map from layer modules to their tests is complete and true, and every guard has its own tests.

Complete: every module of the layer (functions/layer/python) has one row, is matched by a folder's row
(`ddbguard/domain/entities/*.py`), or has a test module of its own name. True: every module and test file it
names exists, and a module's same-named test module, wherever one exists, is among its tests.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "functions" / "layer" / "python"
GUARDS = LAYER / "ddbguard" / "guards"
README = ROOT / "tests" / "README.md"
MAP_HEADING = "## Where each layer module is tested"
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|(.*)\|\s*$")


def _layer_modules() -> set[str]:
    return {path.relative_to(LAYER).as_posix() for path in LAYER.rglob("*.py") if "__pycache__" not in path.parts}


def _map() -> dict[str, list[str]]:
    text = README.read_text(encoding="utf-8")
    assert MAP_HEADING in text, f"tests/README.md has no section {MAP_HEADING!r}"
    section = text.split(MAP_HEADING, 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        row = ROW.match(line)
        if row:
            assert row.group(1) not in rows, f"{row.group(1)} has two rows"
            rows[row.group(1)] = re.findall(r"`([^`]+)`", row.group(2))
    return rows


def _own_tests(module: str) -> list[str]:
    """The test modules named after a layer module (a package's __init__ by its package)."""
    path = Path(module)
    stem = path.parent.name if path.stem == "__init__" else path.stem
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob(f"test_{stem}.py"))


def _covered(module: str, listed: set[str]) -> bool:
    return any(fnmatch.fnmatchcase(module, row) for row in listed) or bool(_own_tests(module))


def test_every_layer_module_has_a_row_or_its_own_tests_and_every_row_a_module():
    listed = set(_map())
    assert sorted(m for m in _layer_modules() if not _covered(m, listed)) == [], (
        "modules without a row in tests/README.md"
    )
    matched = {row for row in listed for module in _layer_modules() if fnmatch.fnmatchcase(module, row)}
    assert sorted(listed - matched) == [], "rows of modules that no longer exist"


def test_every_named_test_file_exists_and_every_module_names_one():
    for module, tests in _map().items():
        assert tests, f"{module}: no test named"
        for test in tests:
            assert re.fullmatch(r"tests/.+/test_[a-z0-9_]+\.py|tests/test_[a-z0-9_]+\.py", test), (module, test)
            assert (ROOT / test).is_file(), f"{module}: {test} does not exist"


def test_a_modules_own_test_module_is_among_its_tests():
    for module, tests in _map().items():
        for own in [] if "*" in module else _own_tests(module):
            if Path(module).stem != "__init__":
                assert own in tests, f"{module}: its own test module {own} is not listed"


def test_every_guard_has_a_test_module_of_its_own_name():
    guards = sorted(path.stem for path in GUARDS.glob("*.py") if path.stem != "__init__")
    assert guards
    missing = [guard for guard in guards if not _own_tests(f"ddbguard/guards/{guard}.py")]
    assert missing == []
