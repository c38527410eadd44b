"""Route groups: each route's function, method and alarms in its group's nested stack, chunked by tag; the stage's
deployment waits for every group; permissions name the one stage."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from infra import constants
from infra.assembly import NESTED_STACK
from infra.route_stacks import ROUTES_PER_STACK, route_groups
from infra.stack import build_app
from routes import ROUTES, Route

from .stack_templates import flat_template

if TYPE_CHECKING:
    from conftest import Synth

DEPLOYMENT = "AWS::ApiGateway::Deployment"


def _routes(tag: str, count: int) -> list[Route]:
    return [Route(method="GET", path=f"/{tag}/r{index}", handler=f"{tag}.get_{tag}_{index}") for index in range(count)]


def test_groups_are_tags_in_route_table_order_split_at_the_limit() -> None:
    table = [*_routes("alpha", ROUTES_PER_STACK + 3), *_routes("beta", 2)]
    groups = route_groups(table)
    assert [(group.name, len(group.routes)) for group in groups] == [
        ("RoutesAlpha", ROUTES_PER_STACK),
        ("RoutesAlpha2", 3),
        ("RoutesBeta", 2),
    ]
    assert [route for group in groups for route in group.routes] == table


def test_a_route_stays_in_its_group_when_another_tag_grows() -> None:
    before = {g.name: g.routes for g in route_groups([*_routes("alpha", 3), *_routes("beta", 2)])}
    after = {g.name: g.routes for g in route_groups([*_routes("alpha", 3), *_routes("beta", 9)])}
    assert before["RoutesAlpha"] == after["RoutesAlpha"]


def test_every_route_function_and_method_is_in_its_groups_nested_stack(synth: Synth) -> None:
    parent = synth.templates[synth.stack.node.path]
    assert not [
        r
        for r in parent["Resources"].values()
        if r["Type"] == "AWS::ApiGateway::Method" and r["Properties"]["Integration"]["Type"] == "AWS_PROXY"
    ]
    groups = {f"{synth.stack.node.path}/{group.name}": group for group in route_groups(ROUTES)}
    assert set(synth.templates) == {synth.stack.node.path, *groups}
    for path, group in groups.items():
        resources = synth.templates[path]["Resources"].values()
        handlers = {r["Properties"]["Handler"] for r in resources if r["Type"] == "AWS::Lambda::Function"}
        assert handlers == {f"{route.handler}.handler" for route in group.routes}, path
        methods = sorted(r["Properties"]["HttpMethod"] for r in resources if r["Type"] == "AWS::ApiGateway::Method")
        assert methods == sorted(route.method for route in group.routes), path


def test_the_stage_deployment_waits_for_every_route_group(synth: Synth) -> None:
    nested = set(synth.of_type(NESTED_STACK))
    (deployment,) = synth.of_type(DEPLOYMENT).values()
    assert nested and nested <= set(deployment["DependsOn"])


def test_invoke_permissions_name_the_stage_and_the_method(synth: Synth) -> None:
    permissions = synth.of_type("AWS::Lambda::Permission").values()
    api_permissions = [
        p["Properties"] for p in permissions if p["Properties"]["Principal"] == "apigateway.amazonaws.com"
    ]
    assert len(api_permissions) == len(ROUTES)
    for props in api_permissions:
        parts = props["SourceArn"]["Fn::Join"][1]
        tail = "".join(part for part in parts if isinstance(part, str))
        assert re.search(rf"/{constants.API_STAGE}/(GET|POST|PATCH|DELETE)/", tail), tail


@pytest.mark.timeout(900)
def test_a_changed_method_in_a_group_changes_the_stage_deployment() -> None:
    """CDK hashes only its own API's methods into the deployment's logical id; a group's methods are added to it, so
    changing one (here: a route's authorizer) makes a new deployment of the stage. Two small syntheses."""

    def deployment_id(routes: list[Route]) -> str:
        app, stack = build_app(routes=routes, context={"monitoringProfile": "lean"})
        template = flat_template(app, stack)
        (logical_id,) = [key for key, value in template["Resources"].items() if value["Type"] == DEPLOYMENT]
        return logical_id

    health, authenticated, changed = ROUTES[0], ROUTES[1], ROUTES[2]  # one route keeps the authorizer in use
    assert authenticated.auth and changed.auth
    before = deployment_id([health, authenticated, changed])
    assert before != deployment_id([health, authenticated, changed.replaced(auth=False)])
