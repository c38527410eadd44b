"""Which tracer the handlers wrap themselves in, chosen by the deployment (`DDBGUARD_TRACING`), not by code.

- `active` (the default): Lambda active tracing alone. Lambda records each invocation (and its init) in X-Ray; the
  process loads no tracing SDK, so the handlers' tracer is a pass-through.
- `otel`: the OpenTelemetry SDK, loaded by the ADOT layer's wrapper before the handler module (it instruments
  botocore and the handler itself); in this process the handlers' tracer is the same pass-through.
- `xray-sdk`: Powertools Tracer on the AWS X-Ray SDK (patches botocore; one subsegment per DynamoDB call). The
  X-Ray SDK's support ends on 2027-02-25.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Protocol

__all__ = [
    "DEFAULT_PROVIDER",
    "TRACING_ENV",
    "HandlerTracer",
    "PassThroughTracer",
    "TracingProvider",
    "handler_tracer",
    "provider",
]

TRACING_ENV = "DDBGUARD_TRACING"


class TracingProvider(StrEnum):
    ACTIVE = "active"
    OTEL = "otel"
    XRAY_SDK = "xray-sdk"


DEFAULT_PROVIDER = TracingProvider.ACTIVE


class HandlerTracer(Protocol):
    """The part of Powertools Tracer's interface ddbguard uses."""

    def capture_lambda_handler(
        self, lambda_handler: Any = None, capture_response: bool | None = None, capture_error: bool | None = None
    ) -> Callable[..., Any]: ...


class PassThroughTracer:
    """Wraps nothing: the tracing happens outside this process's code (Lambda, or the ADOT wrapper)."""

    def capture_lambda_handler(
        self, lambda_handler: Any = None, capture_response: bool | None = None, capture_error: bool | None = None
    ) -> Callable[..., Any]:
        if lambda_handler is not None:
            return lambda_handler  # used bare, as @tracer.capture_lambda_handler
        return lambda handler: handler


def provider() -> TracingProvider:
    value = os.environ.get(TRACING_ENV, "").strip() or DEFAULT_PROVIDER.value
    try:
        return TracingProvider(value)
    except ValueError:
        choices = ", ".join(p.value for p in TracingProvider)
        raise ValueError(f"{TRACING_ENV}={value!r}: expected one of {choices}") from None


def handler_tracer(service: str) -> HandlerTracer:
    """The tracer for `provider()`; only `xray-sdk` imports Powertools Tracer (and through it the X-Ray SDK)."""
    if provider() is TracingProvider.XRAY_SDK:
        from aws_lambda_powertools.tracing import Tracer

        tracer: HandlerTracer = Tracer(service=service)
        return tracer
    return PassThroughTracer()
