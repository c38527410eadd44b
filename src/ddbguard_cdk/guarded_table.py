"""`GuardedTable`: ddbguard's table and background jobs in a team's own stack.

What it builds, each as the product's own stack builds it (the same parts: this package):

- the table (`PK`/`SK`, keys-only stream, TTL on `expiration`, point-in-time recovery, the sparse `unsettled` index
  where money waits for settlement), retained on delete;
- the library layer (the installed `ddbguard` packages) and the dependencies layer (the release's runtime pins),
  both built offline without Docker, unless given;
- the stream's settlement function, its event source mapping and on-failure queue; the sweeper and its schedule;
- the lock audit: its segment worker and its nightly Step Functions run over Scan segments, auditing the entities
  the team's modules declare (`entity_modules`, imported from `code`);
- alarms on falling behind (stream age, failed batches, oldest unsettled value), on the jobs' errors, on the audit's
  coverage and on an unrepaired lock, sent to `alarm_topic` when given.

`add_function` builds a team's own handler function with its own least-privilege role (exactly the actions and
`dynamodb:LeadingKeys` of the entities' routes it serves), the layers and the table's environment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from constructs import Construct

from ddbguard.guards.entity import Entity
from ddbguard_cdk import settlement
from ddbguard_cdk.functions import guarded_function
from ddbguard_cdk.grants import CRUD_METHODS, entity_access, grant_entity_access
from ddbguard_cdk.layers import dependencies_layer, library_layer
from ddbguard_cdk.lock_audit_run import COVERAGE_PERIOD, LockAuditRun
from ddbguard_cdk.table import guarded_table
from ddbguard_jobs.access import SETTLEMENT_ACCESS, SWEEPER_ACCESS, audit_access
from ddbguard_jobs.entity_modules import ENTITY_MODULES_VARIABLE, entities_in

__all__ = ["AUDIT_HANDLER", "SERVICE", "GuardedTable"]

AUDIT_HANDLER = "ddbguard_jobs.audit_locks.handler"
AUDIT_TIMEOUT_SECONDS = 300
JOB_MEMORY_MB = 512
FUNCTION_MEMORY_MB = 256
FUNCTION_TIMEOUT_SECONDS = 10
# The Powertools service every ddbguard metric carries as its dimension (ddbguard.observability).
SERVICE = "ddbguard"
LOCK_AUDIT_UNREPAIRED = "LockAuditUnrepaired"


class GuardedTable(Construct):
    """The table, its layers, its background jobs and their alarms; `add_function` and `grant_entity` for a team's
    own handlers."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        code: lambda_.Code,
        entity_modules: Sequence[str],
        alarm_topic: sns.ITopic | None = None,
        metrics_namespace: str = "ddbguard",
        library: lambda_.ILayerVersion | None = None,
        dependencies: lambda_.ILayerVersion | None = None,
        audit_segments: int = 4,
        audit_hour: int = 10,
        audit_time_zone: str = "UTC",
        deletion_protection: bool = True,
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
    ) -> None:
        super().__init__(scope, construct_id)
        self.code = code
        self.log_retention = log_retention
        self.table = guarded_table(
            self, "Table", deletion_protection=deletion_protection, removal_policy=removal_policy
        )
        self.layers: list[lambda_.ILayerVersion] = [
            dependencies or dependencies_layer(self, "DependenciesLayer"),
            library or library_layer(self, "LibraryLayer"),
        ]
        # What every function of the guards reads: the table, and where its metrics go.
        self.environment: dict[str, str] = {
            "TABLE_NAME": self.table.table_name,
            "POWERTOOLS_SERVICE_NAME": SERVICE,
            "POWERTOOLS_METRICS_NAMESPACE": metrics_namespace,
        }
        self.namespace = metrics_namespace
        self.settlement_function = self._job(
            "SettleEntries",
            settlement.SETTLEMENT_HANDLER,
            SETTLEMENT_ACCESS,
            "Settles new ledger entries from the table stream",
            timeout_seconds=settlement.SETTLEMENT_TIMEOUT_SECONDS,
        )
        mapping = settlement.settle_from_stream(self, self.settlement_function, self.table)
        self.failure_queue = settlement.failure_queue(self)
        settlement.send_failures_to(mapping, self.failure_queue, self.settlement_function)
        self.sweeper = self._job(
            "SweepPending",
            settlement.SWEEPER_HANDLER,
            SWEEPER_ACCESS,
            "Settles every ledger balance whose unsettled values are older than a minute",
            timeout_seconds=settlement.SWEEPER_TIMEOUT_SECONDS,
        )
        self.sweep_schedule = settlement.sweep_schedule(self, self.sweeper)
        # The audit is granted exactly the items and locks of the entities it will audit: the same modules.
        entities = entities_in(entity_modules)
        if not entities:
            raise ValueError("entity_modules: name the modules of `code` that declare the entities to audit")
        self.audit_function = self._job(
            "AuditLocks",
            AUDIT_HANDLER,
            audit_access(entities),
            "Daily uniqueness-lock audit (reports and repairs broken locks)",
            timeout_seconds=AUDIT_TIMEOUT_SECONDS,
            environment={ENTITY_MODULES_VARIABLE: ",".join(entity_modules)},
        )
        self.audit = LockAuditRun(
            self,
            "LockAudit",
            worker=self.audit_function,
            segments=audit_segments,
            hour=audit_hour,
            time_zone=audit_time_zone,
            log_retention=log_retention,
        )
        self.alarms = self._alarms(alarm_topic)

    def _job(
        self,
        construct_id: str,
        handler: str,
        access: Mapping[str, tuple[str, ...]],
        description: str,
        *,
        timeout_seconds: int,
        environment: Mapping[str, str] | None = None,
    ) -> lambda_.Function:
        return guarded_function(
            self,
            construct_id,
            handler=handler,
            code=self.code,
            layers=self.layers,
            table_arn=self.table.table_arn,
            access=access,
            environment={**self.environment, **(environment or {})},
            description=description,
            memory_mb=JOB_MEMORY_MB,
            timeout_seconds=timeout_seconds,
            log_retention=self.log_retention,
        )

    def add_function(
        self,
        scope: Construct,
        construct_id: str,
        *,
        handler: str,
        entities: Iterable[Entity],
        methods: Iterable[str] = CRUD_METHODS,
        code: lambda_.Code | None = None,
        memory_mb: int = FUNCTION_MEMORY_MB,
        timeout_seconds: int = FUNCTION_TIMEOUT_SECONDS,
    ) -> lambda_.Function:
        """A team's handler function: its own role with exactly what `methods` of `entities` need (keyed or not),
        the layers, the table's environment, active tracing."""
        return guarded_function(
            scope,
            construct_id,
            handler=handler,
            code=code or self.code,
            layers=self.layers,
            table_arn=self.table.table_arn,
            access=entity_access(entities, methods),
            environment=self.environment,
            description=f"{construct_id}: least-privilege access to the guarded table",
            memory_mb=memory_mb,
            timeout_seconds=timeout_seconds,
            log_retention=self.log_retention,
        )

    def grant_entity(self, function: lambda_.IFunction, entity: Entity, methods: Iterable[str] = CRUD_METHODS) -> None:
        """Give a function of the team's own making exactly what `methods` of `entity` need on this table."""
        grant_entity_access(function, self.table, entity, methods)

    # --- alarms ---------------------------------------------------------------------------------------------------

    def _metric(self, name: str, period: Duration) -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace=self.namespace,
            metric_name=name,
            dimensions_map={"service": SERVICE},
            statistic="Maximum",
            period=period,
        )

    def _alarms(self, topic: sns.ITopic | None) -> list[cloudwatch.Alarm]:
        """Falling behind, the jobs' errors, the audit's coverage and an unrepaired lock; missing data as the
        product's alarms treat it (a silent sweeper or audit alarms)."""
        every_sweep = settlement.SWEEP_EVERY
        missing = cloudwatch.TreatMissingData
        watched: dict[str, tuple[cloudwatch.IMetric, float, int, int, cloudwatch.TreatMissingData, str]] = {
            "IteratorAge": (
                self.settlement_function.metric("IteratorAge", statistic="Maximum", period=Duration.minutes(1)),
                settlement.ITERATOR_AGE_MS,
                3,
                3,
                missing.IGNORE,
                "The settlement reads the table stream minutes behind its newest record.",
            ),
            "FailureQueue": (
                self.failure_queue.metric_approximate_number_of_messages_visible(statistic="Maximum"),
                0,
                1,
                1,
                missing.IGNORE,
                "Stream batches the settlement gave up on wait to be re-driven.",
            ),
            "OldestUnsettled": (
                self._metric(settlement.OLDEST_UNSETTLED_METRIC, every_sweep),
                settlement.OLDEST_UNSETTLED_S,
                settlement.OLDEST_UNSETTLED_EVALUATION_PERIODS,
                settlement.OLDEST_UNSETTLED_DATAPOINTS,
                missing.BREACHING,
                "A ledger has held unsettled movements for minutes (or the sweeper is not running).",
            ),
            "LockAuditUncovered": (
                self.audit.coverage_metric(self.namespace, SERVICE),
                0,
                1,
                1,
                missing.BREACHING,
                "Last night's lock audit did not cover the whole table (or did not run).",
            ),
            "LockAuditUnrepaired": (
                self._metric(LOCK_AUDIT_UNREPAIRED, COVERAGE_PERIOD),
                0,
                1,
                1,
                missing.NOT_BREACHING,
                "The lock audit left a broken uniqueness lock unrepaired (see its log).",
            ),
        }
        jobs = {
            "SettleEntries": self.settlement_function,
            "SweepPending": self.sweeper,
            "AuditLocks": self.audit_function,
        }
        for name, job in jobs.items():
            watched[f"{name}Errors"] = (
                job.metric_errors(period=Duration.minutes(5), statistic="Sum"),
                0,
                3,
                2,
                missing.NOT_BREACHING,
                f"The {name} job's invocations fail.",
            )
        alarms = []
        for name, (metric, threshold, periods, datapoints, treat_missing, description) in watched.items():
            alarm = cloudwatch.Alarm(
                self,
                f"{name}Alarm",
                metric=metric,
                threshold=threshold,
                evaluation_periods=periods,
                datapoints_to_alarm=datapoints,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                treat_missing_data=treat_missing,
                alarm_description=description,
            )
            if topic is not None:
                alarm.add_alarm_action(actions.SnsAction(topic))
                alarm.add_ok_action(actions.SnsAction(topic))
            alarms.append(alarm)
        return alarms
