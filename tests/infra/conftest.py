"""Synthesizes `DdbguardStack` once per session, with cdk-nag attached, and offers lookups into the template.

Synthesis takes seconds, so every infra test shares one template. cdk-nag runs as a validation plugin during
`Template.from_stack`: an unacknowledged finding raises there and fails every test that uses the template.
The lookups read the flattened template (tests/infra/stack_templates.py): the parent with each route group's
nested stack inlined; `templates` holds every template as CloudFormation receives it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
# jsii prints a banner about Node 20 on every kernel start; it is noise in test output.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("CDK_DISABLE_CLI_TELEMETRY", "true")

from aws_cdk import Stack  # noqa: E402  (after the environment above)
from aws_cdk.assertions import Template  # noqa: E402

from infra.stack import build_app  # noqa: E402

from .stack_templates import synthesized  # noqa: E402


@dataclass
class Synth:
    """The synthesized template (flattened: every nested stack inlined) plus the lookups the tests share."""

    stack: Stack
    json: dict[str, Any]
    # Stack construct path -> template, the parent's and each nested stack's, as CloudFormation receives them.
    templates: dict[str, dict[str, Any]]
    # The cloud assembly (cdk.out) the template was synthesized into, with its staged asset folders.
    assembly_dir: Path
    template: Template = field(init=False)

    def __post_init__(self) -> None:
        self.template = Template.from_json(self.json)

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        return self.json["Resources"]

    def of_type(self, resource_type: str) -> dict[str, dict[str, Any]]:
        return {key: value for key, value in self.resources.items() if value["Type"] == resource_type}

    def functions_by_handler(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """Lambda handler string -> (logical id, properties)."""
        return {
            props["Properties"]["Handler"]: (logical_id, props["Properties"])
            for logical_id, props in self.of_type("AWS::Lambda::Function").items()
        }

    def resource_path(self, resource_logical_id: str) -> str:
        """Full path of an `AWS::ApiGateway::Resource`, rebuilt from its PathPart/ParentId chain."""
        parts: list[str] = []
        current: Any = {"Ref": resource_logical_id}
        while isinstance(current, dict) and "Ref" in current:
            props = self.resources[current["Ref"]]["Properties"]
            parts.append(props["PathPart"])
            current = props["ParentId"]
        # The chain ends at the API's root resource (Fn::GetAtt RestApi.RootResourceId).
        return "/" + "/".join(reversed(parts))

    def methods(self) -> dict[tuple[str, str], dict[str, Any]]:
        """(HTTP method, path) -> method properties."""
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for props in self.of_type("AWS::ApiGateway::Method").values():
            props = props["Properties"]
            resource_id = props["ResourceId"]
            path = "/" if "Fn::GetAtt" in resource_id else self.resource_path(resource_id["Ref"])
            found[(props["HttpMethod"], path)] = props
        return found

    def asset_dir(self, location: dict[str, Any]) -> Path:
        """The staged asset folder behind a Lambda `Code` or layer `Content` (`S3Key` is `<asset hash>.zip`)."""
        asset_hash = location["S3Key"].removesuffix(".zip")
        manifest = json.loads((self.assembly_dir / f"{self.stack.stack_name}.assets.json").read_text(encoding="utf-8"))
        return self.assembly_dir / manifest["files"][asset_hash]["source"]["path"]

    @staticmethod
    def as_list(value: Any) -> list[Any]:
        """IAM allows a single string where a list is meant (Action, Resource)."""
        return value if isinstance(value, list) else [value]

    def index_patterns(self, statement: dict[str, Any]) -> set[str]:
        """`index/<name>` for each secondary-index ARN a statement names (the route table's index patterns)."""
        return {f"index/{name}" for name in re.findall(r'/index/([A-Za-z0-9_.-]+)"', json.dumps(statement["Resource"]))}

    def role_statements(self, function_props: dict[str, Any]) -> list[dict[str, Any]]:
        """Every IAM statement attached (inline policies) to a function's execution role."""
        role_id = function_props["Role"]["Fn::GetAtt"][0]
        statements: list[dict[str, Any]] = []
        for policy in self.of_type("AWS::IAM::Policy").values():
            if {"Ref": role_id} in policy["Properties"]["Roles"]:
                statements.extend(policy["Properties"]["PolicyDocument"]["Statement"])
        role = self.resources[role_id]["Properties"]
        for inline in role.get("Policies", []):
            statements.extend(inline["PolicyDocument"]["Statement"])
        return statements


def synthesize(outdir: Path, context: dict[str, Any] | None = None) -> Synth:
    app, stack = build_app(outdir=str(outdir), context=context or {})
    flat, templates = synthesized(app, stack)
    return Synth(stack=stack, json=flat, templates=templates, assembly_dir=Path(app.synth().directory))


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(tmp_path_factory.mktemp("cdk.out"))


# Every context key the stack reads, set away from its default: proves each one reaches the template.
CUSTOM_CONTEXT: dict[str, Any] = {
    "alarmEmails": "oncall@example.com,lead@example.com",
    "alarmTopicArn": "arn:aws-cn:sns:cn-north-1:111122223333:existing-oncall",
    "alarmWebhookUrl": "https://events.example.com/sns",
    "alarmPeriodMinutes": "2",
    "alarmEvaluationPeriods": "7",
    "alarmDatapointsToAlarm": "4",
    "api5xxRatePercent": "2",
    "api4xxRatePercent": "30",
    "apiLatencyP99Ms": "2500",
    "functionErrorCount": "3",
    "functionThrottleCount": "4",
    "functionDurationP99Percent": "50",
    "functionConcurrentExecutions": "15",
    "tableThrottleCount": "5",
    "tableSystemErrorCount": "6",
    "busyRatePercent": "7",
    "alarmMinimumRequests": "40",
    "transactionRetryCount": "80",
    "powertoolsPublicLayer": "true",
    "apiStageRateLimit": "150",
    "apiStageBurstLimit": "300",
    "settlementReservedConcurrency": "3",
    "auditReservedConcurrency": "2",
    "sweeperReservedConcurrency": "1",
    "tracing": "otel",
    "otelLayerArn": "arn:aws-cn:lambda:cn-north-1:111122223333:layer:AWSOpenTelemetryDistroPython:99",
    "snapStart": "true",
}


@pytest.fixture(scope="session")
def custom_synth(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """The stack synthesized with every context key set (a second synthesis, a few seconds)."""
    return synthesize(tmp_path_factory.mktemp("cdk.out-custom"), CUSTOM_CONTEXT)


# Production as `make synth ENV=prod` builds it from config/prod.json, given what that file must still be told (the
# pager, the mail sender): one synthesis shared by every test that looks at prod.
ONCALL_TOPIC = "arn:aws:sns:eu-west-1:444455556666:ddbguard-oncall"
PROD_CONTEXT: dict[str, Any] = {
    "environment": "prod",
    "alarmTopicArn": ONCALL_TOPIC,
    "sesFromEmail": "no-reply@example.com",
}


@pytest.fixture(scope="session")
def prod_synth(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(tmp_path_factory.mktemp("cdk.out-prod"), PROD_CONTEXT)


@pytest.fixture(scope="session")
def dev_synth(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(tmp_path_factory.mktemp("cdk.out-dev"), {"environment": "dev"})


@pytest.fixture(scope="session")
def template(synth: Synth) -> Template:
    return synth.template


class CfnLint:
    """cfn-lint with the settings `make synth` uses, once per template: a template whose exact bytes passed before
    in this session passes again without a second lint (cfn-lint is deterministic for the same bytes, version and
    settings). Only passes are remembered: a finding's text names its file, so a template with findings is linted
    each time. All of tests/infra/ runs on one pytest-xdist worker (tests/support/scheduling.py)."""

    def __init__(self) -> None:
        from infra.synth_report import cfn_lint_findings

        self._lint = cfn_lint_findings  # the real one, even where a test puts this object in its place
        self.passed: set[str] = set()
        self.linted = 0

    def findings(self, path: Path) -> list[str]:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest in self.passed:
            return []
        self.linted += 1
        found = self._lint(path)
        if not found:
            self.passed.add(digest)
        return found


@pytest.fixture(scope="session")
def cfn_lint() -> CfnLint:
    return CfnLint()
