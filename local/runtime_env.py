"""The environment a handler sees locally: the same variables the stack sets, plus DynamoDB Local."""

from __future__ import annotations

import os


def configure(endpoint: str, table: str) -> None:
    os.environ.update(
        {
            "TABLE_NAME": table,
            "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local",
            "POWERTOOLS_SERVICE_NAME": "ddbguard",
            "POWERTOOLS_METRICS_NAMESPACE": "ddbguard",
            "POWERTOOLS_TRACE_DISABLED": "true",
            # Locally the handlers wrap themselves in Powertools Tracer (disabled above), so every test run goes
            # through the heaviest provider's code; the stack deploys its own choice (infra/function_runtime.py).
            "DDBGUARD_TRACING": os.environ.get("DDBGUARD_TRACING", "xray-sdk"),
            # INFO, as deployed: one line per request (ddbguard_api.http.endpoint); DEBUG adds each DynamoDB call.
            "POWERTOOLS_LOG_LEVEL": os.environ.get("POWERTOOLS_LOG_LEVEL", "INFO"),
            # DynamoDB Local on a shared machine can take seconds to answer under load; the deployed 5 s read timeout
            # would turn that into 503 busy (ddbguard.store.client).
            "DDBGUARD_DYNAMODB_READ_TIMEOUT_S": "60",
        }
    )
    os.environ.pop("AWS_PROFILE", None)
    os.environ.pop("AWS_SESSION_TOKEN", None)
