#!/usr/bin/env python3
"""`make watch ENV=dev`: the cloud loop. `cdk watch` on one environment's stack, hotswapping function code.

    python scripts/cdk_watch.py ENV [-c key=value ...] [--dry-run]

CDK watches the files `cdk.json` names ("watch": app.py, infra/, functions/, config/) and on each save synthesizes
again (cdk-nag included) and deploys. A change to a handler (the function code asset) is hotswapped: Lambda's
code is replaced through its API, seconds, no CloudFormation. Anything else falls back to a CloudFormation deploy
(`--hotswap-fallback`, minutes): a change to the shared layer (CDK cannot hotswap a layer version), IAM, routes,
the table, alarms. A hotswap leaves the stack drifted from its template until the next full deploy, so only an
environment whose `config/<env>.json` sets `"hotswap": true` may be watched (dev); prod is refused, before any AWS
call. `--dry-run` prints the command instead of running it (tests/infra/test_cdk_watch.py).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from infra import constants, environments, settings

ROOT = Path(__file__).resolve().parents[1]

CDK = ("npx", "--no-install", "cdk")


class Refused(Exception):
    """This environment may not be watched; the message says why and what to do."""


def allows_hotswap(environment: str) -> bool:
    value = environments.load(environment).get(settings.HOTSWAP.name, settings.HOTSWAP.default)
    return value is True or str(value).strip().lower() in ("true", "1", "yes")


def watch_command(environment: str, context: list[str]) -> list[str]:
    """The `cdk watch` command line for `environment`; Refused when its config does not allow hotswap."""
    try:
        allowed = allows_hotswap(environment)
    except ValueError as error:  # no such config file, or a bad one: environments.load names it
        raise Refused(str(error)) from None
    if not allowed:
        raise Refused(
            f"make watch ENV={environment} refused: config/{environment}.json does not allow hotswap "
            f'("{settings.HOTSWAP.name}": true). A hotswap changes functions behind CloudFormation\'s back, which '
            "is for a development stack only; deploy this one with `make deploy ENV="
            f"{environment}`."
        )
    return [
        *CDK,
        "watch",
        constants.STACK_ID,
        "--hotswap-fallback",
        "--no-notices",
        "-c",
        f"environment={environment}",
        *context,
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make watch", description=__doc__.splitlines()[0])
    parser.add_argument("environment", help="the environment to watch (config/<env>.json), e.g. dev")
    parser.add_argument("--dry-run", action="store_true", help="print the cdk command instead of running it")
    args, context = parser.parse_known_args(argv)
    try:
        command = watch_command(args.environment, context)
    except Refused as refusal:
        print(f"ddbguard: {refusal}", file=sys.stderr)
        return 2
    if args.dry_run:
        print(shlex.join(command))
        return 0
    print(
        f"ddbguard: watching ddbguard-{args.environment}: a saved handler is hotswapped in seconds; the layer, IAM, "
        "routes and alarms go through a CloudFormation deploy (minutes). Ctrl-C stops.",
        file=sys.stderr,
        flush=True,
    )
    os.chdir(ROOT)
    os.execvp(command[0], command)


if __name__ == "__main__":
    sys.exit(main())
