"""events/: one realistic API Gateway REST proxy event per route, generated from the route table.

`make events` rewrites them; tests/unit/test_events.py fails when they drift from the table.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import routes
from local.apigw_events import build_event
from local.paths import EVENTS
from local.tokens import claims_from_authorization, make_token

SAMPLE_SUB = "5f0c9a3e-7b1d-4c2e-9f8a-1d2b3c4d5e6f"
SAMPLE_PATH_VALUES = {
    "accountId": "0b7e6f1c-3a52-4f3e-9d4e-7c1d2a9b8e01",
    "orderId": "ord-2026-0001",
    "holdId": "9d3f2a1b-8c7e-4f6d-a5b4-c3d2e1f0a9b8",
}
_FIXED_TIME = {"requestTime": "02/Dec/2026:12:00:00 +0000", "requestTimeEpoch": 1796212800000}


def sample_event(route: routes.Route) -> dict[str, Any]:
    parameters = {name: SAMPLE_PATH_VALUES[name] for name in route.path_parameters}
    path = route.path
    for name, value in parameters.items():
        path = path.replace("{" + name + "}", value)
    if route.operation == "get_statement":
        path += "?limit=25"
    body = json.dumps(route.sample_body).encode() if route.sample_body is not None else b""
    headers = [("Host", "api.ddbguard.local"), ("User-Agent", "ddbguard-sample/1.0"), ("Accept", "application/json")]
    claims = None
    if route.auth:
        # A deterministic token: same claims in the header and in requestContext.authorizer.
        token = make_token(SAMPLE_SUB, ttl_s=10 * 365 * 24 * 3600, issued_at=_FIXED_TIME["requestTimeEpoch"] // 1000)
        headers.append(("Authorization", f"Bearer {token}"))
        claims = claims_from_authorization(f"Bearer {token}")
    if body:
        headers.append(("Content-Type", "application/json"))
    if route.idempotency != "none":
        headers.append(("Idempotency-Key", str(uuid.uuid5(uuid.NAMESPACE_URL, f"ddbguard-sample/{route.operation}"))))
    if route.if_match:
        headers.append(("If-Match", '"0"'))
    event = build_event(
        method=route.method,
        resource=route.path,
        raw_path=path,
        headers=headers,
        body=body,
        path_parameters=parameters,
        claims=claims,
        stage="v1",
        source_ip="203.0.113.10",
    )
    event["requestContext"]["requestId"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"ddbguard-request/{route.operation}"))
    event["requestContext"].update(_FIXED_TIME)
    return event


def event_path(route: routes.Route) -> Path:
    return EVENTS / f"{route.operation}.json"


def render(event: dict[str, Any]) -> str:
    return json.dumps(event, indent=2, sort_keys=True) + "\n"


def main() -> None:
    EVENTS.mkdir(exist_ok=True)
    wanted = {event_path(route).name for route in routes.ROUTES}
    for stale in EVENTS.glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
    for route in routes.ROUTES:
        event_path(route).write_text(render(sample_event(route)))
    print(f"wrote {len(routes.ROUTES)} events to {EVENTS}")


if __name__ == "__main__":
    main()
