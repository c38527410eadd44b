"""How long logs are kept, from configuration: CloudWatch Logs accepts only its own list of retentions."""

from __future__ import annotations

from aws_cdk import aws_logs as logs
from constructs import Construct

from infra import settings

# The retentions CloudWatch Logs accepts, in days, in the order of CDK's RetentionDays (whose Python values are
# names), INFINITE left out: a log kept forever is a decision this configuration does not offer.
ALLOWED_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653)
_FINITE = [day for day in logs.RetentionDays if day != logs.RetentionDays.INFINITE]
BY_DAYS = dict(zip(ALLOWED_DAYS, _FINITE, strict=True))


def retention(scope: Construct, key: settings.ContextKey) -> logs.RetentionDays:
    """The key's number of days as a CloudWatch Logs retention; any other number fails synthesis, naming the key."""
    days = settings.whole_number(scope, key)
    if days not in ALLOWED_DAYS:
        raise ValueError(
            f"context {key.name}={days}: CloudWatch Logs keeps logs one of {', '.join(map(str, ALLOWED_DAYS))} days"
        )
    return BY_DAYS[days]


def function_logs(scope: Construct) -> logs.RetentionDays:
    return retention(scope, settings.LOG_RETENTION_DAYS)


def access_logs(scope: Construct) -> logs.RetentionDays:
    return retention(scope, settings.ACCESS_LOG_RETENTION_DAYS)
