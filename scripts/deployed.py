"""What the operator tools (`make page-test`, `make lock-remedy`) know of a deployed environment: a session in the
environment's own region, refused when the credentials are another account's, and the stack's outputs.

The account and region come from `config/<env>.json` (the stack is synthesized for them), so a shell pointed at
another region or another account's credentials cannot act on the wrong stack by accident.
"""

from __future__ import annotations

from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from infra import environments, naming, settings


class WrongTarget(Exception):
    """The credentials or the environment's configuration do not let a tool act on the environment's stack."""


def target(environment: str) -> tuple[str, str]:
    """(account, region) that `config/<environment>.json` names."""
    values = environments.load(environment)
    account, region = str(values.get(settings.ACCOUNT.name, "")), str(values.get(settings.REGION.name, ""))
    if not account or not region:
        raise WrongTarget(f"config/{environment}.json names no account and region")
    return account, region


def session(environment: str) -> boto3.Session:
    """A session in the environment's region whose credentials are the environment's account's."""
    account, region = target(environment)
    aws = boto3.Session(region_name=region)
    try:
        caller = aws.client("sts").get_caller_identity()["Account"]
    except (BotoCoreError, ClientError) as error:
        raise WrongTarget(f"No usable AWS credentials ({error}). Export them or set AWS_PROFILE.") from None
    if caller != account:
        raise WrongTarget(
            f"These credentials are account {caller}'s; {naming.stack_name(environment)} is in account {account} "
            f"(config/{environment}.json). Use that account's credentials."
        )
    return aws


def outputs(aws: Any, environment: str) -> dict[str, str]:
    """The stack's outputs by key (describe-stacks returns them all)."""
    stack = naming.stack_name(environment)
    try:
        (found,) = aws.client("cloudformation").describe_stacks(StackName=stack)["Stacks"]
    except ClientError as error:
        raise WrongTarget(f"{stack} cannot be read in {aws.region_name}: {error}") from None
    return {output["OutputKey"]: output["OutputValue"] for output in found.get("Outputs", [])}
