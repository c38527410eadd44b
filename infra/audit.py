"""The nightly lock audit as a Step Functions run (src/ddbguard_cdk/lock_audit_run.py: a Distributed Map over Scan
segments, each a loop of steps), at the hour and time zone of the context, with its coverage alarm on the stack's
MonitoringFacade.

Throttles, errors and duration of the worker are Warnings (infra/monitoring.py, `scheduled=True`); a run that left a
segment uncovered, or did not report at all, is a Warning too. Only an unrepaired finding is Critical.
"""

from __future__ import annotations

import cdk_monitoring_constructs as mc
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from ddbguard_cdk import lock_audit_run
from ddbguard_cdk.lock_audit_run import COVERAGE_PERIOD, RUN_TIMEOUT, STEP_ATTEMPTS
from infra import constants, retention, settings
from infra.monitoring import WARNING, Monitoring

__all__ = ["RUN_TIMEOUT", "STEP_ATTEMPTS", "LockAuditRun"]


class LockAuditRun(lock_audit_run.LockAuditRun):
    """The construct package's run, configured from context; `monitor` adds the coverage alarm."""

    def __init__(self, scope: Construct, construct_id: str, *, worker: lambda_.IFunction, segments: int) -> None:
        hour = settings.count(scope, settings.AUDIT_HOUR)
        if hour > 23:
            raise ValueError(f"context {settings.AUDIT_HOUR.name}={hour}: an hour of the day, 0 to 23, is required")
        super().__init__(
            scope,
            construct_id,
            worker=worker,
            segments=segments,
            hour=hour,
            time_zone=settings.text(scope, settings.AUDIT_TIME_ZONE),
            log_retention=retention.function_logs(scope),
            schedule_minute=constants.AUDIT_SCHEDULE_MINUTE,
        )

    def monitor(self, monitoring: Monitoring) -> None:
        """A Warning when a run did not cover the whole table, or did not report (missing data breaches)."""
        # The environment's namespace, where the worker's Powertools metrics go.
        metric = self.coverage_metric(monitoring.namespace, constants.SERVICE_NAME)
        alarm = mc.CustomThreshold(
            threshold=0,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            datapoints_to_alarm=1,
            evaluation_periods=1,
            period=COVERAGE_PERIOD,
            treat_missing_data_override=cloudwatch.TreatMissingData.BREACHING,
            additional_description="Last night's lock audit did not cover the whole table (or did not run): "
            "the next run covers it; see the state machine's execution for the failed segment.",
        )
        monitoring.facade.monitor_custom(
            human_readable_name="Lock audit coverage",
            alarm_friendly_name="LockAuditCoverage",
            metric_groups=[
                mc.CustomMetricGroup(
                    title="Segments not covered",
                    metrics=[
                        mc.CustomMetricWithAlarm(
                            metric=metric, alarm_friendly_name="Uncovered", add_alarm={WARNING: alarm}
                        )
                    ],
                )
            ],
        )
