"""cfn-lint accepts the synthesized template."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from infra.synth_report import cfn_lint_findings

if TYPE_CHECKING:
    from conftest import Synth


def test_cfn_lint_passes(synth: Synth, tmp_path: Path) -> None:
    path = tmp_path / "DdbguardStack.template.json"
    path.write_text(json.dumps(synth.json, indent=1), encoding="utf-8")
    assert cfn_lint_findings(path) == []
