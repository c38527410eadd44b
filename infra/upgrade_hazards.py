"""What would make this release's update of a deployed stack fail, or lose something, once the bridge has run
(infra/upgrade_bridge.py): checked before anything changes, against the template the stack runs.

- A logical id this release gives another resource type: CloudFormation refuses the whole update ("Update of
  resource type is not permitted").
- A resource that holds data, or that clients use (infra/upgrade_bridge.py's `KEPT_TYPES`), not kept: gone from
  this release, moved into a nested stack, no longer retained, or changed in a property that replaces it (the stack
  policy refuses the update then; were it lifted, a new empty table). For the table: its keys, local indexes,
  stream and TTL unchanged, its global indexes kept as defined, at most one created or deleted; for the user pool:
  its sign-in attributes unchanged, and no attribute of its schema changed or removed.
- A named resource kept under its logical id and name that the update would replace: CloudFormation cannot
  replace a resource without a new name ("cannot update a stack when a custom-named resource requires replacing").
- A named resource this release creates with a plain `Retain`: if the update rolls back, it stays behind, and
  the retry fails on its name.

`notes` lists what the stack cannot do by itself and an operator does once before `make deploy`.
"""

from __future__ import annotations

from typing import Any

from infra.resource_identity import Resources, identity, replaced_by
from infra.upgrade_bridge import KEPT_TYPES, Release

RETAINED = ("Retain", "RetainExceptOnCreate")
# Properties whose change replaces the resource beyond its schema's create-only ones (the registry schemas of
# these types omit them; the CloudFormation reference says "Update requires: Replacement").
REPLACING_PROPERTIES = {
    "AWS::DynamoDB::Table": ("TableName", "KeySchema", "LocalSecondaryIndexes"),
    "AWS::Cognito::UserPool": ("AliasAttributes", "UsernameAttributes", "UsernameConfiguration", "UserPoolName"),
}
# The table's data and its stream's readers depend on these as they are; a change replaces the table or its stream.
TABLE_FIXED = ("KeySchema", "LocalSecondaryIndexes", "StreamSpecification", "TimeToLiveSpecification")


def hazards(deployed: dict[str, Any], release: Release) -> list[str]:
    """Everything (see the module's docstring) that stands in the way of this release's update; empty when none."""
    resources: Resources = deployed.get("Resources", {})
    found = []
    for logical_id, resource in resources.items():
        twin = release.resources.get(logical_id)
        if twin is not None and twin["Type"] != resource["Type"] and release.in_parent(logical_id):
            found.append(f"{logical_id}: {resource['Type']} becomes {twin['Type']} under the same logical id")
        elif _must_keep(resource):
            found += _kept(logical_id, resource, twin, release)
        elif twin is not None and twin["Type"] == resource["Type"]:
            found += _renamed_in_place(logical_id, resource, twin, resources, release)
    found += _left_behind_on_rollback(resources, release)
    return found


def _must_keep(resource: dict[str, Any]) -> bool:
    kind = resource["Type"]
    if kind == "AWS::ApiGateway::Deployment":
        return False  # the stage moves to a new deployment, of the route groups' methods
    if kind == "AWS::Logs::LogGroup":
        return resource.get("DeletionPolicy") in RETAINED  # the others go with their function, by the stack's design
    return kind in KEPT_TYPES


def _kept(logical_id: str, resource: dict[str, Any], twin: dict[str, Any] | None, release: Release) -> list[str]:
    kind = resource["Type"]
    if twin is None or twin["Type"] != kind or not release.in_parent(logical_id):
        return [f"{logical_id} ({kind}) is not kept under its logical id in the stack itself"]
    found = []
    if resource.get("DeletionPolicy") in RETAINED and twin.get("DeletionPolicy") not in RETAINED:
        found.append(f"{logical_id} ({kind}) is no longer retained")
    before, after = resource.get("Properties", {}), twin.get("Properties", {})
    changed = set(replaced_by(kind, resource, twin))
    changed |= {name for name in REPLACING_PROPERTIES.get(kind, ()) if before.get(name) != after.get(name)}
    if kind == "AWS::DynamoDB::Table":
        changed |= _table_changes(before, after)
    if kind == "AWS::Cognito::UserPool":
        changed |= _schema_changes(before, after)
    if changed:
        found.append(f"{logical_id} ({kind}) changes {', '.join(sorted(changed))}")
    return found


