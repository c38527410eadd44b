"""Dashboard and alarms: the API's edge, every function, the table, and the service's own integrity metrics."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Aws, Duration, RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from constructs import Construct

from infra import constants

PERIOD = Duration.minutes(1)
# Operations the handlers and the audit use; at most 10 metrics fit in one metric-math alarm.
TABLE_OPERATIONS = (
    dynamodb.Operation.GET_ITEM,
    dynamodb.Operation.QUERY,
    dynamodb.Operation.SCAN,
    dynamodb.Operation.BATCH_GET_ITEM,
    dynamodb.Operation.PUT_ITEM,
    dynamodb.Operation.UPDATE_ITEM,
    dynamodb.Operation.DELETE_ITEM,
    dynamodb.Operation.TRANSACT_WRITE_ITEMS,
    dynamodb.Operation.TRANSACT_GET_ITEMS,
)


def custom_metric(name: str, statistic: str = "Sum") -> cloudwatch.Metric:
    """A metric the handlers emit through Powertools: namespace `ddbguard`, dimension `service=ddbguard`."""
    return cloudwatch.Metric(
        namespace=constants.METRICS_NAMESPACE,
        metric_name=name,
        dimensions_map={"service": constants.SERVICE_NAME},
        statistic=statistic,
        period=PERIOD,
    )


class Monitoring(Construct):
    """A dashboard, an encrypted SNS topic and the alarms that publish to it."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        rest_api: apigw.RestApi,
        functions: Sequence[lambda_.Function],
        table: dynamodb.Table,
    ) -> None:
        super().__init__(scope, construct_id)
        self.topic = self._alarm_topic()
        self.alarms: list[cloudwatch.Alarm] = []
        action = cw_actions.SnsAction(self.topic)

        api_5xx = rest_api.metric_server_error(period=PERIOD, statistic="Sum")
        table_throttles = table.metric_throttled_requests_for_operations(
            operations=list(TABLE_OPERATIONS), period=PERIOD
        )
        table_errors = table.metric_system_errors_for_operations(operations=list(TABLE_OPERATIONS), period=PERIOD)

        self._alarm("Api5xx", api_5xx, "The API answered 5xx (handler crash, timeout or integration failure).", action)
        for function in functions:
            name = function.node.id.removesuffix("Function")
            self._alarm(
                f"{name}Errors",
                function.metric_errors(period=PERIOD, statistic="Sum"),
                f"{name}: the function raised or timed out.",
                action,
            )
        self._alarm("TableThrottles", table_throttles, "DynamoDB throttled requests on the table.", action)
        self._alarm("TableSystemErrors", table_errors, "DynamoDB returned internal server errors.", action)
        self._alarm(
            "Busy",
            custom_metric(constants.BUSY_METRIC),
            "Clients were answered 503 busy: DynamoDB kept conflicting or throttling after bounded retries.",
            action,
        )
        self._alarm(
            "LockAuditUnrepaired",
            custom_metric(constants.LOCK_AUDIT_UNREPAIRED_METRIC),
            "The lock audit found uniqueness locks it must not repair alone (two accounts claim one value).",
            action,
        )

        self.dashboard = cloudwatch.Dashboard(self, "Dashboard", period_override=cloudwatch.PeriodOverride.AUTO)
        self.dashboard.add_widgets(
            cloudwatch.TextWidget(markdown="# ddbguard\nAPI edge, functions, table and integrity metrics.", width=24),
        )
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="API 4xx / 5xx",
                left=[
                    rest_api.metric_client_error(period=PERIOD, statistic="Sum"),
                    rest_api.metric_server_error(period=PERIOD, statistic="Sum"),
                ],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="API latency (p50 / p99)",
                left=[
                    rest_api.metric_latency(period=PERIOD, statistic="p50"),
                    rest_api.metric_latency(period=PERIOD, statistic="p99"),
                ],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="API requests",
                left=[rest_api.metric_count(period=PERIOD, statistic="Sum")],
                width=8,
            ),
        )
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Function errors",
                left=[fn.metric_errors(period=PERIOD, statistic="Sum", label=fn.node.id) for fn in functions],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Function throttles",
                left=[fn.metric_throttles(period=PERIOD, statistic="Sum", label=fn.node.id) for fn in functions],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Function duration (p99)",
                left=[fn.metric_duration(period=PERIOD, statistic="p99", label=fn.node.id) for fn in functions],
                width=8,
            ),
        )
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Table consumed capacity",
                left=[
                    table.metric_consumed_read_capacity_units(period=PERIOD, statistic="Sum"),
                    table.metric_consumed_write_capacity_units(period=PERIOD, statistic="Sum"),
                ],
                width=6,
            ),
            # Throttles and system errors are sums over the same per-operation metrics, so each needs its own
            # graph: one graph cannot hold two expressions whose inner metric ids collide.
            cloudwatch.GraphWidget(title="Table throttled requests", left=[table_throttles], width=6),
            cloudwatch.GraphWidget(title="Table system errors", left=[table_errors], width=6),
            cloudwatch.GraphWidget(
                title="Transaction conflicts",
                left=[table.metric("TransactionConflict", period=PERIOD, statistic="Sum")],
                width=6,
            ),
        )
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Integrity outcomes (namespace ddbguard)",
                left=[custom_metric(name) for name in constants.CUSTOM_METRICS],
                width=24,
            ),
        )
        self.dashboard.add_widgets(
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=self.alarms, width=24),
        )

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

    def _alarm(
        self,
        construct_id: str,
        metric: cloudwatch.IMetric,
        description: str,
        action: cloudwatch.IAlarmAction,
    ) -> None:
        alarm = cloudwatch.Alarm(
            self,
            f"{construct_id}Alarm",
            metric=metric,
            threshold=0,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=1,
            # No traffic is not an incident.
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=description,
        )
        alarm.add_alarm_action(action)
        self.alarms.append(alarm)
