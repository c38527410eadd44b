"""Room to grow, shown: the stack with 100 more routes (test-only entities) synthesizes within CloudFormation's
limits in every stack, keeps paging through the same topics, and docs/infra.md states the measured headroom.

One prod-like synthesis for the module (a few minutes on a busy machine): tests/infra/headroom.py says what it
adds and why. Run with `-s` to see each stack's headroom.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from aws_cdk.assertions import Template

from infra.assembly import flattened, stack_templates
from infra.route_stacks import ROUTES_PER_STACK, route_groups
from infra.stack import DdbguardStack, build_app
from routes import ROUTES, Route

from . import headroom

if TYPE_CHECKING:
    from conftest import CfnLint, Synth


@dataclass
class Grown:
    routes: tuple[Route, ...]
    stack: DdbguardStack
    usages: list[headroom.Usage]
    json: dict[str, Any]
    template_files: list[Path]


@pytest.fixture(scope="module")
def grown() -> Iterator[Grown]:
    with headroom.added_routes() as routes, tempfile.TemporaryDirectory() as outdir:
        app, stack = build_app(outdir=outdir, context=headroom.GROWN_CONTEXT, routes=routes)
        Template.from_stack(stack)  # cdk-nag (AwsSolutions) on every template: an open finding raises here
        assembly = Path(app.synth().directory)
        files = [each.path for each in stack_templates(assembly, stack.artifact_id)]
        yield Grown(routes, stack, headroom.usages(stack, assembly), flattened(assembly, stack.artifact_id), files)


@pytest.fixture(scope="module")
def today(synth: Synth) -> list[headroom.Usage]:
    return headroom.usages(synth.stack, synth.assembly_dir)


@pytest.mark.timeout(1200)
def test_one_hundred_more_routes_fit_every_stack(grown: Grown) -> None:
    assert len(grown.routes) == len(ROUTES) + headroom.ADDED_ROUTES >= 100
    assert len(grown.usages) == 1 + len(route_groups(grown.routes))
    for usage in grown.usages:
        print(usage, {limit: f"{free:.0%}" for limit, free in usage.headroom().items()})
        assert usage.resources < headroom.MAX_RESOURCES, usage
        assert usage.template_bytes < headroom.MAX_TEMPLATE_BYTES < 1_048_576, usage
        assert usage.outputs < headroom.MAX_OUTPUTS, usage
        assert usage.parameters < headroom.MAX_PARAMETERS, usage
    # The nested stacks carry the routes: the parent holds none of their functions.
    assert sum(usage.routes for usage in grown.usages[1:]) == len(grown.routes)


def test_every_added_route_is_served_by_its_own_function_and_method(grown: Grown) -> None:
    resources = grown.json["Resources"].values()
    handlers = {r["Properties"]["Handler"] for r in resources if r["Type"] == "AWS::Lambda::Function"}
    methods = {r["Properties"]["HttpMethod"] for r in resources if r["Type"] == "AWS::ApiGateway::Method"}
    assert {f"{route.handler}.handler" for route in grown.routes} <= handlers
    assert {route.method for route in grown.routes} <= methods
    lambda_methods = [
        r
        for r in resources
        if r["Type"] == "AWS::ApiGateway::Method" and r["Properties"]["Integration"]["Type"] == "AWS_PROXY"
    ]
    assert len(lambda_methods) == len(grown.routes)


def test_route_groups_split_a_tag_at_the_limit_and_keep_its_order(grown: Grown) -> None:
    groups = route_groups(grown.routes)
    assert all(0 < len(group.routes) <= ROUTES_PER_STACK for group in groups)
    by_tag: dict[str, list[Route]] = {}
    for group in groups:
        assert len({route.tag for route in group.routes}) == 1, group.name
        by_tag.setdefault(group.routes[0].tag, []).extend(group.routes)
    assert by_tag == {tag: [r for r in grown.routes if r.tag == tag] for tag in by_tag}
    assert any(group.name.endswith("2") for group in groups)  # a tag with more routes than one group holds


def test_every_added_routes_critical_alarms_page_the_on_call_topics(grown: Grown) -> None:
    """A route's 5xx, fault and throttle alarms live in its group's nested stack; they reach the same topics."""
    resources = grown.json["Resources"]
    (topic_id,) = [
        key for key, value in resources.items() if value["Type"] == "AWS::SNS::Topic" and "AlarmTopic" in key
    ]
    critical = {
        key: value["Properties"]
        for key, value in resources.items()
        if value["Type"] == "AWS::CloudWatch::Alarm" and value["Properties"]["AlarmName"].endswith("-Critical")
    }
    for route in grown.routes[len(ROUTES) :]:
        pattern = re.compile(rf"-(Api)?{route.construct_id}-")
        names = [props["AlarmName"] for props in critical.values() if pattern.search(props["AlarmName"])]
        assert len(names) >= 3, (route.key, names)  # API 5xx rate, function faults, function throttles
    for key, props in critical.items():
        assert {"Ref": topic_id} in props["AlarmActions"], key
        assert headroom.GROWN_CONTEXT["alarmTopicArn"] in props["AlarmActions"], key
        assert {"Ref": topic_id} in props["OKActions"], key


@pytest.mark.timeout(1200)
def test_cfn_lint_passes_on_every_grown_template(grown: Grown, cfn_lint: CfnLint) -> None:
    assert len(grown.template_files) == len(grown.usages)
    for path in grown.template_files:
        assert cfn_lint.findings(path) == [], path.name


def test_the_docs_state_the_measured_headroom(today: list[headroom.Usage], grown: Grown) -> None:
    block = headroom.render(today, grown.usages)
    print(block)
    assert headroom.documented_block() == block, "run `make headroom` and commit docs/infra.md"
