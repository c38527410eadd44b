"""Every route has a story (local/route_stories.py), numbered by its position 1..n, and every story names a route; a
generic resource's stories and sample bodies follow from its entity, and respect its rules."""

from __future__ import annotations

import pytest

import routes
from examples.teams.routes import TEAM_ROUTES
from local import demo, route_stories
from local.route_stories import STORIES, Story, sample_body, stories, story_of


def test_every_route_has_one_story_numbered_by_its_position_and_every_story_names_a_route() -> None:
    operations = {route.operation for route in routes.ROUTES}
    told = stories()
    assert set(told) == operations
    assert [story.step for story in told.values()] == list(range(1, len(routes.ROUTES) + 1))
    assert {story.operation for story in STORIES} <= operations
    assert len({story.operation for story in STORIES}) == len(STORIES)


def test_every_route_with_a_body_model_has_a_sample_body() -> None:
    for route in routes.ROUTES:
        assert (sample_body(route) is not None) == (route.body is not None), route.key


def test_every_route_has_words_for_its_success_response() -> None:
    for route in routes.ROUTES:
        assert story_of(route).reply.endswith("."), route.key


def test_story_paths_name_demo_ids_or_client_chosen_ones() -> None:
    for route in routes.ROUTES:
        path = route_stories.event_path(route)
        assert set(path) == set(route.path_parameters), route.key
        for name, given in story_of(route).path.items():
            assert path[name] == demo.DEMO_IDS.get(given, given)


def test_a_generic_resource_gets_its_stories_after_the_products(monkeypatch: pytest.MonkeyPatch) -> None:
    first = len(route_stories.stories()) + 1  # after every story of the table, derived ones included
    monkeypatch.setattr(routes, "ROUTES", (*routes.ROUTES, *TEAM_ROUTES))
    create, get, update, delete = TEAM_ROUTES
    assert story_of(create) == Story(
        "create_team",
        "The new team.",
        "alice creates the team team-demo-1.",
        body={"slug": "core-team", "name": "Core team", "seats": 5, "teamId": "team-demo-1"},
        reset_on_rerun=True,
        step=first,
    )
    assert story_of(get) == Story(
        "get_team", "The team.", "the team team-demo-1.", {"teamId": "team-demo-1"}, needs="create_team", step=first + 1
    )
    assert (story_of(update).if_match, story_of(update).needs) == (0, "create_team")
    assert (story_of(delete).step, story_of(delete).if_match, story_of(delete).needs) == (first + 3, 1, "update_team")
    assert sample_body(update) == {"name": "Core team"} and sample_body(get) is None


def test_a_derived_update_sends_text_or_a_number_never_a_choice_a_rule_may_guard() -> None:
    from types import SimpleNamespace

    from ddbguard.guards.fields import choice, integer

    fields = {"state": choice(("NEW", "OLD"), default="NEW"), "size": integer(3, minimum=1, maximum=9)}
    assert route_stories._update_body(SimpleNamespace(fields=fields)) == {"size": 3}  # type: ignore[arg-type]


def test_a_route_without_a_story_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    stray = routes.Route(method="GET", path="/strays", handler="strays.list_strays")
    monkeypatch.setattr(routes, "ROUTES", (*routes.ROUTES, stray))
    with pytest.raises(ValueError, match="GET /strays"):
        stories()