def _table_changes(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """What the update cannot do to a table in place: its keys, local indexes, stream or TTL; a global index changed
    (a delete and a create), or more than one created or deleted (DynamoDB takes one per update)."""
    changed = {name for name in TABLE_FIXED if before.get(name) != after.get(name)}
    old_types, new_types = (
        _by(before, "AttributeDefinitions", "AttributeName"),
        _by(after, "AttributeDefinitions", "AttributeName"),
    )
    if any(old_types.get(key["AttributeName"]) != new_types.get(key["AttributeName"]) for key in before["KeySchema"]):
        changed.add("AttributeDefinitions (of the keys)")
    old_indexes, new_indexes = (
        _by(before, "GlobalSecondaryIndexes", "IndexName"),
        _by(after, "GlobalSecondaryIndexes", "IndexName"),
    )
    if any(old_indexes[name] != new_indexes[name] for name in old_indexes.keys() & new_indexes.keys()):
        changed.add("GlobalSecondaryIndexes (an index redefined)")
    if len(old_indexes.keys() ^ new_indexes.keys()) > 1:
        changed.add("GlobalSecondaryIndexes (more than one created or deleted)")
    return changed


def _schema_changes(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """A user's attributes live in the pool's schema: one can be added, never changed or removed."""
    old_attributes, new_attributes = _by(before, "Schema", "Name"), _by(after, "Schema", "Name")
    if any(new_attributes.get(name) != attribute for name, attribute in old_attributes.items()):
        return {"Schema (an attribute changed or removed)"}
    return set()


def _by(properties: dict[str, Any], name: str, key: str) -> dict[str, Any]:
    """A list property's items by their key (`IndexName`, ...)."""
    return {item[key]: item for item in properties.get(name, [])}


def _renamed_in_place(
    logical_id: str, resource: dict[str, Any], twin: dict[str, Any], resources: Resources, release: Release
) -> list[str]:
    """A named resource the update replaces under the same name."""
    name = identity(resources, logical_id)
    if name is None or not release.in_parent(logical_id) or name != identity(release.resources, logical_id):
        return []
    replacing = replaced_by(resource["Type"], resource, twin)
    if not replacing:
        return []
    return [f"{logical_id} ({resource['Type']}) is replaced ({', '.join(replacing)}) but keeps its name"]


def _left_behind_on_rollback(resources: Resources, release: Release) -> list[str]:
    return [
        f"{logical_id} ({resource['Type']}) is created with a fixed name and a plain Retain"
        for logical_id, resource in release.resources.items()
        if logical_id not in resources
        and resource.get("DeletionPolicy") == "Retain"
        and identity(release.resources, logical_id) is not None
    ]


def notes(deployed: dict[str, Any], release: Release) -> list[str]:
    """What an operator does once, before `make deploy`, that the stack's update cannot do by itself."""
    found = []
    for logical_id, resource in deployed.get("Resources", {}).items():
        twin = release.resources.get(logical_id)
        if resource["Type"] != "AWS::Cognito::UserPool" or twin is None:
            continue
        before = resource.get("Properties", {}).get("MfaConfiguration", "OFF")
        after = twin.get("Properties", {}).get("MfaConfiguration", "OFF")
        if after == "ON" and before != "ON":
            found.append(
                f"{logical_id}: MFA goes from {before} to required (ON). Cognito's UpdateUserPool, which "
                "CloudFormation calls, has refused to turn MFA on for an existing pool; SetUserPoolMfaConfig "
                "can. Before `make deploy`: aws cognito-idp set-user-pool-mfa-config --user-pool-id <UserPoolId "
                "output> --software-token-mfa-configuration Enabled=true --mfa-configuration ON"
            )
    return found
