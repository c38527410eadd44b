"""How much of CloudFormation's per-stack limits the stack uses, and how many more routes fit, as docs/infra.md
says: measured by synthesizing again with test-only routes (tests/infra/headroom.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from . import headroom

if TYPE_CHECKING:
    from conftest import Synth


@pytest.fixture(scope="module")
def figures(synth: Synth) -> dict[str, Any]:
    return headroom.measure(synth.json, headroom.grown_template())


def test_the_stack_is_within_every_cloudformation_limit_today(figures: dict[str, Any]) -> None:
    for row in figures["rows"]:
        assert row["used"] <= row["max"], row
    print(headroom.render(figures))  # the headroom, in the test log


def test_every_added_route_costs_resources_and_bytes(figures: dict[str, Any]) -> None:
    rows = {row["limit"]: row for row in figures["rows"]}
    assert rows["resources"]["per_route"] >= 10  # function, role, policies, log group, method, alarms...
    assert rows["template_bytes"]["per_route"] > 1000
    assert figures["more_routes"] == rows["resources"]["more_routes"]  # resources run out first


def test_the_docs_state_the_measured_headroom(figures: dict[str, Any]) -> None:
    assert headroom.documented_block() == headroom.render(figures), "run `make headroom` and commit docs/infra.md"
