"""Names that must be unique in one account and region carry the environment, so `ENV=dev` and `ENV=prod` can
share an account without touching each other: the stack name (and through it every alarm and dashboard name),
the REST API's name and the custom-metric namespace (the handlers' metrics and the access-log counts).

An app synthesized without an environment (the infra tests, which build it in-process) keeps the plain names;
the CDK command line always names one (app.py refuses otherwise).
"""

from __future__ import annotations

from constructs import Construct

from infra import constants

ENVIRONMENT_KEY = "environment"


def environment(scope: Construct) -> str | None:
    value = scope.node.try_get_context(ENVIRONMENT_KEY)
    return None if value in (None, "") else str(value)


def stack_name(environment_name: str | None) -> str:
    """`ddbguard-prod` for `ENV=prod`; the construct id when no environment is named."""
    return f"{constants.SERVICE_NAME}-{environment_name}" if environment_name else constants.STACK_ID


def with_environment(scope: Construct, base: str) -> str:
    """`base-<environment>` (e.g. the metric namespace `ddbguard-prod`), `base` without an environment."""
    name = environment(scope)
    return f"{base}-{name}" if name else base


def metrics_namespace(scope: Construct) -> str:
    return with_environment(scope, constants.METRICS_NAMESPACE)


def api_name(scope: Construct) -> str:
    return with_environment(scope, constants.API_NAME)


# Lambda's limit on a function's name.
FUNCTION_NAME_LIMIT = 64


def function_name(scope: Construct, construct_id: str) -> str:
    """`ddbguard-prod-Withdraw`: the stack's name and the function's construct id, which its alarms carry too
    (`ddbguard-prod-Withdraw-Fault-Count-Critical`), so an alarm names its function and the runbook finds the
    function, and its log group `/aws/lambda/<name>`, from the alarm alone."""
    name = f"{stack_name(environment(scope))}-{construct_id}"
    if len(name) > FUNCTION_NAME_LIMIT:
        raise ValueError(f"function name {name!r} is longer than Lambda's {FUNCTION_NAME_LIMIT} characters")
    return name


def function_log_group(function: str) -> str:
    """Where Lambda writes a function's logs by default; named so, the runbook needs no lookup to read them."""
    return f"/aws/lambda/{function}"
