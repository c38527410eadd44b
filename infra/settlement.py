"""Settlement that cannot fall behind silently or for good: the stream mapping's limits and on-failure queue,
the scheduled sweeper, and the alarms on falling behind.

- The stream's event source mapping (infra/functions.py) gets a maximum record age and an SQS on-failure
  destination: a batch that exhausts its retries or grows too old leaves a message there (stream coordinates,
  not data) instead of vanishing. Re-driving it is a runbook step (docs/operations.md); the sweeper settles the
  balances meanwhile, since it reads `pending`, not the stream.
- The sweeper (functions/streams/sweep_pending.py) runs every few minutes and settles every balance whose
  `pending` values are older than a minute; its IAM is exactly `SWEEPER_TABLE_ACCESS` (functions/routes/job_access.py).
- Alarms: the mapping's IteratorAge, the on-failure queue's depth, and the age of the oldest unsettled value
  (`OldestUnsettledAgeSeconds`, emitted by the settlement and by every sweep; a silent sweeper alarms too).
"""

from __future__ import annotations

from typing import Any

import cdk_monitoring_constructs as mc
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from ddbguard_cdk.settlement import (
    ITERATOR_AGE_MS,
    OLDEST_UNSETTLED_DATAPOINTS,
    OLDEST_UNSETTLED_EVALUATION_PERIODS,
    OLDEST_UNSETTLED_METRIC,
    OLDEST_UNSETTLED_S,
    SWEEP_EVERY,
    SWEEPER_TIMEOUT_SECONDS,
    failure_queue,
    send_failures_to,
    sweep_schedule,
)
from infra import constants, settings
from infra.functions import Functions
from infra.monitoring import CRITICAL, Monitoring, custom_metric
from routes.job_access import SWEEPER_TABLE_ACCESS

# The product's own handler module (functions/streams/sweep_pending.py re-exports the library's).
SWEEPER_HANDLER = "streams.sweep_pending.handler"
# The mapping's own construct id in infra/functions.py.
MAPPING_ID = "SettleEntriesFromStream"
ALARM_GROUP = "Settlement"
# Drawn beside the alarms, never alarmed on their own: the alarms above already say "behind".
DRAWN_METRICS = ("SettledEntries", "SettlementBehind", "PermanentStoreError")


class Settlement(Construct):
    """On-failure queue and limits for the stream mapping, the sweeper and its schedule; `monitor` adds alarms."""

    def __init__(self, scope: Construct, construct_id: str, *, functions: Functions) -> None:
        super().__init__(scope, construct_id)
        settler = functions.settlement_function
        self._settler = settler
        # Queue, record age, destination and schedule are the construct package's (src/ddbguard_cdk/settlement.py).
        self.failure_queue = failure_queue(self)
        mapping = functions.node.find_child(MAPPING_ID)
        assert isinstance(mapping, lambda_.EventSourceMapping)
        self.mapping = send_failures_to(mapping, self.failure_queue, settler)

        # Functions builds every function the same way (own role, log group, tracing policy, acknowledgements).
        self.sweeper = functions._function(
            "SweepPending",
            handler=SWEEPER_HANDLER,
            description="Settles every ledger balance whose unsettled values are older than a minute",
            access=SWEEPER_TABLE_ACCESS,
            memory_mb=constants.AUDIT_MEMORY_MB,
            timeout_seconds=SWEEPER_TIMEOUT_SECONDS,
            # 1: one sweep at a time. The timeout is shorter than the schedule's interval, so two scheduled sweeps
            # never overlap; a sweep started by hand (the runbook) that meets a scheduled one is throttled, and Lambda
            # retries the throttled one (its throttles are a Warning).
            reserved=settings.count(self, settings.SWEEPER_RESERVED_CONCURRENCY),
        )
        self.schedule = sweep_schedule(self, self.sweeper)

    def monitor(self, monitoring: Monitoring) -> None:
        """A dashboard section and the three falling-behind alarms, on the stack's MonitoringFacade (so they are named,
        notify like every other alarm and use the context's period and N of M)."""
        behind: dict[str, tuple[Any, float, str, dict[str, Any]]] = {
            "IteratorAge": (
                self._settler.metric("IteratorAge", statistic="Maximum", period=monitoring.period),
                ITERATOR_AGE_MS,
                "The settlement reads the table stream minutes behind its newest record.",
                # A level, not a count of events: when the metric stops (no batch read), the last level stands.
                {"treat_missing_data_override": cloudwatch.TreatMissingData.IGNORE},
            ),
            "FailureQueue": (
                self.failure_queue.metric_approximate_number_of_messages_visible(
                    period=monitoring.period, statistic="Maximum"
                ),
                0,
                "Stream batches the settlement gave up on wait to be re-driven (docs/operations.md).",
                # SQS stops sending a queue's metrics after 6 hours without activity, while messages still wait
                # (kept 14 days): missing data keeps the alarm where it is, so it clears only on a datapoint of 0,
                # which the re-drive's receives and deletes produce.
                {"treat_missing_data_override": cloudwatch.TreatMissingData.IGNORE},
            ),
            "OldestUnsettled": (
                cloudwatch.Metric(
                    namespace=monitoring.namespace,
                    metric_name=OLDEST_UNSETTLED_METRIC,
                    dimensions_map={"service": constants.SERVICE_NAME},
                    statistic="Maximum",
                    period=SWEEP_EVERY,
                ),
                OLDEST_UNSETTLED_S,
                "A ledger has held unsettled movements for minutes; at its bound it answers 503 settlement_behind.",
                # One datapoint per sweep; the sweeper reports on every run, 0 included, so silence means it is
                # not running.
                {
                    "period": SWEEP_EVERY,
                    "evaluation_periods": OLDEST_UNSETTLED_EVALUATION_PERIODS,
                    "datapoints_to_alarm": OLDEST_UNSETTLED_DATAPOINTS,
                    "treat_missing_data_override": cloudwatch.TreatMissingData.BREACHING,
                },
            ),
        }
        metrics: list[cloudwatch.Metric | mc.CustomMetricWithAlarm] = []
        for name, (metric, threshold, description, overrides) in behind.items():
            overrides = {"treat_missing_data_override": cloudwatch.TreatMissingData.NOT_BREACHING, **overrides}
            alarm = mc.CustomThreshold(
                threshold=threshold,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                additional_description=description,
                **overrides,
            )
            metrics.append(
                mc.CustomMetricWithAlarm(metric=metric, alarm_friendly_name=name, add_alarm={CRITICAL: alarm})
            )
        metrics += [custom_metric(name, monitoring.period, monitoring.namespace) for name in DRAWN_METRICS]
        monitoring.facade.monitor_custom(
            human_readable_name="Settlement (stream, sweeper, on-failure queue)",
            alarm_friendly_name=ALARM_GROUP,
            metric_groups=[mc.CustomMetricGroup(title="Settlement behind", metrics=metrics)],
        )
