"""docs/infra.md's "First deploy" section lists every context key the stack reads, with its default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infra import settings

DOCS = Path(__file__).resolve().parents[2] / "docs" / "infra.md"


def _rendered(default: Any) -> str:
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    return "(none)" if default == "" else f"`{default}`"


def _first_deploy_rows() -> dict[str, list[str]]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## First deploy", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells
    return rows


def test_every_context_key_is_documented_with_its_default() -> None:
    rows = _first_deploy_rows()
    assert set(rows) == {key.name for key in settings.ALL_KEYS}
    for key in settings.ALL_KEYS:
        assert rows[key.name][1] == _rendered(key.default), key.name
        assert rows[key.name][2], key.name


def test_context_keys_are_unique() -> None:
    names = [key.name for key in settings.ALL_KEYS]
    assert len(names) == len(set(names))
