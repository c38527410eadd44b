#!/usr/bin/env python3
"""After `make deploy`: give the stack a policy that refuses any update replacing or deleting the table or the
user pool (a construct rename, or a property change that forces replacement, would otherwise create a new empty
table, or a new pool whose new `sub`s orphan every account).

python scripts/stack_policy.py ENV [cdk.out]

The resources come from the synthesized template (the table and the user pool, by type). CloudFormation applies a
stack policy to every later update, the change sets `cdk deploy` executes included; a deliberate replacement needs
`aws cloudformation update-stack --stack-policy-during-update-body` (docs/operations.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import boto3

from infra import constants, naming

PROTECTED_TYPES = ("AWS::DynamoDB::Table", "AWS::Cognito::UserPool")


def protected_resources(template: dict[str, Any]) -> list[str]:
    return sorted(logical_id for logical_id, value in template["Resources"].items() if value["Type"] in PROTECTED_TYPES)


def policy(template: dict[str, Any]) -> dict[str, Any]:
    """Everything may update, except a replacement or deletion of the stateful resources."""
    resources = [f"LogicalResourceId/{logical_id}" for logical_id in protected_resources(template)]
    return {
        "Statement": [
            {"Effect": "Allow", "Principal": "*", "Action": "Update:*", "Resource": "*"},
            {
                "Effect": "Deny",
                "Principal": "*",
                "Action": ["Update:Replace", "Update:Delete"],
                "Resource": resources,
            },
        ]
    }


def apply(client: Any, stack_name: str, template: dict[str, Any]) -> dict[str, Any]:
    document = policy(template)
    client.set_stack_policy(StackName=stack_name, StackPolicyBody=json.dumps(document))
    return document


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    environment = argv[0]
    assembly = Path(argv[1] if len(argv) > 1 else "cdk.out")
    template = json.loads((assembly / f"{constants.STACK_ID}.template.json").read_text(encoding="utf-8"))
    stack_name = naming.stack_name(environment)
    document = apply(boto3.client("cloudformation"), stack_name, template)
    denied = ", ".join(document["Statement"][1]["Resource"])
    print(f"{stack_name}: stack policy refuses replacing or deleting {denied}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
