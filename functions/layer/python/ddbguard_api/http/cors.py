"""CORS for browser clients: which origins may call the API, and which headers they may send and read.

Origins come from `CORS_ALLOWED_ORIGINS` (comma-separated), which the stack sets from the CDK
context value `corsAllowedOrigins` and `make run` passes through; empty by default, and then no
response carries any Access-Control-* header. API Gateway answers preflight OPTIONS itself
(infra/api.py), the handlers add the headers to every actual response (`cors_headers`), and the
local server does both the same way.

Written here rather than taken from Powertools' `CORSConfig`: that class lives in its event handler
package, which a handler would then import whole for these few lines; the headers are the ones it
writes (its built-in allowed headers included), so responses did not change when the edge left it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ALLOWED_HEADERS",
    "EXPOSED_HEADERS",
    "MAX_AGE_S",
    "ORIGINS_ENV",
    "allowed_origins",
    "cors_headers",
    "parse_origins",
]

ORIGINS_ENV = "CORS_ALLOWED_ORIGINS"
ALLOWED_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key", "If-Match")
# Headers a browser may always send to an API Gateway API (its signature and key headers), allowed beside ours.
_GATEWAY_HEADERS = ("Authorization", "Content-Type", "X-Amz-Date", "X-Api-Key", "X-Amz-Security-Token")
EXPOSED_HEADERS = (
    "ETag",
    "Location",
    "Retry-After",
    "Idempotent-Replayed",
)  # a browser script reads these only if exposed
MAX_AGE_S = 600


def parse_origins(raw: str | None) -> list[str]:
    return [origin.strip() for origin in (raw or "").split(",") if origin.strip()]


def allowed_origins() -> list[str]:
    return parse_origins(os.environ.get(ORIGINS_ENV))


def _origin(event: Mapping[str, Any]) -> str | None:
    """The request's Origin: from `multiValueHeaders` when the event has any (the first value), else `headers`."""
    headers = event.get("multiValueHeaders") or event.get("headers") or {}
    value = next((v for k, v in headers.items() if k.lower() == "origin"), None)
    return value[0] if isinstance(value, list) and value else value if isinstance(value, str) else None


def cors_headers(event: Mapping[str, Any], origins: list[str]) -> dict[str, str]:
    """The Access-Control-* headers of a response to `event`: none unless its Origin is one of `origins` (`*`
    allows any)."""
    origin = _origin(event)
    if origin is None:
        return {}
    if origin not in origins:
        if "*" not in origins:
            return {}
        origin = "*"
    return {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Headers": ",".join(sorted({*_GATEWAY_HEADERS, *ALLOWED_HEADERS})),
        "Access-Control-Expose-Headers": ",".join(EXPOSED_HEADERS),
        "Access-Control-Max-Age": str(MAX_AGE_S),
    }
