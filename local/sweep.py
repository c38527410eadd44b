"""`make sweep [MIN_AGE=60]`: settle every balance of the local table whose `pending` values are older than MIN_AGE s.

Runs the scheduled sweeper's own handler (functions/streams/sweep_pending.py) against the table the running
`make run` serves (found through .local/run.json; DYNAMODB_PORT and TABLE_NAME, when set, win). Prints what it
settled; exits 1 when a balance stayed busy, 2 when the table cannot be reached.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from local.invocation import running
from local.lambda_context import LambdaContext
from local.log_lines import for_people
from local.runtime_env import configure
from local.service_state import ServiceNotFound, find_table

SWEEPER_FUNCTION = "sweep_pending"


def invoke_sweeper(min_age_s: float) -> dict[str, Any]:
    """One run of the sweeper's handler, as the schedule invokes it; its summary, or the error it raised."""
    from streams.sweep_pending import handler

    with running(SWEEPER_FUNCTION):
        return handler({"minAgeSeconds": min_age_s}, LambdaContext(function_name=f"ddbguard-{SWEEPER_FUNCTION}"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make sweep", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--min-age", type=float, default=60.0, help="settle balances whose oldest value waited this long"
    )
    args = parser.parse_args(argv)
    try:
        target = find_table()
    except ServiceNotFound as error:
        print(f"ddbguard: cannot sweep: {error}", file=sys.stderr)
        return 2
    configure(target.endpoint, target.table)
    sys.stdout = for_people(sys.stdout, "sweep_pending")  # logs and metrics readable (LOG_FORMAT=json: raw)
    from ddbguard.errors import Busy

    try:
        summary = invoke_sweeper(args.min_age)
    except (BotoCoreError, ClientError, Busy) as error:
        print(f"ddbguard: cannot sweep table {target.table} at {target.endpoint}: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:
        print(f"ddbguard: sweep incomplete: {error}", file=sys.stderr)
        return 1
    print(
        f"ddbguard: sweep of {target.table}: {summary['balancesSeen']} balances with unsettled values "
        f"(oldest {summary['oldestUnsettledAgeSeconds']} s), {summary['balancesSettled']} settled, "
        f"{summary['entriesSettled']} entries"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
