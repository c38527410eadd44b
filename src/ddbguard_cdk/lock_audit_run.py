"""The nightly lock audit as a Step Functions run: a Distributed Map over Scan segments, each a loop of steps.

- EventBridge Scheduler starts the state machine once a day, at `hour` of `time_zone` (working hours), with the
  run's segments as input.
- A Distributed Map runs one child execution per segment, at most as many at once as there are segments (no more
  than the audit function's reserved concurrency, so a run cannot throttle itself).
- Each child loops: invoke the segment worker (`ddbguard_jobs.audit_locks`) with the segment's checkpoint (the
  Scan's `startKey`), and again with the checkpoint it returns, until it says the segment is done. A failed or
  throttled invocation is retried with the same input, so it resumes from the checkpoint; when every attempt
  fails, the segment ends as not covered instead of failing the run. No function invokes another, so Lambda's
  recursive-loop detection has nothing to stop, however many steps a segment takes.
- A last step reports coverage (`LockAuditUncoveredSegments`): `coverage_metric` is what its alarm watches (a
  Warning when a run left a segment uncovered, or when no run reported at all). Only an unrepaired finding is
  Critical.

The product's infra/audit.py and `GuardedTable` build their runs with this construct.

Why Step Functions and not a `RecursiveLoop: Allow` self-invoking chain: the state machine keeps each segment's
checkpoint, its retries and its completeness for us, and a Distributed Map is AWS's way to fan a long job out.
"""

from __future__ import annotations

from typing import cast

from aws_cdk import (
    Acknowledgment,
    Annotations,
    CfnElement,
    Duration,
    RemovalPolicy,
    Stack,
    TimeZone,
    Token,
    Validations,
)
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_scheduler as scheduler
from aws_cdk import aws_scheduler_targets as scheduler_targets
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

__all__ = ["COVERAGE_PERIOD", "RUN_TIMEOUT", "STEP_ATTEMPTS", "UNCOVERED_METRIC", "LockAuditRun"]

# Attempts of one step (the first and its retries); local/audit_run.py drives the worker the same way.
STEP_ATTEMPTS = 6
STEP_RETRY_INTERVAL = Duration.seconds(10)
STEP_RETRY_MAX_DELAY = Duration.minutes(5)
# A run that takes longer than this is stopped (and reports no coverage, which alarms).
RUN_TIMEOUT = Duration.hours(23)
UNCOVERED_METRIC = "LockAuditUncoveredSegments"
# The audit runs once a day: a day without a coverage report alarms too.
COVERAGE_PERIOD = Duration.days(1)
# The run starts at 17 past the hour: off the hour, so it does not pile onto other scheduled jobs in the account.
SCHEDULE_MINUTE = "17"


