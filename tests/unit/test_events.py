"""events/ holds one sample event per route, generated from the route table, never drifting."""

from __future__ import annotations

import json

import pytest

import routes
from local.events import event_path, render, sample_event
from local.paths import EVENTS
from local.route_stories import sample_body


def test_one_event_per_route_and_nothing_else():
    assert sorted(p.name for p in EVENTS.glob("*.json")) == sorted(event_path(r).name for r in routes.ROUTES)


@pytest.mark.parametrize("route", routes.ROUTES, ids=lambda r: r.operation)
def test_event_matches_route_table(route):
    stored = event_path(route).read_text()
    assert stored == render(sample_event(route)), "events/ drifted from the route table: run `make events`"
    event = json.loads(stored)
    assert event["resource"] == route.path
    assert event["httpMethod"] == route.method
    assert set((event["pathParameters"] or {}).keys()) == set(route.path_parameters)
    assert ("authorizer" in event["requestContext"]) == route.auth
    headers = {k.lower() for k in event["headers"]}
    assert ("idempotency-key" in headers) == (route.idempotency != "none")
    assert ("if-match" in headers) == route.if_match


def test_sample_bodies_name_the_demo_world():
    from local import demo

    transfer = sample_body(routes.by_operation("create_transfer"))
    assert (transfer["fromAccountId"], transfer["toAccountId"]) == (demo.MAIN_ACCOUNT, demo.PEER_ACCOUNT)
    order = sample_body(routes.by_operation("create_order"))
    assert (order["accountId"], order["orderId"], order["items"]) == (
        demo.MAIN_ACCOUNT,
        demo.ORDER_CREATED_BY_EVENT,
        demo.ORDER_LINES,
    )


@pytest.mark.parametrize("route", routes.ROUTES, ids=lambda r: r.operation)
def test_every_event_says_what_it_needs_first(route):
    event = json.loads(event_path(route).read_text())
    assert route.key in event["description"] and "Needs first:" in event["description"]


def test_the_readme_lists_the_walkthrough_as_make_events_writes_it():
    from local.events import readme_with_walkthrough
    from local.paths import ROOT

    readme = (ROOT / "README.md").read_text()
    assert readme_with_walkthrough(readme) == readme
