"""`make regenerate` completes the architecture diagram's module lists (local/module_lists.py): a resource's new
modules join their folders' lists, so the docs checker passes with no hand edit."""

from __future__ import annotations

import shutil
from pathlib import Path

from local.module_lists import completed
from local.paths import ROOT
from scripts import check_docs

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def test_the_committed_lists_are_complete() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert completed(text) == text


def test_new_modules_join_their_lists_in_each_lists_style(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "functions", tmp_path / "functions", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "functions" / "widgets").mkdir()
    (tmp_path / "functions" / "widgets" / "__init__.py").write_text("")
    (tmp_path / "functions" / "layer" / "python" / "ddbguard" / "domain" / "widgets.py").write_text("")
    new = completed(ARCHITECTURE.read_text(encoding="utf-8"), tmp_path)
    assert " widgets/<br/>one thin handler file" in new  # a folder list gains `name/`
    assert ' - widgets"]' in new  # a module list gains ` - name`
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text(new, encoding="utf-8")
    findings = [
        str(finding)
        for finding in check_docs.module_list_findings(
            tmp_path, tmp_path / "docs" / "architecture.md", check_docs.Repository(tmp_path)
        )
        if "module list" in str(finding)
    ]
    assert findings == []
