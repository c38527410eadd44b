#!/usr/bin/env python3
"""Before `cdk deploy`: are there credentials, and is the target account/region CDK-bootstrapped recently enough?

Reads the SSM parameter the CDK bootstrap stack writes (`/cdk-bootstrap/hnb659fds/version`); the synthesized
template requires version 6 or later. Exit 0 when ready, 1 with the command to run otherwise.
"""

from __future__ import annotations

import sys

import boto3
from botocore.exceptions import BotoCoreError, ClientError

BOOTSTRAP_PARAMETER = "/cdk-bootstrap/hnb659fds/version"
MINIMUM_VERSION = 6


def main() -> int:
    session = boto3.Session()
    region = session.region_name
    if not region:
        print("No AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or a profile with a region).", file=sys.stderr)
        return 1
    try:
        identity = session.client("sts").get_caller_identity()
    except (BotoCoreError, ClientError) as error:
        print(f"No usable AWS credentials ({error}). Export them or set AWS_PROFILE.", file=sys.stderr)
        return 1
    account = identity["Account"]
    try:
        value = session.client("ssm").get_parameter(Name=BOOTSTRAP_PARAMETER)["Parameter"]["Value"]
    except ClientError as error:
        if error.response["Error"]["Code"] != "ParameterNotFound":
            print(f"Could not read {BOOTSTRAP_PARAMETER}: {error}", file=sys.stderr)
            return 1
        print(
            f"Account {account} in {region} is not CDK-bootstrapped. Run once:\n"
            f"  npx --no-install cdk bootstrap aws://{account}/{region}",
            file=sys.stderr,
        )
        return 1
    if int(value) < MINIMUM_VERSION:
        print(
            f"Bootstrap version {value} in {account}/{region} is older than {MINIMUM_VERSION}. Re-run:\n"
            f"  npx --no-install cdk bootstrap aws://{account}/{region}",
            file=sys.stderr,
        )
        return 1
    print(f"deploying as {identity['Arn']} to {account}/{region} (bootstrap version {value})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