class LockAuditRun(Construct):
    """The state machine, its schedule and its log group; `coverage_metric` is what the coverage alarm watches."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        worker: lambda_.IFunction,
        segments: int,
        hour: int,
        time_zone: str,
        log_retention: logs.RetentionDays,
        schedule_minute: str = SCHEDULE_MINUTE,
    ) -> None:
        super().__init__(scope, construct_id)
        self.segments = segments
        step = tasks.LambdaInvoke(
            self,
            "AuditStep",
            lambda_function=worker,
            payload_response_only=True,
            retry_on_service_exceptions=False,  # the one Retry below covers every failure, throttles included
            comment="Audits pages of one segment from its checkpoint; returns the next checkpoint",
        )
        step.add_retry(
            errors=[sfn.Errors.ALL],
            max_attempts=STEP_ATTEMPTS - 1,
            interval=STEP_RETRY_INTERVAL,
            backoff_rate=2,
            max_delay=STEP_RETRY_MAX_DELAY,
            jitter_strategy=sfn.JitterType.FULL,
        )
        uncovered = sfn.Pass(
            self,
            "SegmentNotCovered",
            parameters={"segment.$": "$.segment", "totalSegments.$": "$.totalSegments", "done": False},
        )
        step.add_catch(uncovered, errors=[sfn.Errors.ALL], result_path="$.error")
        segment_done = sfn.Choice(self, "SegmentDone")
        step.next(
            segment_done.when(
                sfn.Condition.boolean_equals("$.done", True), sfn.Succeed(self, "SegmentCovered")
            ).otherwise(step)
        )
        fan_out = sfn.DistributedMap(
            self,
            "Segments",
            items_path="$.segments",
            max_concurrency=segments,
            # Standard child executions: a segment of a large table runs for hours (an express one stops at 5 min).
            map_execution_type=sfn.StateMachineType.STANDARD,
        )
        # CDK's validation asks for the processor's execution type as well, then notes it is taken from the map's.
        fan_out.item_processor(step, mode=sfn.ProcessorMode.DISTRIBUTED, execution_type=sfn.ProcessorType.STANDARD)
        Annotations.of(fan_out).acknowledge_warning(
            "@aws-cdk/aws-stepfunctions:propertyIgnored", "The same STANDARD type is set on the map itself."
        )
        report = tasks.LambdaInvoke(
            self,
            "ReportCoverage",
            lambda_function=worker,
            # Each child catches its own failure, so the map always completes with one outcome per segment.
            payload=sfn.TaskInput.from_object({"segments": sfn.JsonPath.entire_payload}),
            payload_response_only=True,
            comment="Emits LockAuditUncoveredSegments: how many segments the run did not cover",
        )
        self.log_group = logs.LogGroup(
            self,
            "Logs",
            retention=log_retention,
            removal_policy=RemovalPolicy.DESTROY,
        )
        self.state_machine = sfn.StateMachine(
            self,
            "StateMachine",
            definition_body=sfn.DefinitionBody.from_chainable(fan_out.next(report)),
            timeout=RUN_TIMEOUT,
            tracing_enabled=True,
            logs=sfn.LogOptions(destination=self.log_group, level=sfn.LogLevel.ALL, include_execution_data=False),
            comment="Nightly uniqueness-lock audit over every Scan segment",
        )
        self._acknowledge_wildcards(worker)
        # EventBridge Scheduler, not a UTC cron rule: the run starts at `auditHour` in the team's time zone, daylight
        # saving included, so an unrepaired finding (Critical) pages during working hours. A run over 100 million
        # items takes about five hours (docs/capacity.md), so it ends the same afternoon.
        if not 0 <= hour <= 23:
            raise ValueError(f"audit hour {hour}: an hour of the day, 0 to 23, is required")
        self.time_zone = time_zone
        # Its own construct id: the EventBridge rule it replaced was `Schedule`, and CloudFormation refuses an update
        # that gives a logical id another resource type ("Update of resource type is not permitted"), which would
        # stop every stack deployed before from updating.
        self.schedule = scheduler.Schedule(
            self,
            "WorkingHoursSchedule",
            description="Runs the uniqueness-lock audit once a day, in working hours",
            schedule=scheduler.ScheduleExpression.cron(
                minute=schedule_minute, hour=str(hour), time_zone=TimeZone.of(self.time_zone)
            ),
            target=scheduler_targets.StepFunctionsStartExecution(
                self.state_machine,
                input=scheduler.ScheduleTargetInput.from_object(self.run_input()),
                retry_attempts=2,
            ),
        )

    def _acknowledge_wildcards(self, worker: lambda_.IFunction) -> None:
        """The grants Step Functions makes itself, each acknowledged alone (any other wildcard still fails)."""
        stack = Stack.of(self)
        worker_id = stack.get_logical_id(cast(CfnElement, worker.node.default_child))
        machine_id = stack.get_logical_id(cast(CfnElement, self.state_machine.node.default_child))
        role = cast(iam.Role, self.state_machine.role)
        Validations.of(role.node.find_child("DefaultPolicy")).acknowledge(
            Acknowledgment(
                id=f"AwsSolutions-IAM5[Resource::<{worker_id}.Arn>:*]",
                reason="The audit's steps invoke the segment worker; `:*` is its versions and aliases, the same "
                "function.",
            ),
            Acknowledgment(
                id="AwsSolutions-IAM5[Resource::*]",
                reason="X-Ray tracing of the state machine: xray:PutTraceSegments and its peers support no "
                "resource-level permissions.",
            ),
        )
        # cdk-nag names the resource as synthesized: pseudo parameters, or literals when the stack is pinned to an
        # account and region (a named environment).
        partition, region, account = (
            f"<AWS::{pseudo}>" if Token.is_unresolved(value) else value
            for pseudo, value in (
                ("Partition", stack.partition),
                ("Region", stack.region),
                ("AccountId", stack.account),
            )
        )
        execution = (
            f"arn:{partition}:states:{region}:{account}:execution:"
            f'{{"Fn::Select":[6,{{"Fn::Split":[":",{{"Ref":"{machine_id}"}}]}}]}}'
        )
        Validations.of(self.state_machine.node.find_child("DistributedMapPolicy")).acknowledge(
            *(
                Acknowledgment(
                    id=f"AwsSolutions-IAM5[Resource::{execution}{suffix}]",
                    reason="The Distributed Map starts and watches child executions of this state machine only; their "
                    "names are made at run time.",
                )
                for suffix in (":*", "/*:*")
            )
        )

    def run_input(self) -> dict[str, list[dict[str, object]]]:
        """A run's input: the Map's items, every segment of the run, each from the beginning of its range (no
        checkpoint). The stack outputs it (`AuditRunInput`), so a run started by hand is the scheduled one."""
        return {"segments": [{"segment": index, "totalSegments": self.segments} for index in range(self.segments)]}

    def coverage_metric(self, namespace: str, service: str = "ddbguard") -> cloudwatch.Metric:
        """Segments the last run left uncovered (the worker's Powertools metric in `namespace`); missing data means
        no run reported."""
        return cloudwatch.Metric(
            namespace=namespace,
            metric_name=UNCOVERED_METRIC,
            dimensions_map={"service": service},
            statistic="Maximum",
            period=COVERAGE_PERIOD,
        )
