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
from aws_cdk import Acknowledgment, Duration, Validations
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra import constants, settings
from infra.functions import Functions
from infra.monitoring import CRITICAL, Monitoring, custom_metric
from routes.job_access import SWEEPER_TABLE_ACCESS

SWEEPER_HANDLER = "streams.sweep_pending.handler"
# Shorter than the schedule's interval: a sweep ends before the next one starts, so with one execution reserved
# (prod) a scheduled sweep is never throttled by the one before it; a sweep settles ~500 balances a minute.
SWEEPER_TIMEOUT_SECONDS = 240
SWEEP_EVERY = Duration.minutes(5)
# Balances younger than this are the stream's to settle.
SWEEP_MIN_AGE_SECONDS = 60
# A stream record older than this is given up by the mapping (to the on-failure queue); the stream keeps 24 h.
MAX_RECORD_AGE = Duration.hours(1)
# The on-failure queue keeps its messages as long as SQS allows: they are the re-drive's input.
FAILURE_RETENTION = Duration.days(14)
# The mapping's own construct id in infra/functions.py.
MAPPING_ID = "SettleEntriesFromStream"

# Alarm thresholds: behind by minutes, not seconds (the sweeper settles anything older than a minute).
ALARM_GROUP = "Settlement"
ITERATOR_AGE_MS = 120_000
OLDEST_UNSETTLED_S = 600
OLDEST_UNSETTLED_EVALUATION_PERIODS = 3
OLDEST_UNSETTLED_DATAPOINTS = 2
OLDEST_UNSETTLED_METRIC = "OldestUnsettledAgeSeconds"
# Drawn beside the alarms, never alarmed on their own: the alarms above already say "behind".
DRAWN_METRICS = ("SettledEntries", "SettlementBehind", "PermanentStoreError")


class Settlement(Construct):
    """On-failure queue and limits for the stream mapping, the sweeper and its schedule; `monitor` adds alarms."""

    def __init__(self, scope: Construct, construct_id: str, *, functions: Functions) -> None:
        super().__init__(scope, construct_id)
        settler = functions.settlement_function
        self._settler = settler
        self.failure_queue = sqs.Queue(
            self,
            "SettlementFailures",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=FAILURE_RETENTION,
        )
        Validations.of(self.failure_queue).acknowledge(
            Acknowledgment(
                id="AwsSolutions-SQS3",
                reason="This queue is itself the dead-letter destination of the settlement's stream mapping; "
                "its messages are re-driven by an operator (docs/operations.md), never consumed automatically.",
            )
        )
        # The mapping sends to its destination with the function's role.
        self.failure_queue.grant_send_messages(settler)
        mapping = functions.node.find_child(MAPPING_ID).node.default_child
        assert isinstance(mapping, lambda_.CfnEventSourceMapping)
        mapping.maximum_record_age_in_seconds = int(MAX_RECORD_AGE.to_seconds())
        mapping.destination_config = lambda_.CfnEventSourceMapping.DestinationConfigProperty(
            on_failure=lambda_.CfnEventSourceMapping.OnFailureProperty(destination=self.failure_queue.queue_arn)
        )
        self.mapping = mapping

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
        self.schedule = events.Rule(
            self,
            "SweepSchedule",
            description="Runs the settlement sweeper",
            schedule=events.Schedule.rate(SWEEP_EVERY),
            targets=[
                targets.LambdaFunction(
                    self.sweeper,
                    event=events.RuleTargetInput.from_object({"minAgeSeconds": SWEEP_MIN_AGE_SECONDS}),
                    retry_attempts=2,
                )
            ],
        )

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
