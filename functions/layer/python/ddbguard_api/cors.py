"""CORS for browser clients: which origins may call the API, and which headers they may send and read.

Origins come from `CORS_ALLOWED_ORIGINS` (comma-separated), which the stack sets from the CDK
context value `corsAllowedOrigins` and `make run` passes through; empty by default, and then no
response carries any Access-Control-* header. API Gateway answers preflight OPTIONS itself
(infra/api.py), the handlers add the headers to every actual response (Powertools CORSConfig),
and the local server does both the same way.
"""

from __future__ import annotations

import os

from aws_lambda_powertools.event_handler import CORSConfig

ORIGINS_ENV = "CORS_ALLOWED_ORIGINS"
ALLOWED_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key", "If-Match")
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


def cors_config() -> CORSConfig | None:
    """The resolver's CORS configuration, or None (no CORS headers) when no origin is allowed."""
    origins = allowed_origins()
    if not origins:
        return None
    return CORSConfig(
        allow_origin=origins[0],
        extra_origins=origins[1:],
        allow_headers=list(ALLOWED_HEADERS),
        expose_headers=list(EXPOSED_HEADERS),
        max_age=MAX_AGE_S,
    )
