"""Every route has a walk-through step (local/walkthrough_steps.py), numbered 1..n with no gap, and every entry there
names a route; a generic resource's steps and sample bodies follow from its entity."""

from __future__ import annotations

import pytest

import routes
from examples.teams.routes import TEAM_ROUTES
from local import demo, walkthrough_steps
from local.walkthrough_steps import SAMPLE_BODIES, STEPS, Walkthrough, sample_body, step_of, steps


def test_every_route_has_one_step_numbered_in_order_and_every_entry_names_a_route() -> None:
    operations = {route.operation for route in routes.ROUTES}
    assert set(steps()) == operations
    assert sorted(step.step for step in steps().values()) == list(range(1, len(routes.ROUTES) + 1))
    assert set(STEPS) <= operations and set(SAMPLE_BODIES) <= operations
    assert list(walkthrough_steps.WALKTHROUGH) == sorted(operations, key=lambda name: steps()[name].step)


def test_every_route_with_a_body_model_has_a_sample_body() -> None:
    for route in routes.ROUTES:
        assert (sample_body(route) is not None) == (route.body is not None), route.key


def test_step_paths_name_demo_ids_or_client_chosen_ones() -> None:
    for route in routes.ROUTES:
        target = walkthrough_steps.WALKTHROUGH[route.operation]
        assert set(target.path) == set(route.path_parameters), route.key
        for name, given in step_of(route).path.items():
            assert target.path[name] == demo.DEMO_IDS.get(given, given)


def test_a_generic_resource_gets_its_steps_after_the_products(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routes, "ROUTES", (*routes.ROUTES, *TEAM_ROUTES))
    create, get, change, delete = TEAM_ROUTES
    first = len(STEPS) + 1
    assert step_of(create) == Walkthrough(first, "alice creates the team team-demo-1.", reset_on_rerun=True)
    assert step_of(get) == Walkthrough(
        first + 1, "the team team-demo-1.", {"teamId": "team-demo-1"}, needs="create_team"
    )
    assert (step_of(change).if_match, step_of(change).needs) == (0, "create_team")
    assert (step_of(delete).step, step_of(delete).if_match, step_of(delete).needs) == (first + 3, 1, "update_team")
    assert sample_body(create) == {"teamId": "team-demo-1", "slug": "core-team", "name": "Core team", "seats": 5}
    assert sample_body(change) == {"name": "Core team"} and sample_body(get) is None


def test_a_route_without_a_step_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    stray = routes.Route("GET", "/strays", "strays.list_strays")
    monkeypatch.setattr(routes, "ROUTES", (*routes.ROUTES, stray))
    with pytest.raises(ValueError, match="GET /strays"):
        walkthrough_steps.walkthrough()
