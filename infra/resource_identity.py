"""What makes two resources of CloudFormation templates one thing to the AWS service behind them, and what an update
of one replaces: the facts an upgrade between two releases of the stack is checked against.

A resource's *identity* is what its service refuses to hold twice in one account and region: a name it was given
(an alarm's `AlarmName`, a function's `FunctionName`, ...), or for API Gateway a method's path and HTTP verb, a
path's full path, a gateway response's type. CloudFormation creates a resource under a new logical id before it
deletes the one under the old, so two resources of one identity under different logical ids (or in different
stacks: the parent and a nested stack) fail the update that moves them ("already exists").

The identities and the properties whose change replaces a resource come from the resource schemas cfn-lint ships
(`primaryIdentifier`, `createOnlyProperties`: AWS's CloudFormation registry schemas), plus the names the schemas
do not use as identifiers (an SNS topic is identified by its ARN, yet its `TopicName` is unique all the same) and
API Gateway's paths, which the schemas identify by generated ids. Reads templates only: no CDK, no AWS.
"""

from __future__ import annotations

import json
import re
from typing import Any

Resources = dict[str, dict[str, Any]]

# Names the service keeps unique though the schema identifies the resource by an ARN, a URL or a generated id.
NAME_PROPERTIES = {
    "AWS::Events::Rule": "Name",
    "AWS::SNS::Topic": "TopicName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::StepFunctions::StateMachine": "StateMachineName",
    "AWS::WAFv2::WebACL": "Name",
}
# Schema data of cfn-lint is the same in every commercial region for these types.
SCHEMA_REGION = "us-east-1"


def _schema(resource_type: str) -> dict[str, Any]:
    """The registry schema of a type; empty for one cfn-lint does not know (nothing then is assumed of it)."""
    from cfnlint.schema import PROVIDER_SCHEMA_MANAGER, ResourceNotFoundError

    try:
        return dict(PROVIDER_SCHEMA_MANAGER.get_resource_schema(SCHEMA_REGION, resource_type).schema)
    except ResourceNotFoundError:
        return {}


def _property(pointer: str) -> str:
    """`/properties/AlarmName` -> `AlarmName` (a top-level property)."""
    return pointer.removeprefix("/properties/").split("/", 1)[0]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def api_path(resources: Resources, resource_id: Any) -> str:
    """Full path of an `AWS::ApiGateway::Resource` (`Ref` of it), or `/` for the API's root (`Fn::GetAtt`)."""
    parts: list[str] = []
    current = resource_id
    while isinstance(current, dict) and "Ref" in current and current["Ref"] in resources:
        properties = resources[current["Ref"]]["Properties"]
        parts.append(str(properties["PathPart"]))
        current = properties["ParentId"]
    return "/" + "/".join(reversed(parts))


def identity(resources: Resources, logical_id: str) -> tuple[str, ...] | None:
    """What the resource is to its service: (type, identifying values...), or None when it has no identity of its
    own (a generated name, an id AWS assigns)."""
    resource = resources[logical_id]
    kind = str(resource["Type"])
    properties = resource.get("Properties", {})
    if kind == "AWS::ApiGateway::Method":
        path = api_path(resources, properties["ResourceId"])
        return (kind, _canonical(properties["RestApiId"]), path, str(properties["HttpMethod"]))
    if kind == "AWS::ApiGateway::Resource":
        return (kind, _canonical(properties["RestApiId"]), api_path(resources, {"Ref": logical_id}))
    if kind == "AWS::ApiGateway::GatewayResponse":
        return (kind, _canonical(properties["RestApiId"]), str(properties["ResponseType"]))
    if kind in NAME_PROPERTIES:
        name = properties.get(NAME_PROPERTIES[kind])
        return None if name is None else (kind, _canonical(name))
    identifiers = [_property(pointer) for pointer in _schema(kind).get("primaryIdentifier", [])]
    if identifiers and all(name in properties for name in identifiers):
        return (kind, *(_canonical(properties[name]) for name in identifiers))
    return None


def replaced_by(kind: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The properties whose change makes CloudFormation replace a resource of this type (its schema's
    create-only properties) that differ between two definitions of it."""
    create_only = {_property(pointer) for pointer in _schema(kind).get("createOnlyProperties", [])}
    before, after = old.get("Properties", {}), new.get("Properties", {})
    return sorted(name for name in create_only if before.get(name) != after.get(name))


def references(value: Any) -> set[str]:
    """Every logical id (or parameter) `value` names through `Ref`, `Fn::GetAtt` or `Fn::Sub`."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "Ref" and isinstance(item, str):
                found.add(item)
            elif key == "Fn::GetAtt":
                found.add(item[0] if isinstance(item, list) else str(item).split(".", 1)[0])
            elif key == "Fn::Sub":
                text = item if isinstance(item, str) else item[0]
                found |= {name.split(".", 1)[0] for name in _sub_names(text)}
                if isinstance(item, list):
                    found |= references(item[1])
            else:
                found |= references(item)
    elif isinstance(value, list):
        for item in value:
            found |= references(item)
    return found


def _sub_names(text: str) -> list[str]:
    """`${Name}` placeholders of an `Fn::Sub` string (`${!Literal}` is not one)."""
    return [name for name in re.findall(r"\$\{([^}!][^}]*)\}", text) if not name.startswith("AWS::")]


def depends_on(resource: dict[str, Any]) -> list[str]:
    value = resource.get("DependsOn", [])
    return [value] if isinstance(value, str) else list(value)
