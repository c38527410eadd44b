"""`DdbguardStack`: table, auth, functions, API and monitoring, composed from the modules beside this one."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from aws_cdk import App, CfnOutput, Stack, Validations
from cdk_nag import AwsSolutionsChecks
from constructs import Construct

from infra import constants, environments, naming, readiness, retention, settings
from infra.api import Api
from infra.audit import LockAuditRun
from infra.auth import Auth
from infra.backup import table_backups
from infra.edge import protect
from infra.functions import Functions
from infra.monitoring import Monitoring
from infra.operators import OperatorRoles
from infra.route_stacks import RouteStack, route_groups
from infra.settlement import Settlement
from infra.table import Storage
from routes import ROUTES, Route


class DdbguardStack(Stack):
    """The whole service. Region-agnostic: the template resolves its region at deploy time.

    The stateful and shared parts (table, user pool, API, background jobs, topics) are this stack's; each route
    group's functions, methods and alarms are a nested stack of it (infra/route_stacks.py). `routes` is the route
    table (functions/routes/); tests pass a longer one to prove the stack's room to grow.
    """

    def __init__(self, scope: Construct, construct_id: str, *, routes: Sequence[Route] = ROUTES, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, description="ddbguard: data-integrity patterns on DynamoDB", **kwargs)
        self.storage = Storage(self, "Storage")
        self.backups = table_backups(self, self.storage.table, self.storage.key)
        self.operators = OperatorRoles(self, "Operators", table=self.storage.table)
        self.auth = Auth(self, "Auth")
        self.functions = Functions(self, "Functions", table=self.storage.table)
        self.settlement = Settlement(self, "Settlement", functions=self.functions)
        # As many segments as the audit's reserved executions: the run's Map never asks for more at once.
        segments = settings.count(self, settings.AUDIT_RESERVED_CONCURRENCY) or constants.AUDIT_DEFAULT_SEGMENTS
        self.audit = LockAuditRun(self, "LockAudit", worker=self.functions.audit_function, segments=segments)
        self.api = Api(self, "Api", routes=routes, user_pool=self.auth.user_pool)
        self.edge = protect(self, self.api.rest_api.deployment_stage, retention.access_logs(self))
        self.monitoring = Monitoring(
            self,
            "Monitoring",
            rest_api=self.api.rest_api,
            functions=[self.functions.settlement_function, self.settlement.sweeper],
            scheduled_functions=[self.settlement.sweeper],
            audit_function=self.functions.audit_function,
            table=self.storage.table,
            access_logs=self.api.access_logs,
            route_concurrency_ceiling=self.api.throttle.route_concurrency_ceiling(constants.FUNCTION_TIMEOUT_SECONDS),
        )
        self.settlement.monitor(self.monitoring)
        self.audit.monitor(self.monitoring)
        self.page_test_alarm = self.monitoring.add_page_test()
        self.route_stacks = [
            RouteStack(self, group, functions=self.functions, api=self.api, monitoring=self.monitoring)
            for group in route_groups(routes)
        ]

        CfnOutput(self, "ApiUrl", value=self.api.url, description="Base URL of the v1 stage")
        CfnOutput(self, "TableName", value=self.storage.table.table_name)
        CfnOutput(self, "UserPoolId", value=self.auth.user_pool.user_pool_id)
        CfnOutput(self, "UserPoolClientId", value=self.auth.client.user_pool_client_id)
        CfnOutput(self, "AlarmTopicArn", value=self.monitoring.topic.topic_arn, description="Critical alarms (pages)")
        CfnOutput(self, "WarningTopicArn", value=self.monitoring.warning_topic.topic_arn, description="Warnings")
        if self.api.custom_domain is not None:
            CfnOutput(
                self,
                "ApiDomainTarget",
                value=self.api.custom_domain.domain_name_alias_domain_name,
                description="Point the custom domain's DNS (CNAME or alias) here",
            )
        CfnOutput(self, "AuditFunctionName", value=self.functions.audit_function.function_name)
        CfnOutput(self, "AuditStateMachineArn", value=self.audit.state_machine.state_machine_arn)
        # A run started by hand (docs/operations.md) takes the scheduled run's input.
        CfnOutput(self, "AuditRunInput", value=json.dumps(self.audit.run_input(), separators=(",", ":")))
        CfnOutput(
            self,
            "LockRemedyRoleArn",
            value=self.operators.lock_remedy.role_arn,
            description="The role make lock-remedy assumes (docs/operations.md)",
        )
        CfnOutput(
            self,
            "PageTestAlarmName",
            value=self.page_test_alarm.alarm_name,
            description="The Critical alarm make page-test sets to ALARM",
        )
        CfnOutput(self, "SettlementFailureQueueUrl", value=self.settlement.failure_queue.queue_url)
        # The runbook (docs/operations.md) finds the functions it invokes here, by name.
        CfnOutput(self, "SettlementFunctionName", value=self.functions.settlement_function.function_name)
        CfnOutput(self, "SweeperFunctionName", value=self.settlement.sweeper.function_name)
        CfnOutput(self, "ApiAccessLogGroupName", value=self.api.access_logs.log_group_name)


def cdk_json_context() -> dict[str, Any]:
    """The feature flags of `cdk.json`, so an app built outside the CLI (tests) synthesizes the same template."""
    return json.loads((constants.REPO_ROOT / "cdk.json").read_text(encoding="utf-8")).get("context", {})


class EnvironmentRequired(ValueError):
    """The command line synthesizes for a named environment only (its config file, its names)."""


def build_app(
    *, require_environment: bool = False, routes: Sequence[Route] = ROUTES, **app_kwargs: Any
) -> tuple[App, DdbguardStack]:
    """The CDK app with cdk-nag's AWS Solutions pack attached: an unacknowledged finding fails synthesis."""
    # The CLI's own context (cdk.json, -c) takes precedence over this, so passing it under the CLI is harmless.
    context = {**cdk_json_context(), **app_kwargs.pop("context", {})}
    app = App(context=context, **app_kwargs)
    # config/<environment>.json fills what neither the command line nor the caller set.
    environment = environments.apply(app.node)
    if require_environment and environment is None:
        known = ", ".join(sorted(path.stem for path in environments.CONFIG_DIR.glob("*.json")))
        raise EnvironmentRequired(
            f"No environment named: run `make synth ENV=<name>` (or `cdk synth -c {naming.ENVIRONMENT_KEY}=<name>`); "
            f"config/ has {known}."
        )
    # Everything a real environment must be told (pager, mail sender, MFA), said at once, before anything is built.
    readiness.check(app.node, environment)
    # cdk-nag 3 is a policy-validation plugin; the v2 `Aspects.of(app).add(...)` form no longer works.
    Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    stack = DdbguardStack(
        app,
        constants.STACK_ID,
        routes=routes,
        stack_name=naming.stack_name(environment),
        # A named environment is pinned to its account and region (config/<env>.json); the in-process test app
        # names none and stays environment-agnostic.
        env=environments.deployment_target(app.node, environment) if environment else None,
        # It holds the table and the user pool: deleting the stack takes a deliberate step first (make destroy).
        termination_protection=True,
    )
    return app, stack
