"""A stack deployed from the last single-stack release upgrades to this one in place (docs/infra.md, "Upgrading a
stack deployed before route groups"): proved on the templates, and rehearsed command by command against moto.

The last single-stack release's templates (prod, full monitoring; dev, lean) are committed snapshots
(tests/infra/single_stack_release.py); this release's are the session's prod and dev syntheses, which are what
`make synth ENV=prod|dev` builds (tests/infra/conftest.py).
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from infra.resource_identity import depends_on, identity, references
from infra.upgrade_bridge import Bridge, BridgeRefused, NothingToBridge, Release, collisions, plan, unexpected_changes
from infra.upgrade_hazards import hazards, notes
from routes import ROUTES

from . import single_stack_release
from .aws_emulation import REGION, MotoServer, aws_shim, cli_environment, markdown_sections, moto_server
from .conftest import REPO_ROOT

if TYPE_CHECKING:
    from conftest import Synth

STACK_ID = "DdbguardStack"
UPGRADE = "Upgrading a stack deployed before route groups"
PSEUDO = {"AWS::Region", "AWS::AccountId", "AWS::Partition", "AWS::URLSuffix", "AWS::StackName", "AWS::StackId"}


@dataclass(frozen=True)
class Upgrade:
    environment: str
    deployed: dict[str, Any]
    release: Release
    bridge: Bridge
    assembly: Path

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        return dict(self.deployed["Resources"])


def _upgrade(environment: str, synth: Synth) -> Upgrade:
    deployed = single_stack_release.template(environment)
    release = Release.read(synth.assembly_dir, STACK_ID)
    return Upgrade(environment, deployed, release, plan(deployed, release), synth.assembly_dir)


@pytest.fixture(scope="module")
def prod(prod_synth: Synth) -> Upgrade:
    return _upgrade("prod", prod_synth)


@pytest.fixture(scope="module")
def dev(dev_synth: Synth) -> Upgrade:
    return _upgrade("dev", dev_synth)


@pytest.fixture(params=["prod", "dev"])
def upgrade(request: pytest.FixtureRequest) -> Upgrade:
    return request.getfixturevalue(request.param)


def _of_type(resources: dict[str, dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {key: value for key, value in resources.items() if value["Type"] == kind}


def route_methods(resources: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Logical id -> the function logical id of every method that calls a function (a route), not a MOCK."""
    found = {}
    for logical_id, method in _of_type(resources, "AWS::ApiGateway::Method").items():
        integration = method["Properties"].get("Integration", {})
        if integration.get("Type") == "AWS_PROXY":
            (function,) = [name for name in references(integration["Uri"]) if name in resources]
            found[logical_id] = function
    return found


