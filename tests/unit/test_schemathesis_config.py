"""schemathesis.toml is generated from the route table: the committed file is what `make regenerate` writes."""

from __future__ import annotations

import tomllib

import routes
from local.schemathesis_config import CONFIG_PATH, render


def test_the_committed_config_is_the_generated_one() -> None:
    assert CONFIG_PATH.read_text(encoding="utf-8") == render(), "run `make regenerate`"


def test_every_write_and_every_versioned_route_is_covered() -> None:
    groups = [set(group["include-name"]) for group in tomllib.loads(render())["operations"]]
    assert groups[0] == {route.key for route in routes.ROUTES if route.method == "POST"}
    assert groups[1] == {route.key for route in routes.ROUTES if route.if_match}
    assert groups[1] >= {"PATCH /accounts/{accountId}", "DELETE /orders/{orderId}"}
