"""Dashboard and alarms on `cdk-monitoring-constructs` (MonitoringFacade): API per route, every function, the
table and the service's own integrity metrics. The parent stack's facade watches the stage, the background functions,
the table and the integrity metrics; each route group's nested stack has a facade of its own (`monitor_routes`), with
the same alarm defaults and topics, for its routes and their functions, and in the full profile its own dashboard.
Thresholds, N-of-M evaluation, subscribers and the profile (full or lean) come from CDK context (infra/settings.py,
documented in docs/infra.md).

Hand-written, because the library does not create them or gets them wrong: the two KMS-encrypted, TLS-only topics
(Critical pages, Warning does not) and their subscriptions; the table's system-error alarm (every operation the
code calls, each term FILLed); the API's client-error rate, counted from the access log by metric filters (API
Gateway has no per-status metric); the table metrics the library has no helper for (conditional check failures,
transaction conflicts), which go through its generic `monitor_custom`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import cdk_monitoring_constructs as mc
import jsii
from aws_cdk import Aws, Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from infra import constants, naming, settings
from routes import Route

# Alarm disambiguators (the library's severity labels): Critical pages, Warning is worth a look. Each has its own
# topic; only Critical reaches the webhook and `alarmTopicArn` (the on-call).
CRITICAL = "Critical"
WARNING = "Warning"
FULL, LEAN = "full", "lean"
# The alarm `make page-test` sets to ALARM (scripts/page_test.py): it watches a metric nothing emits, so it is OK
# until then and returns to OK at its next evaluation, sending the OK notification that closes the page.
PAGE_TEST_GROUP = "Pager"
PAGE_TEST_METRIC = "PageTest"

# Business metrics on the dashboard; the ones below also alarm. The rest (409/412/replays) are clients meeting the
# guards as designed: worth watching for trends, never a reason to page.
INTEGRITY_GRAPHS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Uniqueness conflicts and version conflicts", ("UniqueViolation", "VersionConflict")),
    ("Refusals (insufficient funds, busy)", ("InsufficientFunds", "Busy")),
    ("Idempotent replays and transient retries", ("IdempotentReplay", "TransactionRetry")),
    ("Lock audit findings", ("LockAuditFinding", "LockAuditUnrepaired")),
)
# A finding the audit repaired is fixed: only what it left unrepaired (two claimants: a person decides) pages.
LOCK_AUDIT_ALARMED = "LockAuditUnrepaired"
LOCK_AUDIT_PERIOD = Duration.hours(1)


@jsii.implements(mc.IAlarmActionStrategy)
class BySeverity:
    """Sends each alarm to the strategy of its disambiguator (Critical or Warning)."""

    def __init__(self, by_severity: dict[str, mc.IAlarmActionStrategy]) -> None:
        self._by_severity = by_severity

    def add_alarm_actions(self, props: mc.AlarmActionStrategyProps) -> None:
        strategy = self._by_severity[props.disambiguator or WARNING]
        strategy.add_alarm_actions(
            alarm=props.alarm,
            action=props.action,
            custom_params=props.custom_params,
            custom_tags=props.custom_tags,
            dedupe_string=props.dedupe_string,
            disambiguator=props.disambiguator,
        )


def access_log_metric(name: str, period: Duration, namespace: str) -> cloudwatch.Metric:
    """A metric a filter on the access log counts (no dimension), in the environment's namespace."""
    return cloudwatch.Metric(namespace=namespace, metric_name=name, statistic="Sum", period=period, label=name)


def status_pattern(statuses: Sequence[int]) -> logs.IFilterPattern:
    """Access-log lines whose `status` (a string in the JSON line) is one of `statuses`."""
    return logs.FilterPattern.any(*(logs.FilterPattern.string_value("$.status", "=", str(code)) for code in statuses))


def custom_metric(name: str, period: Duration, namespace: str) -> cloudwatch.Metric:
    """A metric the handlers emit through Powertools (EMF): the environment's namespace (infra/naming.py),
    dimension `service=ddbguard`."""
    return cloudwatch.Metric(
        namespace=namespace,
        metric_name=name,
        dimensions_map={"service": constants.SERVICE_NAME},
        statistic="Sum",
        period=period,
        label=name,
    )


