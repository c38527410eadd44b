"""`ddbguard_cdk.GuardedTable` in a team's stack (here the teams example's entity), synthesized with cdk-nag attached:
the table as the guards need it, the three jobs from the library's handlers, the audit's run and grants over the
team's entities only, the alarms, and a team's function allowed exactly its entity's routes. `make example` does the
same from the installed wheel; this is the construct's check in the product's suite."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App, Stack, Validations
from aws_cdk import aws_lambda as lambda_
from aws_cdk.assertions import Template
from cdk_nag import AwsSolutionsChecks

from ddbguard.guards.entity_access import crud_access, merged_access
from ddbguard_cdk import GuardedTable, table_statements
from examples.teams.team import TEAM
from infra.synth_report import open_count
from local.paths import ROOT

ENTITY_MODULE = "examples.teams.team"


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Mapping[str, Any], str]:
    outdir = tmp_path_factory.mktemp("guarded-table")
    app = App(outdir=str(outdir))
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    stack = Stack(app, "TeamStack")
    code = lambda_.Code.from_asset(str(ROOT / "examples" / "teams"))
    guarded = GuardedTable(stack, "Guarded", code=code, entity_modules=[ENTITY_MODULE])
    guarded.add_function(stack, "TeamsApi", handler="teams_api.handler", entities=[TEAM])
    template = Template.from_stack(stack).to_json()  # raises on an unacknowledged cdk-nag finding
    app.synth()
    return template, str(outdir)


def _of_type(template: dict, kind: str) -> dict[str, dict]:
    return {name: resource for name, resource in template["Resources"].items() if resource["Type"] == kind}


def _function_by_handler(template: dict, handler: str) -> dict:
    (function,) = [
        f for f in _of_type(template, "AWS::Lambda::Function").values() if f["Properties"]["Handler"] == handler
    ]
    return function


def _statements_of_role(template: dict, role_prefix: str) -> list[dict]:
    policies = _of_type(template, "AWS::IAM::Policy").values()
    return [
        statement
        for policy in policies
        if any(role["Ref"].startswith(role_prefix) for role in policy["Properties"].get("Roles", []))
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if any(str(action).startswith("dynamodb:") for action in _list(statement["Action"]))
        and "dynamodb:ListStreams" not in _list(statement["Action"])
        and "dynamodb:GetRecords" not in _list(statement["Action"])
    ]


def _list(value: object) -> list:
    return value if isinstance(value, list) else [value]


def _granted(statements: list[dict]) -> dict[str, set[str]]:
    """Action -> the LeadingKeys patterns (or `index/...`) it is granted on."""
    granted: dict[str, set[str]] = {}
    for statement in statements:
        keys = statement.get("Condition", {}).get("ForAllValues:StringLike", {}).get("dynamodb:LeadingKeys", [])
        resources = json_text(statement["Resource"])
        for action in _list(statement["Action"]):
            patterns = set(keys) or ({"index/unsettled"} if "/index/unsettled" in resources else set())
            granted.setdefault(action.removeprefix("dynamodb:"), set()).update(patterns)
    return granted


def json_text(value: object) -> str:
    return json.dumps(value)


def test_the_table_has_the_keys_stream_index_ttl_and_recovery_the_guards_need(synthesized):
    template, _ = synthesized
    (table,) = _of_type(template, "AWS::DynamoDB::Table").values()
    properties = table["Properties"]
    assert [key["AttributeName"] for key in properties["KeySchema"]] == ["PK", "SK"]
    assert properties["StreamSpecification"] == {"StreamViewType": "KEYS_ONLY"}
    assert [index["IndexName"] for index in properties["GlobalSecondaryIndexes"]] == ["unsettled"]
    assert properties["TimeToLiveSpecification"] == {"AttributeName": "expiration", "Enabled": True}
    assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert properties["DeletionProtectionEnabled"] is True
    # Retained, except when a first deploy rolls back (the still empty table goes with it).
    assert table["DeletionPolicy"] == "RetainExceptOnCreate" and table["UpdateReplacePolicy"] == "Retain"


def test_the_jobs_run_the_library_handlers_and_the_audit_audits_the_team_entities_only(synthesized):
    template, _ = synthesized
    for handler in ("ddbguard_jobs.settle_entries.handler", "ddbguard_jobs.sweep_pending.handler"):
        function = _function_by_handler(template, handler)
        assert function["Properties"]["TracingConfig"] == {"Mode": "Active"}
        assert len(function["Properties"]["Layers"]) == 2
    audit = _function_by_handler(template, "ddbguard_jobs.audit_locks.handler")
    assert audit["Properties"]["Environment"]["Variables"]["DDBGUARD_ENTITY_MODULES"] == ENTITY_MODULE
    granted = _granted(_statements_of_role(template, "GuardedAuditLocksRole"))
    assert granted["Scan"] == set()
    assert granted["PutItem"] == {*TEAM.lock_patterns, "AUDIT#*"}
    assert granted["ConditionCheckItem"] == {TEAM.partition_pattern}
    assert not any("ACCT#" in pattern for patterns in granted.values() for pattern in patterns)
    assert set(_of_type(template, "AWS::StepFunctions::StateMachine")) and set(
        _of_type(template, "AWS::Scheduler::Schedule")
    )


def test_the_settlement_reads_new_entries_from_the_stream_with_an_on_failure_queue(synthesized):
    template, _ = synthesized
    (mapping,) = _of_type(template, "AWS::Lambda::EventSourceMapping").values()
    properties = mapping["Properties"]
    assert properties["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert properties["MaximumRecordAgeInSeconds"] == 3600
    assert "OnFailure" in properties["DestinationConfig"]
    assert '"INSERT"' in properties["FilterCriteria"]["Filters"][0]["Pattern"]
    sweeper = _granted(_statements_of_role(template, "GuardedSweepPendingRole"))
    assert sweeper["Query"] == {"index/unsettled"}


def test_falling_behind_failed_jobs_and_the_audit_alarm(synthesized):
    template, _ = synthesized
    names = {name for name in _of_type(template, "AWS::CloudWatch::Alarm")}
    expected = ("IteratorAge", "FailureQueue", "OldestUnsettled", "LockAuditUncovered", "LockAuditUnrepaired")
    for alarm in (*expected, "SettleEntriesErrors", "SweepPendingErrors", "AuditLocksErrors"):
        assert any(name.startswith(f"Guarded{alarm}Alarm") for name in names), alarm
    assert len(names) == 8


def test_a_team_function_gets_exactly_its_entity_routes_access(synthesized):
    template, _ = synthesized
    granted = _granted(_statements_of_role(template, "TeamsApiRole"))
    wanted = merged_access(crud_access(TEAM, method) for method in ("POST", "GET", "PATCH", "DELETE"))
    assert granted == {action: set(patterns) for action, patterns in wanted.items()}
    # The statements themselves are the product's own builder's (the same function infra/ grants routes with).
    assert len(_statements_of_role(template, "TeamsApiRole")) == len(table_statements(wanted, "arn:table"))


def test_cdk_nag_reports_nothing_open(synthesized):
    _, outdir = synthesized
    report = Path(outdir) / "validation-report.json"
    assert report.exists(), "cdk-nag ran as a validation plugin and wrote its report"
    assert open_count(Path(outdir)) == 0, report.read_text()
