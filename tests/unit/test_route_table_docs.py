"""What the docs say about the route table's structure stays true: every module beside the table is in
docs/architecture.md's account of what lives where, and every file the table's modules name in their docstrings
exists (the table once pointed at a keys module that had moved)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
TABLE_MODULES = sorted((FUNCTIONS / "routes").glob("*.py"))
DESCRIBING = [ROOT / "local" / "route_stories.py", ROOT / "local" / "handler_files.py"]
# A file name in prose: `ddbguard/store/keys.py`, `local/route_stories.py`, `job_access.py`.
FILE_NAMED = re.compile(r"(?<![\w/.])((?:[\w-]+/)*[\w-]+\.py)\b")
# Where a name in a docstring may be relative to: the repository, the function asset's root, the layer.
BASES = (ROOT, FUNCTIONS, FUNCTIONS / "routes", FUNCTIONS / "layer" / "python")


def files_named(path: Path) -> set[str]:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return set(FILE_NAMED.findall(docstring))


def missing_files(path: Path) -> list[str]:
    return sorted(name for name in files_named(path) if not any((base / name).is_file() for base in BASES))


def test_architecture_names_every_module_beside_the_route_table() -> None:
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert len(TABLE_MODULES) >= 4
    assert [p.name for p in TABLE_MODULES if f"`{p.name}`" not in architecture and p.name != "__init__.py"] == []
    assert "`functions/routes/`" in architecture
    assert [p.name for p in DESCRIBING if f"`local/{p.name}`" not in architecture] == []


def test_the_route_table_modules_name_only_files_that_exist() -> None:
    for path in [*TABLE_MODULES, *DESCRIBING]:
        assert missing_files(path) == [], path.relative_to(ROOT)
    assert "local/route_stories.py" in files_named(FUNCTIONS / "routes" / "__init__.py")


def test_a_moved_file_is_caught(tmp_path: Path) -> None:
    """Not vacuous: a docstring pointing at the keys module's old home fails."""
    stale = tmp_path / "stale.py"
    stale.write_text('"""Keys are built in ddbguard/keys.py, patterns in table_patterns.py."""\n')
    assert missing_files(stale) == ["ddbguard/keys.py"]
