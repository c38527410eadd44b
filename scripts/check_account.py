#!/usr/bin/env python3
"""Before `make deploy` synthesizes anything: are the region and the credentials the ones `config/<env>.json` names
(the stack is synthesized for that account and region: other credentials are refused here, before CloudFormation
runs), is the account CDK-bootstrapped recently enough, and does its Lambda concurrency quota leave room for what
`config/<env>.json` reserves?

python scripts/check_account.py ENV [-c key=value ...]   (the same `-c` pairs `make deploy CONTEXT=...` passes)
python scripts/check_account.py ENV --first-deploy-context   prints `-c deletionProtection=false` for a new stack

Exit 0 when ready, 1 saying what to do otherwise. Reads only: STS GetCallerIdentity, SSM GetParameter (the
bootstrap version), Lambda GetAccountSettings, and for a stack that exists already its functions' current
reservations (CloudFormation ListStackResources, Lambda GetFunctionConcurrency).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as NetworkUnreachable

from infra import environments, naming, settings
from scripts import deployed

BOOTSTRAP_PARAMETER = "/cdk-bootstrap/hnb659fds/version"
MINIMUM_BOOTSTRAP_VERSION = 6
# Lambda keeps this many concurrent executions unreserved in every account and region.
UNRESERVED_MINIMUM = 100
# Service Quotas code of Lambda's "Concurrent executions".
CONCURRENCY_QUOTA_CODE = "L-B99A9384"


# No answer from AWS at all (no network, DNS, a proxy, a timeout): not a credentials problem, and not said as one.
NETWORK_ERRORS = (NetworkUnreachable, HTTPClientError)


class NotReady(Exception):
    """The account or the session cannot take this deploy; the message says what to do."""


def network_problem(error: Exception, region: str | None) -> str:
    return (
        f"Cannot reach AWS over the network ({error}). Check the connection, a proxy (HTTPS_PROXY), and that "
        f"region {region or '(none)'} is the one meant; credentials were not tried."
    )


@dataclass(frozen=True)
class Ready:
    account: str
    region: str
    caller: str
    bootstrap_version: int
    reserved: int


def reservations(environment: str, overrides: dict[str, str]) -> dict[str, int]:
    """Each reserved-concurrency key as the deploy will see it: `-c` first, then the file, then the default."""
    configured = environments.load(environment)
    values = {}
    for key in settings.RESERVED_CONCURRENCY_KEYS:
        raw = overrides.get(key.name, configured.get(key.name, key.default))
        values[key.name] = int(float(raw or 0))
    return values


def check(session: boto3.Session, environment: str, reserved: dict[str, int]) -> Ready:
    region = session.region_name
    if not region:
        raise NotReady("No AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or a profile with a region).")
    try:
        expected_account, expected_region = deployed.target(environment)
    except deployed.WrongTarget as refusal:
        raise NotReady(f"{refusal}: the stack is synthesized for them; set both and commit them.") from None
    if region != expected_region:
        raise NotReady(
            f"{naming.stack_name(environment)} deploys to {expected_region} (config/{environment}.json), and this "
            f"shell's region is {region}: set AWS_REGION={expected_region}."
        )
    try:
        identity = session.client("sts").get_caller_identity()
    except NETWORK_ERRORS as error:
        raise NotReady(network_problem(error, region)) from None
    except (BotoCoreError, ClientError) as error:
        raise NotReady(f"No usable AWS credentials ({error}). Export them or set AWS_PROFILE.") from None
    account = identity["Account"]
    if account != expected_account:
        raise NotReady(
            f"These credentials are account {account}'s; {naming.stack_name(environment)} deploys to account "
            f"{expected_account} (config/{environment}.json). Nothing was deployed: use that account's credentials."
        )
    version = _bootstrap_version(session, account, region)
    _check_concurrency(session, naming.stack_name(environment), account, region, reserved)
    return Ready(account, region, identity["Arn"], version, sum(reserved.values()))


def _bootstrap_version(session: boto3.Session, account: str, region: str) -> int:
    bootstrap = f"npx --no-install cdk bootstrap aws://{account}/{region}"
    try:
        value = session.client("ssm").get_parameter(Name=BOOTSTRAP_PARAMETER)["Parameter"]["Value"]
    except ClientError as error:
        if error.response["Error"]["Code"] != "ParameterNotFound":
            raise NotReady(f"Could not read {BOOTSTRAP_PARAMETER}: {error}") from None
        raise NotReady(f"Account {account} in {region} is not CDK-bootstrapped. Run once:\n  {bootstrap}") from None
    if int(value) < MINIMUM_BOOTSTRAP_VERSION:
        raise NotReady(
            f"Bootstrap version {value} in {account}/{region} is older than {MINIMUM_BOOTSTRAP_VERSION}. Re-run:\n"
            f"  {bootstrap}"
        )
    return int(value)


def _check_concurrency(
    session: boto3.Session, stack_name: str, account: str, region: str, reserved: dict[str, int]
) -> None:
    wanted = sum(reserved.values())
    if wanted == 0:
        return
    lambda_client = session.client("lambda")
    settings_now = lambda_client.get_account_settings()["AccountLimit"]
    limit = settings_now["ConcurrentExecutions"]
    unreserved = settings_now["UnreservedConcurrentExecutions"]
    # A redeploy keeps this stack's own reservations: only what grows beyond them needs room.
    already = _stack_reservations(session, lambda_client, stack_name)
    room = unreserved + already - UNRESERVED_MINIMUM
    if wanted <= room:
        return
    keys = ", ".join(f"{name}={value}" for name, value in reserved.items() if value)
    raise NotReady(
        f"{stack_name} reserves {wanted} concurrent executions ({keys}), but account {account} in {region} allows "
        f"{limit} and only {room} can be reserved (Lambda keeps {UNRESERVED_MINIMUM} unreserved). Either request "
        f"the quota 'Concurrent executions' ({CONCURRENCY_QUOTA_CODE}) of at least {limit - room + wanted}:\n"
        f"  aws service-quotas request-service-quota-increase --service-code lambda "
        f"--quota-code {CONCURRENCY_QUOTA_CODE} --desired-value {max(1000, limit - room + wanted)}\n"
        f"or lower those keys (0: none reserved) in config/<env>.json."
    )


def _stack_reservations(session: boto3.Session, lambda_client: Any, stack_name: str) -> int:
    cloudformation = session.client("cloudformation")
    functions: list[str] = []
    try:
        for page in cloudformation.get_paginator("list_stack_resources").paginate(StackName=stack_name):
            functions += [
                item["PhysicalResourceId"]
                for item in page["StackResourceSummaries"]
                if item["ResourceType"] == "AWS::Lambda::Function"
            ]
    except ClientError as error:
        if "does not exist" in str(error):
            return 0  # a first deploy
        raise
    total = 0
    for name in functions:
        total += lambda_client.get_function_concurrency(FunctionName=name).get("ReservedConcurrentExecutions", 0)
    return total


# A stack's first deploy creates the table and the user pool without deletion protection, so a rollback can
# delete them; `make deploy` then deploys again with protection on
# (docs/decisions/048-a-first-deploy-that-fails-leaves-nothing-behind.md).
FIRST_DEPLOY_CONTEXT = f"-c {settings.DELETION_PROTECTION.name}=false"


def stack_exists(cloudformation: Any, stack_name: str) -> bool:
    try:
        stacks = cloudformation.describe_stacks(StackName=stack_name)["Stacks"]
    except ClientError as error:
        if "does not exist" in str(error):
            return False
        raise
    # A stack whose first create rolled back holds no table or pool: the next deploy is a first one again.
    return any(stack["StackStatus"] != "ROLLBACK_COMPLETE" for stack in stacks)


def session() -> boto3.Session:
    """The deploy's session; AWS_REGION counts as the CDK CLI and the AWS CLI read it (botocore alone does not)."""
    return boto3.Session(region_name=os.environ.get("AWS_REGION") or None)


