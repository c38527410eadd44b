"""Settlement that cannot fall behind silently or for good: the stream's event source mapping (new ledger entries
only, partial batch responses), its maximum record age and SQS on-failure queue, the scheduled sweeper's rule, and
the thresholds of the falling-behind alarms. The product's infra/ (functions.py, settlement.py) and `GuardedTable`
build theirs from these.
"""

from __future__ import annotations

from typing import cast

from aws_cdk import Acknowledgment, Duration, Validations
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from constructs import Construct

__all__ = [
    "FAILURE_RETENTION",
    "ITERATOR_AGE_MS",
    "MAX_RECORD_AGE",
    "OLDEST_UNSETTLED_DATAPOINTS",
    "OLDEST_UNSETTLED_EVALUATION_PERIODS",
    "OLDEST_UNSETTLED_METRIC",
    "OLDEST_UNSETTLED_S",
    "SETTLEMENT_BATCH_SIZE",
    "SETTLEMENT_HANDLER",
    "SETTLEMENT_RETRY_ATTEMPTS",
    "SETTLEMENT_TIMEOUT_SECONDS",
    "SWEEPER_HANDLER",
    "SWEEPER_TIMEOUT_SECONDS",
    "SWEEP_EVERY",
    "SWEEP_MIN_AGE_SECONDS",
    "failure_queue",
    "send_failures_to",
    "settle_from_stream",
    "sweep_schedule",
]

# The library's handlers (ddbguard_jobs), as a team's stack names them; the product's functions re-export them.
SETTLEMENT_HANDLER = "ddbguard_jobs.settle_entries.handler"
SWEEPER_HANDLER = "ddbguard_jobs.sweep_pending.handler"
SETTLEMENT_TIMEOUT_SECONDS = 60
SETTLEMENT_BATCH_SIZE = 100
SETTLEMENT_RETRY_ATTEMPTS = 10
# Shorter than the schedule's interval: a sweep ends before the next one starts, so with one execution reserved
# a scheduled sweep is never throttled by the one before it; a sweep settles ~500 balances a minute.
SWEEPER_TIMEOUT_SECONDS = 240
SWEEP_EVERY = Duration.minutes(5)
# Balances younger than this are the stream's to settle.
SWEEP_MIN_AGE_SECONDS = 60
# A stream record older than this is given up by the mapping (to the on-failure queue); the stream keeps 24 h.
MAX_RECORD_AGE = Duration.hours(1)
# The on-failure queue keeps its messages as long as SQS allows: they are the re-drive's input.
FAILURE_RETENTION = Duration.days(14)

# Alarm thresholds: behind by minutes, not seconds (the sweeper settles anything older than a minute).
ITERATOR_AGE_MS = 120_000
OLDEST_UNSETTLED_S = 600
OLDEST_UNSETTLED_EVALUATION_PERIODS = 3
OLDEST_UNSETTLED_DATAPOINTS = 2
OLDEST_UNSETTLED_METRIC = "OldestUnsettledAgeSeconds"

STREAM_POLICY_ID = "SettleEntriesStreamPolicy"
MAPPING_ID = "SettleEntriesFromStream"


def settle_from_stream(
    scope: Construct, settler: lambda_.Function, table: dynamodb.ITable
) -> lambda_.EventSourceMapping:
    """The table's stream -> `settler`: only new ledger entries (a settled entry is a MODIFY), retried from the failed
    record on (partial batch responses), its stream read in a policy of its own (`SettleEntriesStreamPolicy`)."""
    # ListStreams has no resource-level permission, so its `*` is acknowledged on this policy alone (a wildcard added
    # anywhere else still fails synthesis).
    stream_policy = iam.Policy(
        scope,
        STREAM_POLICY_ID,
        statements=[
            iam.PolicyStatement(
                actions=["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"],
                resources=[cast(str, table.table_stream_arn)],
            ),
            iam.PolicyStatement(actions=["dynamodb:ListStreams"], resources=["*"]),
        ],
    )
    stream_policy.attach_to_role(cast(iam.IRole, settler.role))
    Validations.of(stream_policy).acknowledge(
        Acknowledgment(
            id="AwsSolutions-IAM5[Resource::*]",
            reason="dynamodb:ListStreams, which the event source mapping needs, has no resource-level permissions; "
            "the stream's records are read only from this table's stream ARN.",
        )
    )
    mapping = lambda_.EventSourceMapping(
        scope,
        MAPPING_ID,
        target=settler,
        event_source_arn=table.table_stream_arn,
        starting_position=lambda_.StartingPosition.TRIM_HORIZON,
        batch_size=SETTLEMENT_BATCH_SIZE,
        retry_attempts=SETTLEMENT_RETRY_ATTEMPTS,
        bisect_batch_on_error=True,
        report_batch_item_failures=True,
        filters=[
            lambda_.FilterCriteria.filter(
                {
                    "eventName": lambda_.FilterRule.is_equal("INSERT"),
                    "dynamodb": {"Keys": {"SK": {"S": lambda_.FilterRule.begins_with("TXN#")}}},
                }
            )
        ],
    )
    mapping.node.add_dependency(stream_policy)
    return mapping


def failure_queue(scope: Construct, construct_id: str = "SettlementFailures") -> sqs.Queue:
    """The mapping's on-failure destination: a batch that exhausts its retries or grows too old leaves a message here
    (stream coordinates, not data), re-driven by an operator; the sweeper settles the balances meanwhile."""
    queue = sqs.Queue(
        scope,
        construct_id,
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        enforce_ssl=True,
        retention_period=FAILURE_RETENTION,
    )
    Validations.of(queue).acknowledge(
        Acknowledgment(
            id="AwsSolutions-SQS3",
            reason="This queue is itself the dead-letter destination of the settlement's stream mapping; "
            "its messages are re-driven by an operator (docs/operations.md), never consumed automatically.",
        )
    )
    return queue


def send_failures_to(
    mapping: lambda_.EventSourceMapping, queue: sqs.IQueue, settler: lambda_.IFunction
) -> lambda_.CfnEventSourceMapping:
    """The mapping's maximum record age and on-failure destination (sent with the settler's role)."""
    queue.grant_send_messages(settler)
    cfn_mapping = mapping.node.default_child
    assert isinstance(cfn_mapping, lambda_.CfnEventSourceMapping)
    cfn_mapping.maximum_record_age_in_seconds = int(MAX_RECORD_AGE.to_seconds())
    cfn_mapping.destination_config = lambda_.CfnEventSourceMapping.DestinationConfigProperty(
        on_failure=lambda_.CfnEventSourceMapping.OnFailureProperty(destination=queue.queue_arn)
    )
    return cfn_mapping


def sweep_schedule(scope: Construct, sweeper: lambda_.IFunction, construct_id: str = "SweepSchedule") -> events.Rule:
    """Runs the sweeper every `SWEEP_EVERY` on balances older than `SWEEP_MIN_AGE_SECONDS`."""
    return events.Rule(
        scope,
        construct_id,
        description="Runs the settlement sweeper",
        schedule=events.Schedule.rate(SWEEP_EVERY),
        targets=[
            targets.LambdaFunction(
                sweeper,
                event=events.RuleTargetInput.from_object({"minAgeSeconds": SWEEP_MIN_AGE_SECONDS}),
                retry_attempts=2,
            )
        ],
    )
