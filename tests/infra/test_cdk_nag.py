"""cdk-nag (AWS Solutions) runs on the stack; every finding left is acknowledged on purpose, with a reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from aws_cdk import Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sns as sns
from aws_cdk.assertions import Template

from infra.route_stacks import route_groups
from infra.stack import build_app
from routes import ROUTES

if TYPE_CHECKING:
    from conftest import Synth

# Each known path's ANY method is a token-free 405 mock (infra/api.py): acknowledged where it is.
_MOCKS = {f"Api/RestApi/Default{path}/ANY" for path in {route.path for route in ROUTES}}
APIGW_LOGS_POLICY = "arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs"
# Route functions and methods are in their route group's nested stack; the background functions in the parent's.
_GROUP = {route.key: group.name for group in route_groups(ROUTES) for route in group.routes}
FUNCTION_PATHS = [f"{_GROUP[route.key]}/{route.construct_id}" for route in ROUTES] + [
    f"Functions/{name}" for name in ("AuditLocks", "SettleEntries", "SweepPending")
]
_HEALTH = next(route for route in ROUTES if not route.auth)
_HEALTH_METHOD = f"{_GROUP[_HEALTH.key]}/{_HEALTH.construct_id}Resource/{_HEALTH.method}"
AUDIT_RUN_POLICY = "LockAudit/StateMachine/Role/DefaultPolicy"
_AUDIT_EXECUTIONS = (
    "arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:"
    '{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"LockAuditStateMachine2B1A1AA5"}]}]}'
)
# Rule id -> construct paths (relative to the stack) where it is acknowledged: each on the one resource its finding
# is about, never on a parent construct, so the same finding on anything new stays open and fails synthesis.
BACKUP_POLICY = "arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup"
EXPECTED_ACKNOWLEDGMENTS = {
    "AwsSolutions-APIG2": {"Api/RestApi/Resource"},
    "AwsSolutions-APIG4": {_HEALTH_METHOD, *_MOCKS},
    "AwsSolutions-COG4": {_HEALTH_METHOD, *_MOCKS},
    f"AwsSolutions-IAM4[Policy::{APIGW_LOGS_POLICY}]": {"Api/RestApi/CloudWatchRole"},
    f"AwsSolutions-IAM4[Policy::{BACKUP_POLICY}]": {"Backup/Plan/Table/Role"},
    "AwsSolutions-IAM5[Resource::*]": {f"{path}TracingPolicy" for path in FUNCTION_PATHS}
    | {"Functions/SettleEntriesStreamPolicy", AUDIT_RUN_POLICY},
    # The grants Step Functions makes for the lock audit's run (infra/audit.py): its worker's versions, and the
    # Distributed Map's own child executions.
    "AwsSolutions-IAM5[Resource::<FunctionsAuditLocksFunction594558F0.Arn>:*]": {AUDIT_RUN_POLICY},
    f"AwsSolutions-IAM5[Resource::{_AUDIT_EXECUTIONS}:*]": {"LockAudit/StateMachine/DistributedMapPolicy"},
    f"AwsSolutions-IAM5[Resource::{_AUDIT_EXECUTIONS}/*:*]": {"LockAudit/StateMachine/DistributedMapPolicy"},
    "AwsSolutions-L1": {f"{path}Function" for path in FUNCTION_PATHS},
    "AwsSolutions-SQS3": {"Settlement/SettlementFailures"},
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


def test_prod_has_nothing_open_and_no_acknowledgment_speaks_of_a_demo(prod_synth: Synth, synth: Synth) -> None:
    """Production's synthesis ran cdk-nag with 0 open findings (it would not exist otherwise); what is acknowledged
    there is what holds for a production service: no web ACL, MFA or threat-protection finding, no "demo"."""
    found = _acknowledgments(prod_synth)
    assert not {"AwsSolutions-APIG3", "AwsSolutions-COG2", "AwsSolutions-COG8"} & set(found)
    for acknowledged in (found, _acknowledgments(synth)):
        for rule, places in acknowledged.items():
            for path, reason in places.items():
                assert "demo" not in reason.lower(), f"{rule} at {path}: {reason}"


def test_the_sandbox_states_its_own_reasons_for_what_it_leaves_out(dev_synth: Synth) -> None:
    found = _acknowledgments(dev_synth)
    reasons = {rule: " ".join(found[rule].values()) for rule in ("AwsSolutions-APIG3", "AwsSolutions-COG2")}
    assert "wafEnabled=false" in reasons["AwsSolutions-APIG3"]
    assert "cognitoMfa=optional" in reasons["AwsSolutions-COG2"]
    assert "cognitoThreatProtection=off" in " ".join(found["AwsSolutions-COG8"].values())


@pytest.mark.timeout(600)
def test_an_unacknowledged_finding_fails_synthesis() -> None:
    # A second synthesis (a few seconds): proves build_app really attaches the checks and that they block.
    _app, stack = build_app()
    sns.Topic(stack, "TopicWithoutTlsPolicy")
    with pytest.raises(Exception, match="ValidationFailed"):
        Template.from_stack(stack)


@pytest.mark.timeout(600)
def test_a_new_wildcard_resource_grant_fails_synthesis() -> None:
    # A throwaway stack whose function role gets one more `Resource: "*"` statement, in the role's default policy
    # beside the table grants: the X-Ray acknowledgement (on the tracing policy only) must not cover it. The
    # function is in a route group's nested stack: cdk-nag checks those templates too.
    _app, stack = build_app()
    function = stack.route_stacks[1].routes[0].function
    function.add_to_role_policy(iam.PolicyStatement(actions=["dynamodb:GetItem"], resources=["*"]))
    with pytest.raises(Exception, match=r"ValidationFailed[\s\S]*AwsSolutions-IAM5"):
        Template.from_stack(stack)
