#!/usr/bin/env python3
"""`make page-test ENV=<env>`: send a test page through the Critical path, end to end.

Sets the stack's page-test alarm (output `PageTestAlarmName`, a Critical alarm on a metric nothing emits) to ALARM.
CloudWatch then notifies exactly what every Critical alarm notifies: the stack's Critical topic with its
subscribers, and the on-call topic or webhook of `config/<env>.json`. At its next evaluation (within a minute) the
alarm finds no breaching data and returns to OK, which sends the OK notification that closes the page. Whoever is
on call confirms they were paged; nothing else changes.

python scripts/page_test.py ENV    exit 0 once the alarm is in ALARM; 1 saying why otherwise
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from botocore.exceptions import BotoCoreError, ClientError

from scripts import deployed


def send(environment: str) -> str:
    """Set the page-test alarm to ALARM; returns what was done, for the operator."""
    aws = deployed.session(environment)
    alarm = deployed.outputs(aws, environment).get("PageTestAlarmName")
    if not alarm:
        raise deployed.WrongTarget(f"the stack of {environment} has no PageTestAlarmName output: deploy it first")
    caller = aws.client("sts").get_caller_identity()["Arn"]
    cloudwatch = aws.client("cloudwatch")
    reason = f"Test page: make page-test by {caller} at {datetime.now(UTC).isoformat(timespec='seconds')}"
    cloudwatch.set_alarm_state(AlarmName=alarm, StateValue="ALARM", StateReason=reason)
    (state,) = cloudwatch.describe_alarms(AlarmNames=[alarm])["MetricAlarms"]
    if state["StateValue"] != "ALARM":
        raise deployed.WrongTarget(f"{alarm} is {state['StateValue']}, not ALARM")
    targets = ", ".join(state.get("AlarmActions", [])) or "no action (the alarm notifies nobody!)"
    return (
        f"{alarm} is in ALARM ({reason}).\n"
        f"Notified: {targets}.\n"
        "Confirm the on-call engineer was paged; the alarm returns to OK within a minute and sends the OK notification."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make page-test", description=__doc__.splitlines()[0])
    parser.add_argument("environment")
    arguments = parser.parse_args(argv)
    try:
        print(send(arguments.environment))
    except (deployed.WrongTarget, ValueError, BotoCoreError, ClientError) as refusal:
        print(f"ddbguard: no test page sent: {refusal}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
