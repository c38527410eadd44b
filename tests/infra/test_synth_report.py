"""`make synth`'s closing line counts cdk-nag findings from what `cdk synth` leaves in cdk.out/."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from infra import constants, synth_report
from infra.assembly import stack_templates

if TYPE_CHECKING:
    from conftest import CfnLint, Synth


def _cdk_out(tmp_path: Path, violations: list[dict]) -> Path:
    metadata = {
        "/DdbguardStack/Functions/XTracingPolicy": [
            {"type": synth_report.ACKNOWLEDGED, "data": {"Annotation::AwsSolutions-IAM5[Resource::*]": "why"}},
            {"type": "aws:cdk:logicalId", "data": "X"},
        ],
        "/DdbguardStack/Auth/UserPool": [{"type": synth_report.ACKNOWLEDGED, "data": {"A::B": "c", "A::D": "e"}}],
    }
    (tmp_path / f"{constants.STACK_ID}.metadata.json").write_text(json.dumps(metadata))
    report = {"pluginReports": [{"pluginName": "AwsSolutions", "violations": violations}] if violations else []}
    (tmp_path / "validation-report.json").write_text(json.dumps(report))
    return tmp_path


def test_a_clean_synth_counts_acknowledgements(tmp_path: Path) -> None:
    out = _cdk_out(tmp_path, [])
    assert (synth_report.acknowledged_count(out), synth_report.open_count(out)) == (3, 0)


def test_a_failed_synth_reports_its_open_findings_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    resources = [{"constructPath": "DdbguardStack/Functions/XRole/DefaultPolicy/Resource"}]
    out = _cdk_out(tmp_path, [{"ruleName": "AwsSolutions-IAM5[Resource::*]", "violatingConstructs": resources}])
    assert synth_report.main(["--cdk-status", "1", "--cdk-out", str(out)]) == 1
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("ddbguard synth: cdk-nag 3 acknowledged / 1 open; cfn-lint not run")


def test_a_synth_that_failed_before_writing_its_reports_shows_no_count(tmp_path: Path, capsys) -> None:
    """`make synth` deletes the last synth's reports first: what is missing is said, never an earlier count."""
    assert synth_report.main(["--cdk-status", "1", "--cdk-out", str(tmp_path)]) == 1
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("ddbguard synth: cdk-nag no acknowledgements written / synthesis failed; cfn-lint not run")


def test_make_synth_removes_the_last_synths_reports_before_it_runs() -> None:
    recipe = (constants.REPO_ROOT / "Makefile").read_text(encoding="utf-8").split("\nsynth:", 1)[1].split("\n\n", 1)[0]
    removal, synthesis = recipe.index("rm -f cdk.out/validation-report.json"), recipe.index("$(CDK) synth")
    assert removal < synthesis and "cdk.out/$(STACK).metadata.json" in recipe


def test_the_report_lints_each_route_groups_nested_template(
    synth: Synth, tmp_path: Path, capsys: pytest.CaptureFixture, cfn_lint: CfnLint, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finding planted in one nested template (a function without tracing, WS1000) fails `make synth`'s report.
    The report lints through the session's cfn-lint (once per template): the copied, unchanged templates passed in
    test_cfn_lint.py, the planted one is linted afresh."""
    monkeypatch.setattr(synth_report, "cfn_lint_findings", cfn_lint.findings)
    out = tmp_path / "cdk.out"
    shutil.copytree(synth.assembly_dir, out, ignore=shutil.ignore_patterns("asset.*"))
    assert synth_report.main(["--cdk-out", str(out)]) == 0
    assert "cfn-lint clean" in capsys.readouterr().out
    nested = stack_templates(out, constants.STACK_ID)[-1]
    template = json.loads(nested.path.read_text(encoding="utf-8"))
    function = next(r for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function")
    del function["Properties"]["TracingConfig"]
    nested.path.write_text(json.dumps(template), encoding="utf-8")
    assert synth_report.main(["--cdk-out", str(out)]) == 1
    assert "WS1000" in capsys.readouterr().out
