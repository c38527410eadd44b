"""Dashboard and alarms on `cdk-monitoring-constructs` (MonitoringFacade): API per route, every function, the
table and the service's own integrity metrics. Thresholds, N-of-M evaluation and subscribers come from CDK context
(infra/settings.py, documented in docs/infra.md).

Hand-written, because the library does not create them: the KMS-encrypted, TLS-only alarm topic and its
subscriptions, and the table metrics it has no helper for (conditional check failures, transaction conflicts),
which go through its generic `monitor_custom`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cdk_monitoring_constructs as mc
from aws_cdk import Aws, Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from infra import constants, settings
from routes import Route

# Alarm disambiguators (the library's severity labels): Critical pages, Warning is worth a look.
CRITICAL = "Critical"
WARNING = "Warning"

# Business metrics on the dashboard; the ones below also alarm. The rest (409/412/replays) are clients meeting the
# guards as designed: worth watching for trends, never a reason to page.
INTEGRITY_GRAPHS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Uniqueness conflicts and version conflicts", ("UniqueViolation", "VersionConflict")),
    ("Refusals (insufficient funds, busy)", ("InsufficientFunds", "Busy")),
    ("Idempotent replays and transient retries", ("IdempotentReplay", "TransactionRetry")),
    ("Lock audit findings", ("LockAuditFinding", "LockAuditUnrepaired")),
)
LOCK_AUDIT_METRICS = ("LockAuditFinding", "LockAuditUnrepaired")
LOCK_AUDIT_PERIOD = Duration.hours(1)


def custom_metric(name: str, period: Duration) -> cloudwatch.Metric:
    """A metric the handlers emit through Powertools (EMF): namespace `ddbguard`, dimension `service=ddbguard`."""
    return cloudwatch.Metric(
        namespace=constants.METRICS_NAMESPACE,
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
        routes: Sequence[Route],
        functions: Sequence[lambda_.Function],
        audit_function: lambda_.Function,
        table: dynamodb.Table,
    ) -> None:
        super().__init__(scope, construct_id)
        self.period = Duration.minutes(settings.whole_number(self, settings.ALARM_PERIOD_MINUTES))
        evaluation_periods = settings.whole_number(self, settings.ALARM_EVALUATION_PERIODS)
        datapoints = settings.whole_number(self, settings.ALARM_DATAPOINTS)
        if datapoints > evaluation_periods:
            raise ValueError(
                f"context {settings.ALARM_DATAPOINTS.name}={datapoints} exceeds "
                f"{settings.ALARM_EVALUATION_PERIODS.name}={evaluation_periods}"
            )

        self.topic = self._alarm_topic()
        self._subscribe(self.topic)
        stack_name = Stack.of(self).stack_name
        self.facade = mc.MonitoringFacade(
            self,
            "Facade",
            alarm_factory_defaults=mc.AlarmFactoryDefaults(
                alarm_name_prefix=stack_name,
                actions_enabled=True,
                action=self._alarm_action(),
                # N of M: one stray error never pages, a sustained problem does.
                datapoints_to_alarm=datapoints,
                evaluation_periods=evaluation_periods,
            ),
            metric_factory_defaults=mc.MetricFactoryDefaults(period=self.period),
            dashboard_factory=mc.DefaultDashboardFactory(
                self,
                "Dashboards",
                dashboard_name_prefix=stack_name,
                create_dashboard=True,
                create_summary_dashboard=False,
                create_alarm_dashboard=False,
            ),
        )
        self.facade.add_large_header("ddbguard: API, functions, table, integrity outcomes")
        self._monitor_api(rest_api, routes)
        for function in functions:
            self._monitor_function(function)
        self._monitor_function(audit_function, scheduled=True)
        self._monitor_table(table)
        self._monitor_integrity_metrics()

    @property
    def alarms(self) -> list[cloudwatch.AlarmBase]:
        return [created.alarm for created in self.facade.created_alarms()]

    @property
    def dashboard(self) -> cloudwatch.Dashboard | None:
        return self.facade.created_dashboard()

    # --- what is watched -------------------------------------------------------------------------------------

    def _monitor_api(self, rest_api: apigw.RestApi, routes: Sequence[Route]) -> None:
        # The whole stage first (4xx rate alarms here: per route it mostly measures one client's behaviour), then
        # one section per route (API Gateway's detailed metrics) with its own 5xx rate and p99 latency alarms;
        # p50 is drawn, not alarmed: a slow median shows in p99 first.
        self.facade.monitor_api_gateway(
            api=rest_api,
            api_stage=constants.API_STAGE,
            human_readable_name=f"API {constants.API_NAME} (stage {constants.API_STAGE})",
            alarm_friendly_name="Api",
            latency_types_to_render=[mc.LatencyType.P50, mc.LatencyType.P99],
            add4_xx_error_rate_alarm={
                WARNING: mc.ErrorRateThreshold(max_error_rate=self._percent(settings.API_4XX_RATE_PERCENT))
            },
        )
        p99 = Duration.millis(settings.number(self, settings.API_LATENCY_P99_MS))
        for route in routes:
            self.facade.monitor_api_gateway(
                api=rest_api,
                api_stage=constants.API_STAGE,
                api_method=route.method,
                api_resource=route.path,
                human_readable_name=f"API {route.key}",
                alarm_friendly_name=f"Api{route.construct_id}",
                latency_types_to_render=[mc.LatencyType.P50, mc.LatencyType.P99],
                add5_xx_fault_rate_alarm={
                    CRITICAL: mc.ErrorRateThreshold(max_error_rate=self._percent(settings.API_5XX_RATE_PERCENT))
                },
                add_latency_p99_alarm={WARNING: mc.LatencyThreshold(max_latency=p99)},
            )

    def _monitor_function(self, function: lambda_.Function, *, scheduled: bool = False) -> None:
        name = function.node.id.removesuffix("Function")
        timeout = function.timeout or Duration.seconds(constants.FUNCTION_TIMEOUT_SECONDS)
        duration_limit = timeout.to_milliseconds() * settings.number(self, settings.FUNCTION_DURATION_P99_PERCENT) / 100
        # A scheduled function runs once a day: one datapoint is all there is, so 1 of 1 instead of N of M.
        once: dict[str, Any] = {"datapoints_to_alarm": 1, "evaluation_periods": 1} if scheduled else {}
        self.facade.monitor_lambda_function(
            lambda_function=function,
            human_readable_name=f"Function {name}",
            alarm_friendly_name=name,
            latency_types_to_render=[mc.LatencyType.P50, mc.LatencyType.P99],
            add_fault_count_alarm={
                CRITICAL: mc.ErrorCountThreshold(
                    max_error_count=settings.number(self, settings.FUNCTION_ERRORS), **once
                )
            },
            add_throttles_count_alarm={
                CRITICAL: mc.ErrorCountThreshold(
                    max_error_count=settings.number(self, settings.FUNCTION_THROTTLES), **once
                )
            },
            add_latency_p99_alarm={WARNING: mc.LatencyThreshold(max_latency=Duration.millis(duration_limit), **once)},
            add_concurrent_executions_count_alarm={
                WARNING: mc.RunningTaskCountThreshold(
                    max_running_tasks=settings.number(self, settings.FUNCTION_CONCURRENCY),
                    treat_missing_data_override=cloudwatch.TreatMissingData.NOT_BREACHING,
                    **once,
                )
            },
        )

    def _monitor_table(self, table: dynamodb.Table) -> None:
        throttles = settings.number(self, settings.TABLE_THROTTLES)
        self.facade.monitor_dynamo_table(
            table=table,
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            human_readable_name="Table",
            alarm_friendly_name="Table",
            add_read_throttled_events_count_alarm={
                CRITICAL: mc.ThrottledEventsThreshold(max_throttled_events_threshold=throttles)
            },
            add_write_throttled_events_count_alarm={
                CRITICAL: mc.ThrottledEventsThreshold(max_throttled_events_threshold=throttles)
            },
            add_system_error_count_alarm={
                CRITICAL: mc.ErrorCountThreshold(max_error_count=settings.number(self, settings.TABLE_SYSTEM_ERRORS))
            },
        )
        # The library's table section has no helper for these two; its generic custom section draws them.
        # Neither alarms: a conditional check failure is a guard refusing a write (409/412 by design), and
        # transaction conflicts are retried; when the retries run out, the Busy alarm fires.
        self.facade.monitor_custom(
            human_readable_name="Table guards",
            alarm_friendly_name="TableGuards",
            metric_groups=[
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
                )
            ],
        )

    def _monitor_integrity_metrics(self) -> None:
        alarmed = {
            "Busy": self._above(settings.number(self, settings.BUSY_COUNT), CRITICAL, "Clients got 503 busy."),
            "TransactionRetry": self._above(
                settings.number(self, settings.TRANSACTION_RETRY_COUNT),
                WARNING,
                "Sustained transient-error retries (transaction conflicts or throttling).",
            ),
        }
        for name in LOCK_AUDIT_METRICS:
            # A broken lock is a data-integrity incident: the first finding alarms (1 of 1 datapoints). The audit
            # reports once a day, so one datapoint spans an hour: the alarm stays visible, then clears by itself.
            alarmed[name] = {
                CRITICAL: mc.CustomThreshold(
                    threshold=0,
                    comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                    datapoints_to_alarm=1,
                    evaluation_periods=1,
                    period=LOCK_AUDIT_PERIOD,
                    treat_missing_data_override=cloudwatch.TreatMissingData.NOT_BREACHING,
                    additional_description="The lock audit found a broken uniqueness lock (see its log).",
                )
            }
        groups = []
        for title, names in INTEGRITY_GRAPHS:
            metrics: list[cloudwatch.Metric | mc.CustomMetricWithAlarm] = []
            for name in names:
                metric = custom_metric(name, self.period)
                if name in alarmed:
                    metrics.append(
                        mc.CustomMetricWithAlarm(metric=metric, alarm_friendly_name=name, add_alarm=alarmed[name])
                    )
                else:
                    metrics.append(metric)
            groups.append(mc.CustomMetricGroup(title=title, metrics=metrics))
        self.facade.monitor_custom(
            human_readable_name=f"Integrity outcomes (namespace {constants.METRICS_NAMESPACE})",
            alarm_friendly_name="Integrity",
            metric_groups=groups,
        )

    # --- thresholds -----------------------------------------------------------------------------------------

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
        own = mc.SnsAlarmActionStrategy(on_alarm_topic=self.topic, on_ok_topic=self.topic)
        existing_arn = settings.text(self, settings.ALARM_TOPIC_ARN)
        if not existing_arn:
            return own
        existing = sns.Topic.from_topic_arn(self, "ExistingAlarmTopic", existing_arn)
        return mc.MultipleAlarmActionStrategy([own, mc.SnsAlarmActionStrategy(on_alarm_topic=existing)])

    def _subscribe(self, topic: sns.Topic) -> None:
        for address in settings.text_list(self, settings.ALARM_EMAILS):
            if "@" not in address:
                raise ValueError(f"context {settings.ALARM_EMAILS.name}: {address!r} is not an email address")
            topic.add_subscription(subscriptions.EmailSubscription(address))
        webhook = settings.text(self, settings.ALARM_WEBHOOK_URL)
        if webhook:
            if not webhook.startswith("https://"):
                raise ValueError(f"context {settings.ALARM_WEBHOOK_URL.name}: an https:// URL is required")
            topic.add_subscription(subscriptions.UrlSubscription(webhook, protocol=sns.SubscriptionProtocol.HTTPS))

    def _alarm_topic(self) -> sns.Topic:
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
        topic = sns.Topic(
            self,
            "AlarmTopic",
            display_name="ddbguard alarms",
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
