"""Upgrading a stack deployed before route groups, in place: the bridge template, and the check of its change set.

A stack deployed from the last single-stack release (or any before it) holds the route methods itself, and in the
full monitoring profile the per-route alarms. This release creates them in the route groups' nested stacks, and
CloudFormation creates a resource before it deletes the one it replaces: API Gateway refuses a method that exists
already, CloudWatch would take the new alarm for the old one and delete it with the old. So the stack is updated
twice (docs/infra.md, "Upgrading a stack deployed before route groups"):

1. **the bridge**: the deployed template with every resource removed that this release creates again with the same
   identity (infra/resource_identity.py) under another logical id or in a nested stack, and nothing else changed
   but the `DependsOn` lists that named them. Its change set removes exactly those. The stage keeps its deployment,
   a snapshot of the API that still holds the removed methods and calls the functions, which stay: clients see no
   change.
2. **this release**, with `make deploy`: the route groups create their methods (nothing holds them now), the stage
   moves to a new deployment of them, and the old functions go last.

Nothing that holds data or that clients hold on to is ever removed: the plan refuses instead. Reads templates only:
no CDK, no AWS (scripts/upgrade_bridge.py does the AWS part).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra.assembly import flattened, stack_templates
from infra.resource_identity import Resources, depends_on, identity, references

# Resources that hold data, or what clients use (the API's URL and the deployment its stage serves, the app client's
# id, who is admin): the bridge never removes one, and the upgrade keeps each under its logical id
# (infra/upgrade_hazards.py).
KEPT_TYPES = (
    "AWS::DynamoDB::Table",
    "AWS::Cognito::UserPool",
    "AWS::Cognito::UserPoolClient",
    "AWS::Cognito::UserPoolGroup",
    "AWS::ApiGateway::RestApi",
    "AWS::ApiGateway::Stage",
    "AWS::ApiGateway::Deployment",
    "AWS::KMS::Key",
    "AWS::Backup::BackupVault",
    "AWS::SQS::Queue",
    "AWS::S3::Bucket",
    "AWS::Logs::LogGroup",
)


class NothingToBridge(Exception):
    """The deployed stack holds nothing this release creates elsewhere: `make deploy` upgrades it directly."""


class BridgeRefused(Exception):
    """The bridge would remove something it must not; the message says what."""


@dataclass(frozen=True)
class Release:
    """This release's templates as `make deploy` will send them: every resource (nested stacks inlined, their
    parameters replaced by what the parent passes) and the stack that holds each."""

    resources: Resources
    stack_of: dict[str, str]  # logical id -> the parent's stack id, or the logical id of its nested stack
    parent: str

    @classmethod
    def read(cls, assembly: Path, stack_id: str) -> Release:
        stack_of = {
            logical_id: each.logical_id
            for each in stack_templates(assembly, stack_id)
            for logical_id in each.template.get("Resources", {})
        }
        return cls(flattened(assembly, stack_id)["Resources"], stack_of, stack_id)

    def in_parent(self, logical_id: str) -> bool:
        return self.stack_of.get(logical_id) == self.parent


@dataclass(frozen=True)
class Bridge:
    template: dict[str, Any]
    removed: dict[str, str]  # logical id -> its type
    pruned: dict[str, list[str]]  # logical id -> the removed ids its DependsOn named


def collisions(deployed: Resources, release: Release) -> dict[str, str]:
    """Deployed logical id -> the release's logical id of a resource with its identity, created elsewhere (another
    logical id, or a nested stack): the update would create the release's before deleting the deployed one."""
    by_identity: dict[tuple[str, ...], str] = {}
    for logical_id in release.resources:
        found = identity(release.resources, logical_id)
        if found is not None:
            by_identity[found] = logical_id
    clashes = {}
    for logical_id in deployed:
        found = identity(deployed, logical_id)
        twin = by_identity.get(found) if found is not None else None
        if twin is not None and not (twin == logical_id and release.in_parent(twin)):
            clashes[logical_id] = twin
    return clashes


def plan(deployed: dict[str, Any], release: Release) -> Bridge:
    """The bridge template for a deployed template (see the module's docstring)."""
    resources: Resources = deployed.get("Resources", {})
    clashes = collisions(resources, release)
    if not clashes:
        raise NothingToBridge("the stack holds nothing this release creates elsewhere: `make deploy` upgrades it")
    removed = {logical_id: str(resources[logical_id]["Type"]) for logical_id in clashes}
    data = sorted(f"{logical_id} ({kind})" for logical_id, kind in removed.items() if kind in KEPT_TYPES)
    if data:
        raise BridgeRefused(f"this release creates these again elsewhere, and they must be kept: {', '.join(data)}")
    kept = {logical_id: resource for logical_id, resource in resources.items() if logical_id not in removed}
    users = {**kept, "Outputs": {"Value": deployed.get("Outputs", {})}}
    named = []
    for logical_id, resource in users.items():
        used = references({key: value for key, value in resource.items() if key != "DependsOn"}) & removed.keys()
        if used:
            named.append(f"{logical_id} -> {', '.join(sorted(used))}")
    if named:
        raise BridgeRefused(f"kept resources use resources the bridge removes: {'; '.join(sorted(named))}")
    bridged = copy.deepcopy(kept)
    pruned = {}
    for logical_id, resource in bridged.items():
        gone = [name for name in depends_on(resource) if name in removed]
        if gone:
            pruned[logical_id] = gone
            remaining = [name for name in depends_on(resource) if name not in removed]
            if remaining:
                resource["DependsOn"] = remaining
            else:
                del resource["DependsOn"]
    return Bridge({**copy.deepcopy(deployed), "Resources": bridged}, removed, pruned)


def unexpected_changes(changes: list[dict[str, Any]], bridge: Bridge) -> list[str]:
    """What a change set of the bridge (describe-change-set's `Changes`) does beyond removing exactly the bridge's
    resources: empty when it does nothing else. A resource whose `DependsOn` alone lost names may show as a Modify
    that replaces nothing (no property changed)."""
    problems = []
    removed_seen = set()
    for change in changes:
        detail = change.get("ResourceChange", {})
        action, logical_id = detail.get("Action"), detail.get("LogicalResourceId", "?")
        if action == "Remove" and logical_id in bridge.removed:
            removed_seen.add(logical_id)
        elif action == "Modify" and logical_id in bridge.pruned and detail.get("Replacement", "False") == "False":
            continue
        else:
            problems.append(f"{action} {logical_id} ({detail.get('ResourceType', '?')})")
    missing = sorted(bridge.removed.keys() - removed_seen)
    problems += [f"no Remove of {logical_id}" for logical_id in missing]
    return problems