class Monitoring(Construct):
    """The alarm topic (with its subscribers) and a MonitoringFacade holding the dashboard and every alarm."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        rest_api: apigw.RestApi,
        functions: Sequence[lambda_.Function],
        scheduled_functions: Sequence[lambda_.Function],
        audit_function: lambda_.Function,
        table: dynamodb.Table,
        access_logs: logs.ILogGroup,
        route_concurrency_ceiling: float,
    ) -> None:
        super().__init__(scope, construct_id)
        self.profile = settings.choice(self, settings.MONITORING_PROFILE, (FULL, LEAN))
        self.namespace = naming.metrics_namespace(self)
        # What one route function's concurrency can reach under the stage throttle (rate x timeout + burst): a
        # concurrency alarm above it could never fire.
        self.route_concurrency_ceiling = route_concurrency_ceiling
        self.period = Duration.minutes(settings.whole_number(self, settings.ALARM_PERIOD_MINUTES))
        evaluation_periods = settings.whole_number(self, settings.ALARM_EVALUATION_PERIODS)
        datapoints = settings.whole_number(self, settings.ALARM_DATAPOINTS)
        if datapoints > evaluation_periods:
            raise ValueError(
                f"context {settings.ALARM_DATAPOINTS.name}={datapoints} exceeds "
                f"{settings.ALARM_EVALUATION_PERIODS.name}={evaluation_periods}"
            )

        key = self._topic_key()
        self.topic = self._alarm_topic("AlarmTopic", "ddbguard alarms (Critical: pages)", key)
        self.warning_topic = self._alarm_topic("WarningTopic", "ddbguard warnings (worth a look, never pages)", key)
        self._subscribe(self.topic, pager=True)
        self._subscribe(self.warning_topic, pager=False)
        # Alarm and dashboard names carry the parent stack's name, also in a route group's nested stack.
        self.stack_name = Stack.of(self).stack_name
        self._datapoints, self._evaluation_periods = datapoints, evaluation_periods
        self._action = self._alarm_action()
        self.rest_api = rest_api
        self.facade = self._facade(self, self.stack_name)
        self.facade.add_large_header("ddbguard: API, functions, table, integrity outcomes")
        self._count_statuses(access_logs)
        self._monitor_api(rest_api)
        # The background functions (settlement, sweeper) one by one in both profiles; route functions are watched by
        # their route group (`monitor_routes`), in the full profile only: lean watches the routes stage-wide.
        for function in functions:
            reserved = function.node.default_child.reserved_concurrent_executions  # type: ignore[union-attr]
            self._monitor_function(
                self.facade, function, reserved=reserved, throttles_retried=function in scheduled_functions
            )
        self._monitor_function(
            self.facade,
            audit_function,
            scheduled=True,
            reserved=audit_function.node.default_child.reserved_concurrent_executions,  # type: ignore[union-attr]
        )
        self._monitor_table(table)
        self._monitor_integrity_metrics()

        self._route_facades: list[mc.MonitoringFacade] = []

    def _facade(self, scope: Construct, dashboard_name: str, id_prefix: str = "") -> mc.MonitoringFacade:
        # `id_prefix` keeps a route group's alarm and dashboard ids apart from every other group's (logical ids are
        # unique across the templates, so a flattened view of them all stays unambiguous).
        return mc.MonitoringFacade(
            scope,
            f"{id_prefix}Facade",
            alarm_factory_defaults=mc.AlarmFactoryDefaults(
                alarm_name_prefix=self.stack_name,
                actions_enabled=True,
                action=self._action,
                # N of M: one stray error never pages, a sustained problem does.
                datapoints_to_alarm=self._datapoints,
                evaluation_periods=self._evaluation_periods,
            ),
            metric_factory_defaults=mc.MetricFactoryDefaults(period=self.period),
            dashboard_factory=mc.DefaultDashboardFactory(
                scope,
                f"{id_prefix}Dashboards",
                dashboard_name_prefix=dashboard_name,
                create_dashboard=self.profile == FULL,
                create_summary_dashboard=False,
                create_alarm_dashboard=False,
            ),
        )

    def monitor_routes(self, group: Construct, routes: Sequence[tuple[Route, lambda_.Function]]) -> None:
        """In the full profile, a route group's own facade (in its nested stack): per route, the API's 5xx rate and
        p99 latency; per function, faults, throttles, duration and concurrency; and a dashboard of the group. One
        dashboard holds at most 500 widgets, so the routes' sections could not all share the stack's."""
        if self.profile != FULL:
            return
        facade = self._facade(group, f"{self.stack_name}-{group.node.id}", group.node.id)
        facade.add_large_header(f"ddbguard routes: {group.node.id}")
        self._route_facades.append(facade)
        for route, function in routes:
            self._monitor_route(facade, route)
            self._monitor_function(facade, function, invoked_by_api=True)

    @property
    def alarms(self) -> list[cloudwatch.AlarmBase]:
        facades = [self.facade, *self._route_facades]
        return [created.alarm for facade in facades for created in facade.created_alarms()]

    @property
    def dashboard(self) -> cloudwatch.Dashboard | None:
        return self.facade.created_dashboard()

    # --- what is watched -------------------------------------------------------------------------------------

    def _count_statuses(self, access_logs: logs.ILogGroup) -> None:
        """Metric filters on the access log: every request, client errors, guard refusals."""
        filters = {
            constants.API_REQUESTS_METRIC: logs.FilterPattern.exists("$.requestId"),
            constants.API_CLIENT_ERRORS_METRIC: status_pattern(constants.CLIENT_ERROR_STATUSES),
            constants.API_GUARD_REFUSALS_METRIC: status_pattern(constants.GUARD_REFUSAL_STATUSES),
        }
        for name, pattern in filters.items():
            logs.MetricFilter(
                self,
                f"{name}Filter",
                log_group=access_logs,
                filter_pattern=pattern,
                metric_namespace=self.namespace,
                metric_name=name,
                metric_value="1",
            )

    def _monitor_api(self, rest_api: apigw.RestApi) -> None:
        # The whole stage first (the client-error rate alarms here: per route it mostly measures one client's
        # behaviour), then, in the full profile, one section per route (API Gateway's detailed metrics) with its own
        # 5xx rate and p99 latency alarms; the lean profile alarms on those stage-wide instead. p50 is drawn, not
        # alarmed: a slow median shows in p99 first.
        p99 = Duration.millis(settings.number(self, settings.API_LATENCY_P99_MS))
        stage_alarms: dict[str, Any] = {}
        if self.profile == LEAN:
            stage_alarms = {
                "add5_xx_fault_rate_alarm": {CRITICAL: self._fault_rate()},
                "add_latency_p99_alarm": {WARNING: mc.LatencyThreshold(max_latency=p99)},
            }
        self.facade.monitor_api_gateway(
            api=rest_api,
            api_stage=constants.API_STAGE,
            human_readable_name=f"API {naming.api_name(self)} (stage {constants.API_STAGE})",
            alarm_friendly_name="Api",
            latency_types_to_render=[mc.LatencyType.P50, mc.LatencyType.P99],
            **stage_alarms,
        )
        self._monitor_client_errors()

    def _monitor_route(self, facade: mc.MonitoringFacade, route: Route) -> None:
        p99 = Duration.millis(settings.number(self, settings.API_LATENCY_P99_MS))
        facade.monitor_api_gateway(
            api=self.rest_api,
            api_stage=constants.API_STAGE,
            api_method=route.method,
            api_resource=route.path,
            human_readable_name=f"API {route.key}",
            alarm_friendly_name=f"Api{route.construct_id}",
            latency_types_to_render=[mc.LatencyType.P50, mc.LatencyType.P99],
            add5_xx_fault_rate_alarm={CRITICAL: self._fault_rate()},
            add_latency_p99_alarm={WARNING: mc.LatencyThreshold(max_latency=p99)},
        )

    def _monitor_client_errors(self) -> None:
        """Client-error rate (401/403/404/422/429 of all requests) alarms; guard refusals (409/412) are drawn only."""
        requests = access_log_metric(constants.API_REQUESTS_METRIC, self.period, self.namespace)
        client_errors = access_log_metric(constants.API_CLIENT_ERRORS_METRIC, self.period, self.namespace)
        rate = cloudwatch.MathExpression(
            expression="FILL(errors, 0) / FILL(requests, 1)",
            using_metrics={"errors": client_errors, "requests": requests},
            period=self.period,
            label="Client-error rate (401/403/404/422/429)",
        )
        self.facade.monitor_custom(
            human_readable_name="API status classes (from the access log)",
            alarm_friendly_name="ApiStatus",
            metric_groups=[
                mc.CustomMetricGroup(
                    title="Client errors (a broken client or an attack)",
                    metrics=[
                        mc.CustomMetricWithAlarm(
                            metric=rate,
                            alarm_friendly_name="ClientErrorRate",
                            add_alarm=self._above(
                                self._percent(settings.API_4XX_RATE_PERCENT),
                                WARNING,
                                "Many requests answered 401/403/404/422/429: a broken client or an attack.",
                            ),
                        )
                    ],
                ),
                mc.CustomMetricGroup(
                    title="Guard refusals (409 conflicts, 412 stale versions): the guards doing their job",
                    metrics=[
                        access_log_metric(constants.API_GUARD_REFUSALS_METRIC, self.period, self.namespace),
                        requests,
                    ],
                ),
            ],
        )

    def _monitor_function(
        self,
        facade: mc.MonitoringFacade,
        function: lambda_.Function,
        *,
        scheduled: bool = False,
        reserved: object = None,
        invoked_by_api: bool = False,
        throttles_retried: bool = False,
    ) -> None:
        name = function.node.id.removesuffix("Function")
        timeout = function.timeout or Duration.seconds(constants.FUNCTION_TIMEOUT_SECONDS)
        duration_limit = timeout.to_milliseconds() * settings.number(self, settings.FUNCTION_DURATION_P99_PERCENT) / 100
        # A scheduled function runs once a day: one datapoint is all there is, so 1 of 1 instead of N of M.
        once: dict[str, Any] = {"datapoints_to_alarm": 1, "evaluation_periods": 1} if scheduled else {}
        # A function with reserved concurrency cannot exceed it: running out shows as throttles, which alarm. A
        # route function gets a concurrency warning below what the stage throttle lets it reach; background
        # functions are bounded by their source (stream shards, a schedule), so a concurrency alarm says nothing.
        concurrency: dict[str, Any] = {}
        if invoked_by_api and not reserved:
            limit = settings.number(self, settings.FUNCTION_CONCURRENCY)
            if limit >= self.route_concurrency_ceiling:
                raise ValueError(
                    f"context {settings.FUNCTION_CONCURRENCY.name}={limit:g} cannot be reached: the stage throttle "
                    f"holds one route function below {self.route_concurrency_ceiling:g} concurrent executions"
                )
            concurrency["add_concurrent_executions_count_alarm"] = {
                WARNING: mc.RunningTaskCountThreshold(
                    max_running_tasks=limit,
                    treat_missing_data_override=cloudwatch.TreatMissingData.NOT_BREACHING,
                    **once,
                )
            }
        # A batch job's faults and throttles are retried by its own run and its coverage alarms on what stays
        # missed: a Warning. What it finds that needs a person alarms on its own (LockAuditUnrepaired).
        severity = WARNING if scheduled else CRITICAL
        facade.monitor_lambda_function(
            lambda_function=function,
            human_readable_name=f"Function {name}",
            alarm_friendly_name=name,
            latency_types_to_render=[mc.LatencyType.P50, mc.LatencyType.P99],
            add_fault_count_alarm={
                severity: mc.ErrorCountThreshold(
                    max_error_count=settings.number(self, settings.FUNCTION_ERRORS), **once
                )
            },
            add_throttles_count_alarm={
                # A scheduled invocation that is throttled is retried by Lambda (for hours), and its lag has an alarm
                # of its own: a Warning, never a page.
                (WARNING if throttles_retried else severity): mc.ErrorCountThreshold(
                    max_error_count=settings.number(self, settings.FUNCTION_THROTTLES), **once
                )
            },
            add_latency_p99_alarm={WARNING: mc.LatencyThreshold(max_latency=Duration.millis(duration_limit), **once)},
            **concurrency,
        )

    def _monitor_table(self, table: dynamodb.Table) -> None:
        # A Warning: the service retries a throttled request and one caller's hot key throttles only that caller;
        # what clients feel of it is 503 busy, whose rate pages (Integrity-BusyRate) when it reaches many requests.
        throttles = settings.number(self, settings.TABLE_THROTTLES)
        self.facade.monitor_dynamo_table(
            table=table,
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            human_readable_name="Table",
            alarm_friendly_name="Table",
            add_read_throttled_events_count_alarm={
                WARNING: mc.ThrottledEventsThreshold(max_throttled_events_threshold=throttles)
            },
            add_write_throttled_events_count_alarm={
                WARNING: mc.ThrottledEventsThreshold(max_throttled_events_threshold=throttles)
            },
        )
        # The library's system-error alarm sums nine operations without FILL and leaves out TransactWriteItems; a
        # DynamoDB metric without data keeps the alarm's state, so a sum over missing terms may never fire.
        terms = {
            f"e{index}": table.metric(
                "SystemErrors",
                dimensions_map={"TableName": table.table_name, "Operation": operation},
                statistic="Sum",
                period=self.period,
                label=operation,
            )
            for index, operation in enumerate(constants.TABLE_OPERATIONS)
        }
        system_errors = cloudwatch.MathExpression(
            expression=" + ".join(f"FILL({name}, 0)" for name in terms),
            using_metrics=terms,
            period=self.period,
            label="System errors, every operation",
        )
        # The library's table section has no helper for these two; its generic custom section draws them.
        # Neither alarms: a conditional check failure is a guard refusing a write (409/412 by design), and
        # transaction conflicts are retried; when the retries run out, the Busy alarm fires.
        self.facade.monitor_custom(
            human_readable_name="Table guards",
            alarm_friendly_name="TableGuards",
            metric_groups=[
                mc.CustomMetricGroup(
                    title="System errors (every operation the service calls)",
                    metrics=[
                        mc.CustomMetricWithAlarm(
                            metric=system_errors,
                            alarm_friendly_name="TableSystemErrors",
                            add_alarm=self._above(
                                settings.number(self, settings.TABLE_SYSTEM_ERRORS),
                                CRITICAL,
                                "DynamoDB answered with internal server errors (HTTP 500).",
                            ),
                        )
                    ],
                ),
                mc.CustomMetricGroup(
                    title="Conditional check failures and transaction conflicts",
                    metrics=[
                        table.metric(
                            "ConditionalCheckFailedRequests", statistic="Sum", period=self.period, label="CCF"
                        ),
                        table.metric(
                            "TransactionConflict", statistic="Sum", period=self.period, label="TransactionConflict"
                        ),
                    ],
                ),
            ],
        )

    def _monitor_integrity_metrics(self) -> None:
        alarmed = {
            "TransactionRetry": self._above(
                settings.number(self, settings.TRANSACTION_RETRY_COUNT),
                WARNING,
                "Sustained transient-error retries (transaction conflicts or throttling).",
            ),
        }
        # A broken lock left unrepaired is a data-integrity incident: the first one alarms (1 of 1 datapoints).
        # The audit reports once a day, so one datapoint spans an hour: the alarm stays visible, then clears.
        alarmed[LOCK_AUDIT_ALARMED] = {
            CRITICAL: mc.CustomThreshold(
                threshold=0,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                datapoints_to_alarm=1,
                evaluation_periods=1,
                period=LOCK_AUDIT_PERIOD,
                treat_missing_data_override=cloudwatch.TreatMissingData.NOT_BREACHING,
                additional_description="The lock audit left a broken uniqueness lock unrepaired (see its log).",
            )
        }
        groups = []
        for title, names in INTEGRITY_GRAPHS:
            metrics: list[cloudwatch.Metric | mc.CustomMetricWithAlarm] = []
            for name in names:
                metric = custom_metric(name, self.period, self.namespace)
                if name in alarmed:
                    metrics.append(
                        mc.CustomMetricWithAlarm(metric=metric, alarm_friendly_name=name, add_alarm=alarmed[name])
                    )
                else:
                    metrics.append(metric)
            groups.append(mc.CustomMetricGroup(title=title, metrics=metrics))
        groups.append(mc.CustomMetricGroup(title="Share of requests answered 503 busy", metrics=[self._busy_rate()]))
        self.facade.monitor_custom(
            human_readable_name=f"Integrity outcomes (namespace {self.namespace})",
            alarm_friendly_name="Integrity",
            metric_groups=groups,
        )

    def _busy_rate(self) -> mc.CustomMetricWithAlarm:
        """503 busy as a share of the stage's requests, judged only in minutes with `alarmMinimumRequests` or more:
        one caller racing its own ledger produces a few, which its retries absorb; many requests answered busy is a
        table or a release in trouble, which a person must look at (N of M, like every other datapoint)."""
        floor = settings.number(self, settings.ALARM_MINIMUM_REQUESTS)
        rate = cloudwatch.MathExpression(
            expression=f"IF(FILL(requests, 0) >= {floor:g}, FILL(busy, 0) / requests, 0)",
            using_metrics={
                "busy": custom_metric("Busy", self.period, self.namespace),
                "requests": access_log_metric(constants.API_REQUESTS_METRIC, self.period, self.namespace),
            },
            period=self.period,
            label="Share answered 503 busy",
        )
        return mc.CustomMetricWithAlarm(
            metric=rate,
            alarm_friendly_name="BusyRate",
            add_alarm=self._above(
                self._percent(settings.BUSY_RATE_PERCENT),
                CRITICAL,
                "Many requests answered 503 busy: DynamoDB keeps conflicting or throttling beyond the retries.",
            ),
        )

    def add_page_test(self) -> cloudwatch.AlarmBase:
        """The Critical alarm `make page-test` fires: its metric is never emitted (missing data: OK), so it pages
        only when set to ALARM by hand, through exactly the actions every Critical alarm has."""
        self.facade.monitor_custom(
            human_readable_name="Pager test (make page-test)",
            alarm_friendly_name=PAGE_TEST_GROUP,
            metric_groups=[
                mc.CustomMetricGroup(
                    title="Never emitted: the alarm is set to ALARM by make page-test",
                    metrics=[
                        mc.CustomMetricWithAlarm(
                            metric=custom_metric(PAGE_TEST_METRIC, self.period, self.namespace),
                            alarm_friendly_name="Test",
                            add_alarm=self._above(
                                0, CRITICAL, "A test page sent by make page-test: nothing to do but confirm it."
                            ),
                        )
                    ],
                )
            ],
        )
        (alarm,) = [
            created.alarm for created in self.facade.created_alarms() if created.alarm_name.endswith("-Test-Critical")
        ]
        return alarm

    # --- thresholds -----------------------------------------------------------------------------------------

    def _fault_rate(self) -> mc.ErrorRateThreshold:
        """5xx rate above the configured share, judged only in minutes with enough requests: a few designed 503s in
        a quiet minute are not a rate."""
        return mc.ErrorRateThreshold(
            max_error_rate=self._percent(settings.API_5XX_RATE_PERCENT),
            min_sample_count_to_evaluate_datapoint=settings.whole_number(self, settings.ALARM_MINIMUM_REQUESTS),
        )

    def _percent(self, key: settings.ContextKey) -> float:
        # The library computes API and function rates as a fraction of requests (Average of a 0/1 metric).
        return settings.number(self, key) / 100

    @staticmethod
    def _above(threshold: float, severity: str, description: str) -> dict[str, mc.CustomThreshold]:
        return {
            severity: mc.CustomThreshold(
                threshold=threshold,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                # No traffic is not an incident.
                treat_missing_data_override=cloudwatch.TreatMissingData.NOT_BREACHING,
                additional_description=description,
            )
        }

    # --- where alarms go ------------------------------------------------------------------------------------

    def _alarm_action(self) -> mc.IAlarmActionStrategy:
        critical: mc.IAlarmActionStrategy = mc.SnsAlarmActionStrategy(on_alarm_topic=self.topic, on_ok_topic=self.topic)
        existing_arn = settings.text(self, settings.ALARM_TOPIC_ARN)
        if existing_arn:
            existing = sns.Topic.from_topic_arn(self, "ExistingAlarmTopic", existing_arn)
            # ALARM and OK both: an on-call tool closes the incident it opened when the alarm clears.
            critical = mc.MultipleAlarmActionStrategy(
                [critical, mc.SnsAlarmActionStrategy(on_alarm_topic=existing, on_ok_topic=existing)]
            )
        warning = mc.SnsAlarmActionStrategy(on_alarm_topic=self.warning_topic, on_ok_topic=self.warning_topic)
        # jsii.implements makes BySeverity an IAlarmActionStrategy at run time; mypy cannot see it.
        return cast(mc.IAlarmActionStrategy, BySeverity({CRITICAL: critical, WARNING: warning}))

    def _subscribe(self, topic: sns.Topic, *, pager: bool) -> None:
        """Emails get both topics (an inbox, not a pager); the webhook, a pager, gets Critical only."""
        for address in settings.text_list(self, settings.ALARM_EMAILS):
            if "@" not in address:
                raise ValueError(f"context {settings.ALARM_EMAILS.name}: {address!r} is not an email address")
            topic.add_subscription(subscriptions.EmailSubscription(address))
        webhook = settings.text(self, settings.ALARM_WEBHOOK_URL)
        if webhook and pager:
            if not webhook.startswith("https://"):
                raise ValueError(f"context {settings.ALARM_WEBHOOK_URL.name}: an https:// URL is required")
            topic.add_subscription(subscriptions.UrlSubscription(webhook, protocol=sns.SubscriptionProtocol.HTTPS))

    def _topic_key(self) -> kms.Key:
        # A customer-managed key, because CloudWatch must be allowed to use it and the AWS-managed SNS key's
        # policy cannot grant that.
        key = kms.Key(
            self,
            "AlarmTopicKey",
            description="Encrypts ddbguard alarm notifications",
            enable_key_rotation=True,
            # The key only protects transient notifications; nothing outlives the stack that needs it.
            removal_policy=RemovalPolicy.DESTROY,
            pending_window=Duration.days(7),
        )
        cloudwatch_principal = iam.ServicePrincipal("cloudwatch.amazonaws.com")
        same_account = {"StringEquals": {"aws:SourceAccount": Aws.ACCOUNT_ID}}
        key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowCloudWatchAlarmsToEncrypt",
                principals=[cloudwatch_principal],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                # In a key policy "*" means this key.
                resources=["*"],
                conditions=same_account,
            )
        )
        return key

    def _alarm_topic(self, construct_id: str, display_name: str, key: kms.Key) -> sns.Topic:
        cloudwatch_principal = iam.ServicePrincipal("cloudwatch.amazonaws.com")
        same_account = {"StringEquals": {"aws:SourceAccount": Aws.ACCOUNT_ID}}
        topic = sns.Topic(
            self,
            construct_id,
            display_name=display_name,
            master_key=key,
            enforce_ssl=True,
        )
        # enforce_ssl gives the topic an explicit policy, which replaces the default one CloudWatch relied on.
        topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowCloudWatchAlarms",
                principals=[cloudwatch_principal],
                actions=["sns:Publish"],
                resources=[topic.topic_arn],
                conditions=same_account,
            )
        )
        return topic
