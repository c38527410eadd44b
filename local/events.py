"""events/: one realistic API Gateway REST proxy event per route, generated from the route table.

Each event acts on the demo world (local/demo.py) as the demo owner `alice`, as its walk-through step and sample
body say (its story, local/route_stories.py), and says in its `description` what must run first. `make events` rewrites
them, and the README's list of them in walk-through order; tests/unit/test_events.py fails when they drift from the
table.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any, cast

import routes
from local import demo, route_stories
from local.apigw_events import build_event
from local.paths import EVENTS, ROOT
from local.tokens import claims_from_authorization, make_token

_FIXED_TIME = {"requestTime": "02/Dec/2026:12:00:00 +0000", "requestTimeEpoch": 1796212800000}


def sample_event(route: routes.Route) -> dict[str, Any]:
    story, demo_path = route_stories.story_of(route), route_stories.event_path(route)
    parameters = {name: demo_path[name] for name in route.path_parameters}
    path = route.path
    for name, value in parameters.items():
        path = path.replace("{" + name + "}", value)
    if story.query:
        path += "?" + story.query
    sample_body = route_stories.sample_body(route)
    body = json.dumps(sample_body).encode() if sample_body is not None else b""
    headers = [("Host", "api.ddbguard.local"), ("User-Agent", "ddbguard-sample/1.0"), ("Accept", "application/json")]
    claims = None
    if route.auth:
        # A deterministic token: same claims in the header and in requestContext.authorizer.
        token = make_token(
            demo.OWNER,
            ttl_s=10 * 365 * 24 * 3600,
            issued_at=cast(int, _FIXED_TIME["requestTimeEpoch"]) // 1000,
            signed=False,
        )
        headers.append(("Authorization", f"Bearer {token}"))
        claims = claims_from_authorization(f"Bearer {token}")
    if body:
        headers.append(("Content-Type", "application/json"))
    if route.idempotency != "none":
        headers.append(("Idempotency-Key", demo.sample_key(route.operation)))
    if route.if_match:
        headers.append(("If-Match", f'"{story.if_match}"'))
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
    # Not part of API Gateway's event (handlers ignore it): what this sample does and needs.
    return {"description": route_stories.description(route), **event}


def event_path(route: routes.Route) -> Path:
    return EVENTS / f"{route.operation}.json"


def render(event: dict[str, Any]) -> str:
    return json.dumps(event, indent=2, sort_keys=True) + "\n"


WALKTHROUGH_SECTION = "## Walk through every route"


def readme_with_walkthrough(readme: str) -> str:
    """The README with the `make invoke` block of its walk-through section listing every route in order."""
    head, marker, section = readme.partition(WALKTHROUGH_SECTION)
    before, fence, rest = section.partition("```sh\n")
    _, end_fence, after = rest.partition("```\n")
    if not (marker and fence and end_fence):
        raise ValueError(f"README.md has no {WALKTHROUGH_SECTION!r} section with a sh block")
    block = "".join(f"make invoke FN={operation}\n" for operation in route_stories.stories())
    return head + marker + before + fence + block + end_fence + after


def main() -> None:
    EVENTS.mkdir(exist_ok=True)
    wanted = {event_path(route).name for route in routes.ROUTES}
    for stale in EVENTS.glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
    for route in routes.ROUTES:
        event_path(route).write_text(render(sample_event(route)))
    readme = ROOT / "README.md"
    readme.write_text(readme_with_walkthrough(readme.read_text()))
    print(f"wrote {len(routes.ROUTES)} events to {EVENTS}, and their order to {readme.name}")


if __name__ == "__main__":
    main()
