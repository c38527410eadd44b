"""cfn-lint accepts the synthesized template."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from cfnlint.api import ManualArgs, lint_file

if TYPE_CHECKING:
    from conftest import Synth

# W3005: CDK adds an explicit DependsOn on each function's role next to the Fn::GetAtt that already implies it;
# redundant but harmless, and not ours to change.
IGNORED = ["W3005"]


def test_cfn_lint_passes(synth: Synth, tmp_path: Path) -> None:
    path = tmp_path / "DdbguardStack.template.json"
    path.write_text(json.dumps(synth.json, indent=1), encoding="utf-8")
    matches = lint_file(path, config=ManualArgs(regions=["us-east-1", "eu-west-1"], ignore_checks=IGNORED))
    assert [str(match) for match in matches] == []