def watched(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    """The dimensions of every metric an alarm reads."""
    properties = alarm["Properties"]
    dimensions = list(properties.get("Dimensions", []))
    for query in properties.get("Metrics", []):
        dimensions += query.get("MetricStat", {}).get("Metric", {}).get("Dimensions", [])
    return dimensions


def per_route_alarms(resources: dict[str, dict[str, Any]]) -> set[str]:
    """Alarms that watch a route: its function, or its method (API Gateway's Method and Resource dimensions)."""
    functions = set(route_methods(resources).values())
    routes = {(route.method, route.path) for route in ROUTES}
    found = set()
    for logical_id, alarm in _of_type(resources, "AWS::CloudWatch::Alarm").items():
        by_name = {d["Name"]: d["Value"] for d in watched(alarm)}
        on_function = references(by_name.get("FunctionName", "")) & functions
        if on_function or (by_name.get("Method"), by_name.get("Resource")) in routes:
            found.add(logical_id)
    return found


# --- the bridge, on the templates --------------------------------------------------------------------------


def test_a_plain_deploy_would_collide_on_every_route_method(upgrade: Upgrade) -> None:
    """The failure the path exists for: without the bridge, this release recreates every route method (and in prod
    every per-route alarm) of the stack under another logical id, in a nested stack."""
    clashes = collisions(upgrade.resources, upgrade.release)
    assert set(route_methods(upgrade.resources)) <= clashes.keys()
    assert all(not upgrade.release.in_parent(twin) for twin in clashes.values())


def test_the_bridge_removes_the_route_methods_and_per_route_alarms_and_nothing_else(upgrade: Upgrade) -> None:
    methods = route_methods(upgrade.resources)
    assert len(methods) == 19  # the routes of the last single-stack release
    alarms = per_route_alarms(upgrade.resources)
    assert len(alarms) == (114 if upgrade.environment == "prod" else 0)  # 6 per route in the full profile
    assert set(upgrade.bridge.removed) == set(methods) | alarms
    # Every removed method is a route of this release (none goes away with the upgrade) ...
    found = [identity(upgrade.resources, logical_id) for logical_id in methods]
    assert {(path, verb) for *_, path, verb in filter(None, found)} <= {(r.path, r.method) for r in ROUTES}
    # ... and the 405 MOCK methods stay.
    mocks = set(_of_type(upgrade.resources, "AWS::ApiGateway::Method")) - set(methods)
    assert mocks and mocks <= upgrade.bridge.template["Resources"].keys()


def test_the_bridge_changes_nothing_else(upgrade: Upgrade) -> None:
    """Every other resource as deployed, byte for byte, but the DependsOn entries that named removed resources; the
    template's parameters, rules, outputs and description unchanged."""
    bridged = upgrade.bridge.template["Resources"]
    assert bridged.keys() == upgrade.resources.keys() - upgrade.bridge.removed.keys()
    for logical_id, resource in bridged.items():
        deployed = upgrade.resources[logical_id]
        if logical_id in upgrade.bridge.pruned:
            assert {k: v for k, v in resource.items() if k != "DependsOn"} == {
                k: v for k, v in deployed.items() if k != "DependsOn"
            }
            assert depends_on(resource) == [n for n in depends_on(deployed) if n not in upgrade.bridge.removed]
        else:
            assert resource == deployed, logical_id
    assert {k: v for k, v in upgrade.bridge.template.items() if k != "Resources"} == {
        k: v for k, v in upgrade.deployed.items() if k != "Resources"
    }


def test_the_stage_keeps_serving_its_deployment(upgrade: Upgrade) -> None:
    """Zero downtime rests on this: the stage and the deployment it serves are untouched (a deployment is a
    snapshot: its methods and their functions' permissions stay), and only the deployment lost DependsOn entries."""
    bridged = upgrade.bridge.template["Resources"]
    (stage_id,) = _of_type(upgrade.resources, "AWS::ApiGateway::Stage")
    (deployment_id,) = _of_type(upgrade.resources, "AWS::ApiGateway::Deployment")
    assert bridged[stage_id] == upgrade.resources[stage_id]
    assert bridged[stage_id]["Properties"]["DeploymentId"] == {"Ref": deployment_id}
    assert bridged[deployment_id]["Properties"] == upgrade.resources[deployment_id]["Properties"]
    assert set(upgrade.bridge.pruned) == {deployment_id}
    functions = set(route_methods(upgrade.resources).values())
    assert functions <= bridged.keys()
    permissions = _of_type(bridged, "AWS::Lambda::Permission")
    assert functions <= {name for p in permissions.values() for name in references(p["Properties"]["FunctionName"])}


def test_no_reference_in_the_bridge_dangles(upgrade: Upgrade) -> None:
    template = upgrade.bridge.template
    known = template["Resources"].keys() | template.get("Parameters", {}).keys() | PSEUDO
    for logical_id, resource in template["Resources"].items():
        used = references({k: v for k, v in resource.items() if k != "DependsOn"}) | set(depends_on(resource))
        assert used <= known, (logical_id, used - known)
    assert references(template.get("Outputs", {})) <= known


def test_after_the_bridge_nothing_the_release_creates_collides(upgrade: Upgrade) -> None:
    assert collisions(upgrade.bridge.template["Resources"], upgrade.release) == {}


def test_the_release_update_meets_no_hazard(upgrade: Upgrade) -> None:
    """No logical id changes type, nothing kept is replaced, moved or unretained, no named resource is replaced
    under its name, nothing new with a name is plainly retained (infra/upgrade_hazards.py)."""
    assert hazards(upgrade.deployed, upgrade.release) == []


# --- what holds data keeps its identity ---------------------------------------------------------------------


def _kept(upgrade: Upgrade, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(deployed, release) definition of the one resource of `kind`, which must keep its logical id, in the
    stack itself."""
    (logical_id,) = _of_type(upgrade.resources, kind)
    assert upgrade.release.in_parent(logical_id), kind
    release = upgrade.release.resources[logical_id]
    assert release["Type"] == kind
    return upgrade.resources[logical_id], release


def test_the_table_keeps_its_logical_id_keys_indexes_stream_and_ttl(upgrade: Upgrade) -> None:
    deployed, release = _kept(upgrade, "AWS::DynamoDB::Table")
    before, after = deployed["Properties"], release["Properties"]
    for name in ("KeySchema", "StreamSpecification", "TimeToLiveSpecification"):
        assert before[name] == after[name], name
    assert "LocalSecondaryIndexes" not in before and "LocalSecondaryIndexes" not in after
    for attribute in before["AttributeDefinitions"]:  # the keys' and the indexes' types
        assert attribute in after["AttributeDefinitions"], attribute
    for index in before["GlobalSecondaryIndexes"]:  # every index kept as defined (one may be added)
        assert index in after["GlobalSecondaryIndexes"], index["IndexName"]
    assert "TableName" not in before and "TableName" not in after  # a generated name stays the same table
    assert deployed["DeletionPolicy"] == release["DeletionPolicy"] == "RetainExceptOnCreate"
    assert release["UpdateReplacePolicy"] == "Retain"
    # What does change is an in-place update (CloudFormation: "No interruption"): the key, with a CMK.
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    in_place = {"SSESpecification", "ContributorInsightsSpecification", "PointInTimeRecoverySpecification"}
    assert changed <= in_place | {"AttributeDefinitions", "GlobalSecondaryIndexes"}


def test_the_user_pool_its_client_and_admin_group_keep_their_identity(upgrade: Upgrade) -> None:
    deployed, release = _kept(upgrade, "AWS::Cognito::UserPool")
    for name in ("AliasAttributes", "UsernameAttributes", "UsernameConfiguration", "Schema", "UserPoolName"):
        assert deployed["Properties"].get(name) == release["Properties"].get(name), name
    assert deployed["DeletionPolicy"] == release["DeletionPolicy"] == "RetainExceptOnCreate"
    for kind, fixed in (
        ("AWS::Cognito::UserPoolClient", ("UserPoolId", "GenerateSecret", "ClientName")),
        ("AWS::Cognito::UserPoolGroup", ("UserPoolId", "GroupName")),
    ):
        deployed, release = _kept(upgrade, kind)
        for name in fixed:
            assert deployed["Properties"].get(name) == release["Properties"].get(name), (kind, name)


def test_the_api_and_its_stage_keep_their_identity(upgrade: Upgrade) -> None:
    _kept(upgrade, "AWS::ApiGateway::RestApi")  # its id is in the URL clients call
    deployed, release = _kept(upgrade, "AWS::ApiGateway::Stage")
    assert deployed["Properties"]["StageName"] == release["Properties"]["StageName"] == "v1"


def test_prod_is_told_to_turn_mfa_on_before_the_deploy_and_dev_is_not(prod: Upgrade, dev: Upgrade) -> None:
    (note,) = notes(prod.deployed, prod.release)
    assert "OPTIONAL to required (ON)" in note and "set-user-pool-mfa-config" in note
    assert notes(dev.deployed, dev.release) == []


# --- what the checks refuse ----------------------------------------------------------------------------------


def _release_with(upgrade: Upgrade, change: dict[str, dict[str, Any]], stack: str | None = None) -> Release:
    resources = {**copy.deepcopy(upgrade.release.resources), **change}
    stack_of = {**upgrade.release.stack_of, **dict.fromkeys(change, stack or upgrade.release.parent)}
    return Release(resources, stack_of, upgrade.release.parent)


def test_the_hazards_found_are_the_ones_that_fail_or_lose(prod: Upgrade) -> None:
    (table_id,) = _of_type(prod.resources, "AWS::DynamoDB::Table")
    # The audit's EventBridge rule, which this release replaces with a Scheduler schedule under another logical id.
    (rule_id,) = [key for key in _of_type(prod.resources, "AWS::Events::Rule") if key not in prod.release.resources]
    table = copy.deepcopy(prod.release.resources[table_id])
    table["Properties"]["KeySchema"] = list(reversed(table["Properties"]["KeySchema"]))
    vault = {"Type": "AWS::Backup::BackupVault", "DeletionPolicy": "Retain", "Properties": {"BackupVaultName": "v"}}
    schedule = {"Type": "AWS::Scheduler::Schedule", "Properties": {"Name": "run"}}
    release = _release_with(prod, {table_id: table, "NewVault": vault, rule_id: schedule})
    found = hazards(prod.deployed, release)
    assert len(found) == 3, found
    assert any(table_id in line and "KeySchema" in line for line in found)
    assert any("NewVault" in line and "plain Retain" in line for line in found)
    assert any(rule_id in line and "becomes AWS::Scheduler::Schedule" in line for line in found)
    moved = _release_with(prod, {table_id: prod.release.resources[table_id]}, stack="RoutesLedgerNested")
    assert any("not kept under its logical id" in line for line in hazards(prod.deployed, moved))


def test_the_bridge_refuses_to_remove_what_holds_data_and_has_nothing_to_do_on_route_groups(prod: Upgrade) -> None:
    (table_id,) = _of_type(prod.resources, "AWS::DynamoDB::Table")
    named = copy.deepcopy(prod.deployed)
    named["Resources"][table_id]["Properties"]["TableName"] = "ledger"
    twin = copy.deepcopy(named["Resources"][table_id])
    with pytest.raises(BridgeRefused, match=table_id):
        plan(named, _release_with(prod, {"LedgerTable": twin}, stack="RoutesLedgerNested"))
    with pytest.raises(NothingToBridge):
        plan(prod.bridge.template, prod.release)  # run again after the bridge
    parent = json.loads((prod.assembly / f"{STACK_ID}.template.json").read_text(encoding="utf-8"))
    with pytest.raises(NothingToBridge):
        plan(parent, prod.release)  # a stack on route groups already


def test_the_change_set_check_passes_the_bridge_and_nothing_more(prod: Upgrade) -> None:
    def change(action: str, logical_id: str, kind: str = "AWS::ApiGateway::Method", **more: str) -> dict[str, Any]:
        detail = {"Action": action, "LogicalResourceId": logical_id, "ResourceType": kind, **more}
        return {"Type": "Resource", "ResourceChange": detail}

    (deployment_id,) = prod.bridge.pruned
    removes = [change("Remove", logical_id, kind) for logical_id, kind in prod.bridge.removed.items()]
    assert unexpected_changes(removes, prod.bridge) == []
    harmless = change("Modify", deployment_id, "AWS::ApiGateway::Deployment", Replacement="False")
    assert unexpected_changes([*removes, harmless], prod.bridge) == []
    replacing = change("Modify", deployment_id, "AWS::ApiGateway::Deployment", Replacement="True")
    assert unexpected_changes([*removes, replacing], prod.bridge) == [
        f"Modify {deployment_id} (AWS::ApiGateway::Deployment)"
    ]
    (table_id,) = _of_type(prod.resources, "AWS::DynamoDB::Table")
    extra = change("Remove", table_id, "AWS::DynamoDB::Table")
    assert unexpected_changes([*removes[1:], extra], prod.bridge) == [
        f"Remove {table_id} (AWS::DynamoDB::Table)",
        f"no Remove of {removes[0]['ResourceChange']['LogicalResourceId']}",
    ]


# --- the documented path, rehearsed against moto ---------------------------------------------------------------

ACCOUNT = "444455556666"  # config/prod.json
STACK = "ddbguard-prod"
# `cdk bootstrap`'s: the assets bucket `make deploy` uploads to, and the version parameter its templates check.
ASSETS_BUCKET = f"cdk-hnb659fds-assets-{ACCOUNT}-{REGION}"
BOOTSTRAP_VERSION = "/cdk-bootstrap/hnb659fds/version"
NOT_REHEARSED = "# not rehearsed:"


def upgrade_blocks() -> list[str]:
    return markdown_sections((REPO_ROOT / "docs" / "infra.md").read_text(encoding="utf-8"))[UPGRADE]


def moto_copy(template: dict[str, Any]) -> dict[str, Any]:
    """The template as moto 5.2.5's CloudFormation can create it: without the MOCK methods (its API Gateway model
    needs an `IntegrationHttpMethod` a MOCK integration does not have), and without the `DependsOn` entries naming
    them. The bridge never touches them, so the rehearsal loses nothing of what it runs."""
    resources = {
        logical_id: copy.deepcopy(resource)
        for logical_id, resource in template["Resources"].items()
        if resource.get("Properties", {}).get("Integration", {}).get("Type") != "MOCK"
    }
    for resource in resources.values():
        if "DependsOn" in resource:
            resource["DependsOn"] = [name for name in depends_on(resource) if name in resources]
    return {**template, "Resources": resources}


@dataclass
class Rehearsal:
    moto: MotoServer
    deployed: dict[str, Any]
    printed: list[str]  # what each rehearsed block printed, in the order of the section


def _seed_old_stack(moto: MotoServer, template: dict[str, Any]) -> None:
    """What `cdk bootstrap` and `make deploy` of the last single-stack release left in the account: the bootstrap
    version, the function and layer archives in the assets bucket, and the stack, created by (moto's)
    CloudFormation from its template. Then, by hand, the stage moto's CloudFormation does not create."""
    ssm = moto.client("ssm")
    ssm.put_parameter(Name=BOOTSTRAP_VERSION, Value="27", Type="String")
    # moto keeps an SSM-typed parameter's resolved value as its previous value and resolves that again on an
    # update with UsePreviousValue (AWS keeps the parameter's name): a parameter named as the value stands in.
    ssm.put_parameter(Name="27", Value="27", Type="String")
    s3 = moto.client("s3")
    s3.create_bucket(Bucket=ASSETS_BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    for key in set(re.findall(r'"S3Key": "([0-9a-f]{64}\.zip)"', json.dumps(template))):
        s3.put_object(Bucket=ASSETS_BUCKET, Key=key, Body=b"PK\x05\x06" + bytes(18))  # an empty zip archive
    s3.put_object(Bucket=ASSETS_BUCKET, Key="release/ddbguard-prod.json", Body=json.dumps(template).encode())
    cloudformation = moto.client("cloudformation")
    cloudformation.create_stack(
        StackName=STACK,
        TemplateURL=f"https://{ASSETS_BUCKET}.s3.{REGION}.amazonaws.com/release/ddbguard-prod.json",
        Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM"],
        EnableTerminationProtection=True,
    )
    resources = cloudformation.list_stack_resources(StackName=STACK)["StackResourceSummaries"]
    (api,) = [r["PhysicalResourceId"] for r in resources if r["ResourceType"] == "AWS::ApiGateway::RestApi"]
    apigateway = moto.client("apigateway")
    (deployment,) = apigateway.get_deployments(restApiId=api)["items"]
    apigateway.create_stage(restApiId=api, stageName="v1", deploymentId=deployment["id"])


@pytest.fixture(scope="module")
def rehearsal(prod_synth: Synth, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rehearsal]:
    """The section's blocks, in order, in one bash (a block marked `# not rehearsed:` is left out), against moto
    seeded with the last single-stack release's prod stack; this release's templates are the session's prod
    synthesis (ASSEMBLY, in place of `make synth`'s cdk.out)."""
    deployed = moto_copy(single_stack_release.template("prod"))
    shim_dir = aws_shim(tmp_path_factory.mktemp("aws-cli"), REPO_ROOT)
    with moto_server(ACCOUNT, tmp_path_factory.mktemp("moto") / "moto.log") as moto:
        _seed_old_stack(moto, deployed)
        blocks = [block for block in upgrade_blocks() if not block.startswith(NOT_REHEARSED)]
        separator = "--- next block ---"
        script = "set -eo pipefail\n" + f"\necho '{separator}'\n".join(blocks)
        environment = cli_environment(moto, shim_dir, REPO_ROOT, ASSEMBLY=str(prod_synth.assembly_dir))
        result = subprocess.run(
            ["bash", "-c", script], cwd=REPO_ROOT, env=environment, capture_output=True, text=True, timeout=600
        )
        assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        printed = result.stdout.split(f"{separator}\n")
        assert len(printed) == len(blocks)
        yield Rehearsal(moto, deployed, printed)


def test_every_block_is_rehearsed_or_says_why_not_and_what_to_check() -> None:
    """Only these four cannot run against moto; each says so, and why, on its first line."""
    skipped = [block for block in upgrade_blocks() if block.startswith(NOT_REHEARSED)]
    commands = sorted(next(line for line in block.splitlines() if not line.startswith("#")) for block in skipped)
    assert [command.split(" ", 2)[:2] for command in commands] == [
        ["POOL=$(aws", "cloudformation"],
        ["curl", "-s"],
        ["make", "deploy"],
        ["make", "synth"],
    ]
    assert len(upgrade_blocks()) - len(skipped) == 4


def test_the_stack_is_found_at_rest_and_without_route_groups(rehearsal: Rehearsal) -> None:
    status, groups = rehearsal.printed[0].split()
    assert (status, groups) == ("CREATE_COMPLETE", "0")


def test_make_upgrade_bridge_leaves_a_checked_change_set_that_removes_only_routes(rehearsal: Rehearsal) -> None:
    stage_before = rehearsal.printed[1].strip()
    assert stage_before
    summary, counts = rehearsal.printed[2].split("Execute it: ")
    assert "change set route-groups-bridge is ready and checked" in summary
    assert "It removes 19 AWS::ApiGateway::Method, 114 AWS::CloudWatch::Alarm, and changes nothing else" in summary
    assert "MFA goes from OPTIONAL to required (ON)" in summary
    command, *changes = counts.strip().splitlines()
    assert (
        command == f"aws cloudformation execute-change-set --stack-name {STACK} --change-set-name route-groups-bridge"
    )
    # moto reports the deployment whose DependsOn shrank as a Modify; the check let it through as replacing nothing.
    assert sorted(" ".join(line.split()) for line in changes) == [
        "1 Modify AWS::ApiGateway::Deployment",
        "114 Remove AWS::CloudWatch::Alarm",
        "19 Remove AWS::ApiGateway::Method",
    ]


def test_the_bridge_runs_and_the_stack_then_runs_the_bridge(rehearsal: Rehearsal, prod_synth: Synth) -> None:
    status, stage_after = rehearsal.printed[3].split()
    assert status == "UPDATE_COMPLETE"
    assert stage_after == rehearsal.printed[1].strip()  # the deployment the stage serves, unchanged
    bridge = plan(rehearsal.deployed, Release.read(prod_synth.assembly_dir, STACK_ID)).template
    cloudformation = rehearsal.moto.client("cloudformation")
    assert cloudformation.get_template(StackName=STACK)["TemplateBody"] == bridge
    kept = (REPO_ROOT / ".local" / "upgrade" / f"{STACK}-deployed.json").read_text(encoding="utf-8")
    assert json.loads(kept) == rehearsal.deployed  # what the stack ran, kept beside the bridge for review


def test_another_environments_assembly_is_refused_before_anything_is_read(prod_synth: Synth) -> None:
    from scripts.upgrade_bridge import Refused, prepare

    with pytest.raises(Refused, match="holds ddbguard-prod, not ddbguard-dev: run `make synth ENV=dev` first"):
        prepare("dev", prod_synth.assembly_dir)
