"""The security-relevant shape of the synthesized template, normalised for review as a diff.

IAM (roles, their trust and every statement), resource policies (topic, key, Lambda permissions), who may call which
route (authorizers, method authorization), the alarms (metric, threshold, window, actions) and the settings of the
table and the user pool. Logical ids become construct paths (`Functions/WithdrawRole`) and asset hashes are left
out, so only a real change shows.

Regenerate the committed snapshot after an intended change:

    make snapshot        # = .venv/bin/python -m tests.infra.security_shape --write
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import CfnElement, Stack

SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "security_shape.json"
TABLE_SETTINGS = (
    "KeySchema",
    "BillingMode",
    "PointInTimeRecoverySpecification",
    "TimeToLiveSpecification",
    "DeletionProtectionEnabled",
    "SSESpecification",
    "ResourcePolicy",
    "StreamSpecification",
)
USER_POOL_SETTINGS = (
    "AdminCreateUserConfig",
    "Policies",
    "MfaConfiguration",
    "EnabledMfas",
    "DeletionProtection",
    "UserPoolTier",
    "AccountRecoverySetting",
)


def logical_id_paths(stack: Stack) -> dict[str, str]:
    """Logical id -> construct path below the stack (without the trailing `/Resource`)."""
    paths = {}
    prefix = f"{stack.node.path}/"
    for construct in stack.node.find_all():
        if isinstance(construct, CfnElement):
            logical_id = stack.resolve(construct.logical_id)
            paths[logical_id] = construct.node.path.removeprefix(prefix).removesuffix("/Resource")
    return paths


class Normaliser:
    def __init__(self, paths: dict[str, str]) -> None:
        self.paths = paths

    def __call__(self, node: Any) -> Any:
        if isinstance(node, dict):
            if set(node) == {"Ref"}:
                return "${" + str(self.paths.get(node["Ref"], node["Ref"])) + "}"
            if set(node) == {"Fn::GetAtt"}:
                target, attribute = node["Fn::GetAtt"]
                return "${" + self.paths.get(target, target) + "." + attribute + "}"
            if set(node) == {"Fn::Join"} and node["Fn::Join"][0] == "":
                # `arn:${AWS::Partition}:...` reads better in a diff than a nested join.
                return "".join(self._inline(part) for part in node["Fn::Join"][1])
            return {key: self(value) for key, value in node.items()}
        if isinstance(node, list):
            return [self(value) for value in node]
        return node

    def _inline(self, part: Any) -> str:
        part = self(part)
        return part if isinstance(part, str) else json.dumps(part, sort_keys=True)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _statements(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            key: (sorted(_as_list(value), key=json.dumps) if key in {"Action", "Resource"} else value)
            for key, value in s.items()
        }
        for s in document["Statement"]
    ]


def _dimension_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _metric_lines(queries: list[dict[str, Any]]) -> list[str]:
    """One line per metric or expression of an (already normalised) alarm: compact enough to review."""
    lines = []
    for query in queries:
        if "Expression" in query:
            lines.append(f"{query['Id']} = {query['Expression']}")
            continue
        stat = query["MetricStat"]
        metric = stat["Metric"]
        dimensions = " ".join(f"{d['Name']}={_dimension_value(d['Value'])}" for d in metric.get("Dimensions", []))
        lines.append(
            f"{query['Id']}: {metric['Namespace']}/{metric['MetricName']} {stat['Stat']} {stat['Period']}s {dimensions}"
        )
    return sorted(lines)


def security_shape(template: dict[str, Any], stack: Stack) -> dict[str, Any]:
    paths = logical_id_paths(stack)
    norm = Normaliser(paths)
    resources = template["Resources"]

    def of_type(kind: str) -> dict[str, dict[str, Any]]:
        return {paths.get(key, key): value for key, value in resources.items() if value["Type"] == kind}

    roles: dict[str, Any] = {}
    for path, role in of_type("AWS::IAM::Role").items():
        props = role["Properties"]
        roles[path] = {
            "trust": norm(_statements(props["AssumeRolePolicyDocument"])),
            "managedPolicies": norm(props.get("ManagedPolicyArns", [])),
            "statements": norm(
                [s for inline in props.get("Policies", []) for s in _statements(inline["PolicyDocument"])]
            ),
        }
    for policy in of_type("AWS::IAM::Policy").values():
        props = policy["Properties"]
        for role_ref in props["Roles"]:
            role_path = paths.get(role_ref["Ref"], role_ref["Ref"])
            roles.setdefault(role_path, {"statements": []})["statements"].extend(
                norm(_statements(props["PolicyDocument"]))
            )

    methods = {}
    for method in of_type("AWS::ApiGateway::Method").values():
        props = method["Properties"]
        resource = props["ResourceId"]
        resource_path = paths.get(resource["Ref"], resource["Ref"]) if "Ref" in resource else "(root)"
        methods[f"{props['HttpMethod']} {resource_path}"] = {
            "authorizationType": props.get("AuthorizationType"),
            "authorizer": norm(props.get("AuthorizerId")),
            "apiKeyRequired": props.get("ApiKeyRequired", False),
            "integration": norm(props["Integration"].get("Type")),
        }

    alarms = {}
    for alarm in of_type("AWS::CloudWatch::Alarm").values():
        props = alarm["Properties"]
        queries = props.get("Metrics") or [
            {
                "Id": "m1",
                "MetricStat": {
                    "Metric": {key: props.get(key) for key in ("Namespace", "MetricName", "Dimensions")},
                    "Stat": props.get("Statistic") or props.get("ExtendedStatistic"),
                    "Period": props.get("Period"),
                },
            }
        ]
        alarms[props["AlarmName"]] = norm(
            {
                "metrics": _metric_lines(norm(queries)),
                "threshold": props["Threshold"],
                "comparison": props["ComparisonOperator"],
                "evaluationPeriods": props["EvaluationPeriods"],
                "datapointsToAlarm": props.get("DatapointsToAlarm"),
                "treatMissingData": props.get("TreatMissingData"),
                "alarmActions": props.get("AlarmActions", []),
                "okActions": props.get("OKActions", []),
            }
        )

    def resource_policies() -> dict[str, Any]:
        found: dict[str, Any] = {}
        for path, policy in of_type("AWS::SNS::TopicPolicy").items():
            found[path] = norm(_statements(policy["Properties"]["PolicyDocument"]))
        for path, key in of_type("AWS::KMS::Key").items():
            found[path] = norm(_statements(key["Properties"]["KeyPolicy"]))
        for path, permission in of_type("AWS::Lambda::Permission").items():
            props = permission["Properties"]
            found[path] = norm({key: props.get(key) for key in ("Action", "FunctionName", "Principal", "SourceArn")})
        return found

    def settings_of(kind: str, keys: tuple[str, ...]) -> dict[str, Any]:
        return {
            path: norm(
                {
                    "DeletionPolicy": value.get("DeletionPolicy"),
                    "UpdateReplacePolicy": value.get("UpdateReplacePolicy"),
                    **{key: value["Properties"][key] for key in keys if key in value["Properties"]},
                }
            )
            for path, value in of_type(kind).items()
        }

    stages = {
        path: norm(
            {
                key: stage["Properties"].get(key)
                for key in ("StageName", "MethodSettings", "TracingEnabled", "ClientCertificateId")
            }
        )
        for path, stage in of_type("AWS::ApiGateway::Stage").items()
    }
    return {
        "iamRoles": dict(sorted(roles.items())),
        "resourcePolicies": dict(sorted(resource_policies().items())),
        "authorizers": {
            path: norm({key: value["Properties"].get(key) for key in ("Type", "IdentitySource", "ProviderARNs")})
            for path, value in sorted(of_type("AWS::ApiGateway::Authorizer").items())
        },
        "methods": dict(sorted(methods.items())),
        "stages": stages,
        "tables": settings_of("AWS::DynamoDB::Table", TABLE_SETTINGS),
        "userPools": settings_of("AWS::Cognito::UserPool", USER_POOL_SETTINGS),
        "alarms": dict(sorted(alarms.items())),
    }


def render(shape: dict[str, Any]) -> str:
    return json.dumps(shape, indent=1, sort_keys=True) + "\n"


def current_shape() -> dict[str, Any]:
    from infra.stack import build_app
    from tests.infra.stack_templates import flat_template

    app, stack = build_app()
    return security_shape(flat_template(app, stack), stack)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="write tests/infra/snapshots/security_shape.json")
    args = parser.parse_args()
    text = render(current_shape())
    if args.write:
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(text, encoding="utf-8")
        print(f"wrote {SNAPSHOT}")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
