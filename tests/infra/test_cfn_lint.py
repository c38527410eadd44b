"""cfn-lint accepts the synthesized templates, with the settings `make synth` uses (.cfnlintrc.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from infra import constants
from infra.assembly import stack_templates
from infra.synth_report import cfn_lint_findings, cfn_lint_settings

if TYPE_CHECKING:
    from conftest import CfnLint, Synth


def _config() -> dict:
    return cfn_lint_settings()


def test_every_ignored_rule_is_named_with_a_reason() -> None:
    text = constants.CFN_LINT_CONFIG.read_text(encoding="utf-8")
    for rule in _config()["ignore_checks"]:
        # The comment block right above the rule starts with the rule id and says why.
        assert f"# {rule}: " in text, rule


@pytest.mark.parametrize("which", ["synth", "custom_synth"])
def test_cfn_lint_passes_on_every_template(which: str, request: pytest.FixtureRequest, cfn_lint: CfnLint) -> None:
    """The parent's template and each route group's nested one, as `cdk deploy` uploads them."""
    synth: Synth = request.getfixturevalue(which)
    templates = stack_templates(synth.assembly_dir, constants.STACK_ID)
    assert len(templates) > 1
    for each in templates:
        assert cfn_lint.findings(each.path) == [], each.path.name


def test_a_template_is_linted_once_per_session_and_a_finding_every_time(tmp_path: Path, cfn_lint: CfnLint) -> None:
    """The session's cache keeps passes only, by content: a planted finding is found on every call."""
    fresh = type(cfn_lint)()
    clean, planted = tmp_path / "clean.template.json", tmp_path / "planted.template.json"
    clean.write_text(json.dumps({"Resources": {"Topic": {"Type": "AWS::SNS::Topic"}}}), encoding="utf-8")
    planted.write_text(json.dumps({"Resources": {"Planted": _function_without_tracing()}}), encoding="utf-8")
    assert fresh.findings(clean) == [] and fresh.findings(clean) == [] and fresh.linted == 1
    assert fresh.findings(planted) and fresh.findings(planted) and fresh.linted == 3


def _function_without_tracing() -> dict:
    return {
        "Type": "AWS::Lambda::Function",
        "Properties": {
            "Code": {"ZipFile": "def handler(event, context): pass"},
            "Handler": "index.handler",
            "Role": "arn:aws:iam::123456789012:role/planted",
            "Runtime": "python3.13",
        },
    }


def test_the_serverless_rules_are_on(tmp_path: Path) -> None:
    """A function with no tracing is a finding of cfn-lint-serverless (WS1000), not of cfn-lint's own rules."""
    path = tmp_path / "planted.template.json"
    path.write_text(json.dumps({"Resources": {"Planted": _function_without_tracing()}}), encoding="utf-8")
    assert any("WS1000" in finding for finding in cfn_lint_findings(path))
