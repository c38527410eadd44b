"""cdk-nag (AWS Solutions) runs on the stack; every finding left is acknowledged on purpose, with a reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from aws_cdk import Validations
from aws_cdk import aws_sns as sns
from aws_cdk.assertions import Template

from functions.routes import ROUTES
from infra.stack import build_app

if TYPE_CHECKING:
    from conftest import Synth

# Each known path's ANY method is a token-free 405 mock (infra/api.py): acknowledged where it is.
_MOCKS = {f"Api/RestApi/Default{path}/ANY" for path in {route.path for route in ROUTES}}
APIGW_LOGS_POLICY = "arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs"
# Rule id -> construct paths (relative to the stack) where it is acknowledged.
EXPECTED_ACKNOWLEDGMENTS = {
    "AwsSolutions-APIG2": {"Api/RestApi"},
    "AwsSolutions-APIG3": {"Api/RestApi"},
    "AwsSolutions-APIG4": {"Api/RestApi/Default/health/GET", *_MOCKS},
    "AwsSolutions-COG2": {"Auth/UserPool"},
    "AwsSolutions-COG4": {"Api/RestApi/Default/health/GET", *_MOCKS},
    "AwsSolutions-COG8": {"Auth/UserPool"},
    f"AwsSolutions-IAM4[Policy::{APIGW_LOGS_POLICY}]": {"Api/RestApi"},
    "AwsSolutions-IAM5[Resource::*]": {"Functions"},
    "AwsSolutions-L1": {"Functions"},
}


def _acknowledgments(synth: Synth) -> dict[str, dict[str, str]]:
    """Rule id -> {construct path: reason}, read from the construct metadata `acknowledge` writes."""
    found: dict[str, dict[str, str]] = {}
    prefix = f"{synth.stack.node.path}/"
    for construct in synth.stack.node.find_all():
        for entry in construct.node.metadata:
            if entry.type != Validations.ACKNOWLEDGED_RULES_METADATA_KEY:
                continue
            for qualified_id, reason in dict(entry.data).items():
                rule_id = (
                    qualified_id.split("::", 1)[1] if qualified_id.lower().startswith("annotation::") else qualified_id
                )
                found.setdefault(rule_id, {})[construct.node.path.removeprefix(prefix)] = reason
    return found


def test_stack_passes_cdk_nag(template: Template) -> None:
    # Reaching here means Template.from_stack ran the AwsSolutions plugin without a single open finding.
    assert template.to_json()["Resources"]


def test_acknowledgments_are_exactly_the_expected_ones(synth: Synth) -> None:
    found = _acknowledgments(synth)
    assert {rule: set(paths) for rule, paths in found.items()} == EXPECTED_ACKNOWLEDGMENTS


def test_every_acknowledgment_gives_a_specific_reason(synth: Synth) -> None:
    for rule, places in _acknowledgments(synth).items():
        for path, reason in places.items():
            assert len(reason) >= 60, f"{rule} at {path}: reason too thin"


@pytest.mark.timeout(120)
def test_an_unacknowledged_finding_fails_synthesis() -> None:
    # A second synthesis (a few seconds): proves build_app really attaches the checks and that they block.
    _app, stack = build_app()
    sns.Topic(stack, "TopicWithoutTlsPolicy")
    with pytest.raises(Exception, match="ValidationFailed"):
        Template.from_stack(stack)
