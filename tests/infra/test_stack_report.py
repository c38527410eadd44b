"""scripts/stack_report.py reads a synthesized assembly: what `make destroy` keeps, and what `make sizes` reports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conftest import Synth

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "stack_report.py"


def _report(synth: Synth, what: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), what, str(synth.assembly_dir)], capture_output=True, text=True, check=True
    )
    return result.stdout.splitlines()


def test_retained_resources_are_the_documented_ones(synth: Synth) -> None:
    kinds = sorted(line.split()[0] for line in _report(synth, "retained"))
    # docs/infra.md "Destroy" lists these with their reasons.
    assert kinds == [
        "AWS::ApiGateway::Account",
        "AWS::Backup::BackupVault",
        "AWS::Cognito::UserPool",
        "AWS::DynamoDB::Table",
        "AWS::IAM::Role",
        "AWS::Logs::LogGroup",  # the access log
        "AWS::Logs::LogGroup",  # the WAF log
    ]


def test_sizes_cover_every_function_and_layer(synth: Synth) -> None:
    lines = _report(synth, "sizes")
    assert sum(line.startswith("layer") for line in lines) == 2
    assert sum(line.startswith("function") for line in lines) == len(synth.of_type("AWS::Lambda::Function"))
