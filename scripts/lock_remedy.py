#!/usr/bin/env python3
"""`make lock-remedy ENV=<env> ACCOUNT=<accountId> FIELD=<email|username> VALUE=<new value>`: the on-call remedy for
an unrepaired lock-audit finding, two accounts claiming one email or username (docs/operations.md).

A person decides which account keeps the value; this gives the other one (`ACCOUNT`) its new value, as its owner
chose it, on the owner's behalf: the very update `PATCH /accounts/{accountId}` makes (ddbguard.guards.
entity_operations.update), at the version just read, with the owner the account names. The new value's lock is put
only if nobody holds it; the old value's lock is released if the account holds it, and left to the account that
does otherwise. The API lets only an account's owner change it, so an admin cannot; this runs with the stack's
`LockRemedyRoleArn` role (assumed here: it reads and updates accounts and locks and nothing else, for principals
of the stack's account signed in with MFA), on the environment's own account and region (config/<env>.json). The
next audit run then finds nothing to report.

python scripts/lock_remedy.py ENV --account ID --field email|username --value NEW   exit 0 when done, 1 otherwise
"""

from __future__ import annotations

import argparse
import os
import sys

from botocore.exceptions import BotoCoreError, ClientError

from ddbguard.errors import DomainError
from scripts import deployed

ROLE_OUTPUT = "LockRemedyRoleArn"
SESSION_NAME = "ddbguard-lock-remedy"


def _act_as_remedy_role(environment: str) -> None:
    """Point the layer's DynamoDB client at the deployed table with the remedy role's credentials."""
    aws = deployed.session(environment)
    outputs = deployed.outputs(aws, environment)
    role = outputs.get(ROLE_OUTPUT)
    if not role or "TableName" not in outputs:
        raise deployed.WrongTarget(f"the stack of {environment} has no {ROLE_OUTPUT} output: deploy it first")
    credentials = aws.client("sts").assume_role(RoleArn=role, RoleSessionName=SESSION_NAME)["Credentials"]
    os.environ.update(
        {
            "TABLE_NAME": outputs["TableName"],
            "AWS_DEFAULT_REGION": aws.region_name,
            "AWS_ACCESS_KEY_ID": credentials["AccessKeyId"],
            "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"],
            "AWS_SESSION_TOKEN": credentials["SessionToken"],
        }
    )
    os.environ.pop("AWS_PROFILE", None)  # the role's credentials, not the profile's


def remedy(account_id: str, field: str, new_value: str) -> dict[str, object]:
    """Give `account_id` its new `field` value on its owner's behalf; returns the account as written. Refusals
    (no such account, the value taken or invalid) raise the layer's own errors, which say why."""
    from ddbguard.domain.accounts import clean_values
    from ddbguard.domain.entities.accounts import ACCOUNT
    from ddbguard.guards import entity_operations
    from ddbguard.store import reads
    from ddbguard.store.attribute_names import OWNER_SUB, VERSION

    fields = [unique.field for unique in ACCOUNT.unique]
    if field not in fields:
        raise ValueError(f"{field!r} is not a unique field of an account ({', '.join(fields)})")
    account = reads.get_item(ACCOUNT.key(account_id))
    if account is None:
        raise ValueError(f"no account {account_id}")
    return dict(
        entity_operations.update(
            ACCOUNT, account_id, str(account[OWNER_SUB]), int(account[VERSION]), clean_values({field: new_value})
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make lock-remedy", description=__doc__.splitlines()[0])
    parser.add_argument("environment")
    parser.add_argument("--account", required=True, help="the account that gives the value up (its accountId)")
    parser.add_argument("--field", required=True, help="email or username")
    parser.add_argument("--value", required=True, help="its new value, as its owner chose it")
    arguments = parser.parse_args(argv)
    try:
        _act_as_remedy_role(arguments.environment)
        written = remedy(arguments.account, arguments.field, arguments.value)
    except (deployed.WrongTarget, ValueError, DomainError, BotoCoreError, ClientError) as refusal:
        print(f"ddbguard: nothing changed: {refusal}", file=sys.stderr)
        return 1
    print(
        f"account {arguments.account}: {arguments.field} is now {written[arguments.field]!r} (version "
        f"{written['version']}), with its own lock; the old value's lock stays with the account that holds it. "
        "Run the audit again (docs/operations.md) to confirm."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
