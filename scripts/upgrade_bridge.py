#!/usr/bin/env python3
"""`make upgrade-bridge ENV=<env>`: prepare, and check, the first of the two updates that move a stack deployed
before route groups onto this release (infra/upgrade_bridge.py; docs/infra.md, "Upgrading a stack deployed before
route groups"). Changes nothing itself: it leaves a change set for the operator to execute.

python scripts/upgrade_bridge.py ENV [ASSEMBLY]    ASSEMBLY: this release's `make synth ENV=<env>` (cdk.out)

1. In the environment's account and region only (config/<env>.json; other credentials are refused), reads the
   stack's status and the template it runs (GetTemplate, as deployed).
2. Refuses when this release's update would fail or lose something on top of the bridge (infra/upgrade_hazards.py),
   when the assembly is another environment's, or when the stack is busy.
3. Writes the bridge template to .local/upgrade/ (with the deployed one beside it), uploads it to the CDK assets
   bucket (a template this size must come from S3), and creates the change set `route-groups-bridge` with every
   parameter at its previous value.
4. Reads the change set back: it must remove exactly the bridge's resources and do nothing else, or it is deleted
   and the command fails saying what it would have done. Then prints what it removes, what to do before
   `make deploy` (a user pool's MFA), and the command that executes it.

Exit 0: the change set is ready (or there is nothing to bridge: `make deploy` upgrades the stack directly).
Exit 1: refused, with the reason; nothing changed but the uploaded template.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, WaiterError

from infra import constants, naming
from infra.upgrade_bridge import Bridge, BridgeRefused, NothingToBridge, Release, plan, unexpected_changes
from infra.upgrade_hazards import hazards, notes
from scripts import deployed

CHANGE_SET = "route-groups-bridge"
# `cdk bootstrap`'s default qualifier, as scripts/check_account.py checks it.
ASSETS_BUCKET = "cdk-hnb659fds-assets-{account}-{region}"
OUTPUT_DIR = constants.REPO_ROOT / ".local" / "upgrade"
# A stack nothing is happening to, whose last create or update left it consistent.
AT_REST = (
    "CREATE_COMPLETE",
    "UPDATE_COMPLETE",
    "UPDATE_ROLLBACK_COMPLETE",
    "IMPORT_COMPLETE",
    "IMPORT_ROLLBACK_COMPLETE",
)
CAPABILITIES = ["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"]


class Refused(Exception):
    """The bridge is not prepared; the message says why and what to do."""


def assembly_stack_name(assembly: Path) -> str:
    manifest = json.loads((assembly / "manifest.json").read_text(encoding="utf-8"))
    return str(manifest["artifacts"][constants.STACK_ID]["properties"]["stackName"])


def running_template(cloudformation: Any, stack: str) -> dict[str, Any]:
    """The template the stack runs, after its status says nothing is under way."""
    try:
        (described,) = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    except ClientError as error:
        raise Refused(f"{stack} cannot be read: {error}") from None
    status = described["StackStatus"]
    if status not in AT_REST:
        raise Refused(f"{stack} is {status}: the bridge needs a stack at rest after a successful create or update")
    body = cloudformation.get_template(StackName=stack, TemplateStage="Original")["TemplateBody"]
    # boto3 decodes a JSON template; a YAML one (never written by `cdk deploy`) would stay text.
    return dict(body) if isinstance(body, dict) else dict(json.loads(body))


def upload(aws: Any, environment: str, name: str, template: dict[str, Any]) -> str:
    """The template in the environment's CDK assets bucket, by content; returns its S3 URL for CloudFormation."""
    body = json.dumps(template, indent=1).encode()
    account, region = deployed.target(environment)
    stack = naming.stack_name(environment)
    bucket = ASSETS_BUCKET.format(account=account, region=region)
    key = f"ddbguard-upgrade/{stack}-{name}-{hashlib.sha256(body).hexdigest()[:16]}.json"
    aws.client("s3").put_object(Bucket=bucket, Key=key, Body=body)
    suffix = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
    return f"https://{bucket}.s3.{region}.{suffix}/{key}"


