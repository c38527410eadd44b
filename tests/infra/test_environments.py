"""Environments side by side in one account, and no deaf production.

- Two named environments' templates share no account-unique physical name: stack, alarms, dashboard, REST API,
  metric namespace (of the handlers' metrics and of the access-log metric filters).
- A named environment that monitors in full does not synthesize without a subscriber, and says what to set; with
  one, every Critical alarm sends ALARM and OK to it.
- The command line names an environment or refuses: `make synth/diff/deploy/destroy` and `app.py` alike.
"""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest

from infra import naming
from infra.monitoring import CRITICAL
from infra.stack import EnvironmentRequired, build_app

from .conftest import ONCALL_TOPIC, PROD_CONTEXT, REPO_ROOT, Synth

# Properties that name a resource in the account and region (CloudFormation would refuse, or two stacks would
# share the thing, if two environments used the same value).
ACCOUNT_UNIQUE_NAMES = {
    "AWS::CloudWatch::Alarm": "AlarmName",
    "AWS::CloudWatch::Dashboard": "DashboardName",
    "AWS::ApiGateway::RestApi": "Name",
    "AWS::DynamoDB::Table": "TableName",
    "AWS::Lambda::Function": "FunctionName",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::SNS::Topic": "TopicName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::Cognito::UserPool": "UserPoolName",
    "AWS::Events::Rule": "Name",
    "AWS::IAM::Role": "RoleName",
    "AWS::KMS::Alias": "AliasName",
    "AWS::StepFunctions::StateMachine": "StateMachineName",
}


def _physical_names(synth: Synth) -> set[str]:
    """Every account-unique name the template sets (a plain string, or a Join's literal parts), the namespaces of
    its metrics and metric filters, and the stack's own name."""
    names = {f"stack:{synth.stack.stack_name}"}
    for resource in synth.resources.values():
        properties = resource.get("Properties", {})
        name_property = ACCOUNT_UNIQUE_NAMES.get(resource["Type"])
        if name_property and name_property in properties:
            names.add(f"{resource['Type']}:{_literal(properties[name_property], synth.stack.stack_name)}")
        for transformation in properties.get("MetricTransformations", []):
            names.add(f"namespace:{transformation['MetricNamespace']}")
        names.update(f"namespace:{namespace}" for namespace in _namespaces(properties))
    for resource in synth.of_type("AWS::Lambda::Function").values():
        variables = resource["Properties"]["Environment"]["Variables"]
        names.add(f"namespace:{variables['POWERTOOLS_METRICS_NAMESPACE']}")
    return names