def _overrides(pairs: list[str]) -> dict[str, str]:
    values = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        values[name] = value
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("environment")
    parser.add_argument("-c", "--context", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--first-deploy-context",
        action="store_true",
        help="print the extra context of a first deploy (nothing when the stack exists) and do nothing else",
    )
    arguments = parser.parse_args(argv)
    if arguments.first_deploy_context:
        try:
            cloudformation = session().client("cloudformation")
            first = not stack_exists(cloudformation, naming.stack_name(arguments.environment))
        except NETWORK_ERRORS as error:
            print(f"ddbguard: {network_problem(error, session().region_name)}", file=sys.stderr)
            return 1
        except (BotoCoreError, ClientError) as error:
            print(f"ddbguard: cannot tell whether the stack exists ({error})", file=sys.stderr)
            return 1
        if first:
            print(FIRST_DEPLOY_CONTEXT)
        return 0
    try:
        reserved = reservations(arguments.environment, _overrides(arguments.context))
        ready = check(session(), arguments.environment, reserved)
    except (NotReady, ValueError) as refusal:
        print(f"ddbguard: {refusal}", file=sys.stderr)
        return 1
    except NETWORK_ERRORS as error:  # after the identity call: the bootstrap, quota or stack reads
        print(f"ddbguard: {network_problem(error, session().region_name)}", file=sys.stderr)
        return 1
    print(
        f"deploying {naming.stack_name(arguments.environment)} as {ready.caller} to {ready.account}/{ready.region} "
        f"(bootstrap version {ready.bootstrap_version}, {ready.reserved} executions reserved)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