def create_change_set(cloudformation: Any, stack: str, url: str, template: dict[str, Any]) -> list[dict[str, Any]]:
    """A fresh `route-groups-bridge` change set of the template; returns its changes once CloudFormation has them."""
    earlier = cloudformation.list_change_sets(StackName=stack).get("Summaries", [])
    if any(each["ChangeSetName"] == CHANGE_SET for each in earlier):
        cloudformation.delete_change_set(StackName=stack, ChangeSetName=CHANGE_SET)  # an earlier run's
    cloudformation.create_change_set(
        StackName=stack,
        ChangeSetName=CHANGE_SET,
        ChangeSetType="UPDATE",
        TemplateURL=url,
        Parameters=[{"ParameterKey": name, "UsePreviousValue": True} for name in template.get("Parameters", {})],
        Capabilities=CAPABILITIES,
        Description="ddbguard: remove what the route groups create again (docs/infra.md)",
    )
    try:
        cloudformation.get_waiter("change_set_create_complete").wait(
            StackName=stack, ChangeSetName=CHANGE_SET, WaiterConfig={"Delay": 5, "MaxAttempts": 120}
        )
    except WaiterError as error:
        raise Refused(f"the change set was not created: {error}") from None
    changes: list[dict[str, Any]] = []
    token: dict[str, str] = {}
    while True:
        page = cloudformation.describe_change_set(StackName=stack, ChangeSetName=CHANGE_SET, **token)
        changes += page.get("Changes", [])
        if not page.get("NextToken"):
            return changes
        token = {"NextToken": page["NextToken"]}


def summary(stack: str, bridge: Bridge, to_do: list[str]) -> str:
    kinds = Counter(bridge.removed.values())
    removed = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
    lines = [
        f"{stack}: change set {CHANGE_SET} is ready and checked. It removes {removed}, and changes nothing "
        f"else (the DependsOn of {', '.join(sorted(bridge.pruned))} loses their names). The stage keeps serving "
        "the deployment it serves now.",
        *[f"Before `make deploy`: {note}" for note in to_do],
        f"Execute it: aws cloudformation execute-change-set --stack-name {stack} --change-set-name {CHANGE_SET}",
    ]
    return "\n".join(lines)


def prepare(environment: str, assembly: Path) -> str:
    stack = naming.stack_name(environment)
    synthesized = assembly_stack_name(assembly)
    if synthesized != stack:
        raise Refused(f"{assembly} holds {synthesized}, not {stack}: run `make synth ENV={environment}` first")
    aws = deployed.session(environment)
    cloudformation = aws.client("cloudformation")
    running = running_template(cloudformation, stack)
    release = Release.read(assembly, constants.STACK_ID)
    found = hazards(running, release)
    if found:
        raise Refused("this release's update would fail or lose something:\n  " + "\n  ".join(found))
    bridge = plan(running, release)
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    for name, template in (("deployed", running), ("bridge", bridge.template)):
        (OUTPUT_DIR / f"{stack}-{name}.json").write_text(json.dumps(template, indent=1) + "\n", encoding="utf-8")
    url = upload(aws, environment, "bridge", bridge.template)
    changes = create_change_set(cloudformation, stack, url, bridge.template)
    problems = unexpected_changes(changes, bridge)
    if problems:
        cloudformation.delete_change_set(StackName=stack, ChangeSetName=CHANGE_SET)
        raise Refused("the change set does more than the bridge (deleted, not executed):\n  " + "\n  ".join(problems))
    return summary(stack, bridge, notes(running, release))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make upgrade-bridge", description=__doc__.splitlines()[0])
    parser.add_argument("environment")
    parser.add_argument("assembly", nargs="?", default="cdk.out", type=Path)
    arguments = parser.parse_args(argv)
    try:
        print(prepare(arguments.environment, arguments.assembly))
    except NothingToBridge as nothing:
        print(f"ddbguard: nothing to bridge: {nothing}")
        return 0
    except (Refused, BridgeRefused, deployed.WrongTarget, ValueError, BotoCoreError, ClientError) as refusal:
        print(f"ddbguard: no bridge: {refusal}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