def _literal(value: Any, stack_name: str) -> str:
    """The name as a string; a reference to one of the stack's own resources (its physical id, unique to this
    stack) reads as `<stack>/<logical id>`, a pseudo parameter (region, account) as itself."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Ref" in value:
        target = value["Ref"]
        return f"<{target}>" if target.startswith("AWS::") else f"<{stack_name}/{target}>"
    if isinstance(value, dict) and "Fn::Join" in value:
        return "".join(_literal(part, stack_name) for part in value["Fn::Join"][1])
    raise AssertionError(f"a name the test cannot read: {value!r}")


def _namespaces(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        if isinstance(value.get("Namespace"), str) and not value["Namespace"].startswith("AWS/"):
            found.add(value["Namespace"])
        for item in value.values():
            found |= _namespaces(item)
    elif isinstance(value, list):
        for item in value:
            found |= _namespaces(item)
    return found


def test_two_environments_share_no_physical_name(dev_synth: Synth, prod_synth: Synth) -> None:
    dev, prod = _physical_names(dev_synth), _physical_names(prod_synth)
    assert "stack:ddbguard-dev" in dev and "stack:ddbguard-prod" in prod
    assert "namespace:ddbguard-dev" in dev and "namespace:ddbguard-prod" in prod
    assert sum(name.startswith("AWS::CloudWatch::Alarm:") for name in dev) > 10
    assert dev & prod == set()


def test_every_name_of_an_environment_carries_it(dev_synth: Synth) -> None:
    for name in _physical_names(dev_synth):
        assert "-dev" in name, name


def test_the_stacks_are_termination_protected(dev_synth: Synth, prod_synth: Synth) -> None:
    assert dev_synth.stack.termination_protection and prod_synth.stack.termination_protection


@pytest.mark.parametrize("profile", ["full", "lean"])
def test_prod_without_a_pager_does_not_synthesize_in_any_profile_and_says_what_to_set(profile: str) -> None:
    with pytest.raises(ValueError, match="no one receives its Critical alarms") as refusal:
        build_app(context={"environment": "prod", "monitoringProfile": profile})
    message = str(refusal.value)
    for what in ("alarmTopicArn", "alarmWebhookUrl", "sesFromEmail", "config/prod.json"):
        assert what in message  # every missing setting at once


def test_an_email_alone_is_no_pager() -> None:
    with pytest.raises(ValueError, match="alarmEmails alone is not a pager"):
        build_app(context={**PROD_CONTEXT, "alarmTopicArn": "", "alarmEmails": "oncall@example.com"})


def test_a_webhook_is_a_pager() -> None:
    webhook = {**PROD_CONTEXT, "alarmTopicArn": "", "alarmWebhookUrl": "https://pager.example.com/sns"}
    _app, stack = build_app(context=webhook)
    assert stack.stack_name == "ddbguard-prod"


def test_every_environment_but_the_sandbox_needs_a_pager_and_mfa(tmp_path, monkeypatch) -> None:
    from infra import environments, readiness

    (tmp_path / "staging.json").write_text('{"account": "777788889999", "region": "eu-west-1"}', encoding="utf-8")
    monkeypatch.setattr(environments, "CONFIG_DIR", tmp_path)
    with pytest.raises(ValueError, match="'staging' is not ready") as refusal:
        build_app(context={"environment": "staging", "cognitoMfa": "optional"})
    assert "cognitoMfa must be required" in str(refusal.value)
    assert readiness.SANDBOX_ENVIRONMENTS == ("dev",)


def _make(*arguments: str) -> subprocess.CompletedProcess[str]:
    """`make` as a person runs it: no ENV or make variables inherited from this run."""
    environment = {key: value for key, value in os.environ.items() if key not in {"ENV", "MAKEFLAGS", "MAKELEVEL"}}
    return subprocess.run(
        ["make", "--no-print-directory", *arguments],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_make_synth_refuses_lean_prod_without_a_pager() -> None:
    result = _make("synth", "ENV=prod", "CONTEXT=-c monitoringProfile=lean")
    assert result.returncode != 0
    assert "no one receives its Critical alarms" in result.stderr + result.stdout


def test_a_named_environment_is_pinned_to_its_account_and_region(dev_synth: Synth, prod_synth: Synth) -> None:
    assert (dev_synth.stack.account, dev_synth.stack.region) == ("111122223333", "eu-west-1")
    assert (prod_synth.stack.account, prod_synth.stack.region) == ("444455556666", "eu-west-1")
    with pytest.raises(ValueError, match="names no deployment target"):
        build_app(context={**PROD_CONTEXT, "account": "not-an-account"})


def test_every_critical_alarm_sends_alarm_and_ok_to_the_oncall_topic(prod_synth: Synth) -> None:
    critical = {
        props["Properties"]["AlarmName"]: props["Properties"]
        for props in prod_synth.of_type("AWS::CloudWatch::Alarm").values()
        if props["Properties"]["AlarmName"].endswith(f"-{CRITICAL}")
    }
    assert len(critical) > 20  # the full profile
    for name, alarm in critical.items():
        assert ONCALL_TOPIC in alarm["AlarmActions"], name
        assert ONCALL_TOPIC in alarm["OKActions"], name
        assert alarm["ActionsEnabled"] is True, name


def test_the_app_names_an_environment_or_refuses() -> None:
    with pytest.raises(EnvironmentRequired, match="make synth ENV=<name>"):
        build_app(require_environment=True)


def test_the_stack_name_carries_the_environment() -> None:
    assert naming.stack_name("prod") == "ddbguard-prod"
    assert naming.stack_name(None) == "DdbguardStack"


@pytest.mark.parametrize("target", ["synth", "diff", "deploy", "destroy"])
def test_make_refuses_without_env_and_says_how_to_name_one(target: str) -> None:
    result = _make(target)
    assert result.returncode != 0
    assert f"make {target} ENV=dev" in result.stderr
    assert "prod" in result.stderr  # lists the committed configurations
