"""The state machine's own counterexamples, kept: each sequence below is what Hypothesis shrank a failure to, when
the machine (api_machine.py) ran against the code before the fixes of "Every rule in every combination", replayed
step by step with the whole table checked after each, as the machine does. test_combinations.py says the same
findings in the API's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.api_machine import ApiMachine, machine_for

Step = tuple[str, dict[str, Any]]


@pytest.fixture
def state(dynamodb_local, ddb_client) -> Iterator[ApiMachine]:
    with machine_for(dynamodb_local.endpoint, ddb_client) as machine:
        started = machine()
        try:
            started.every_caller_has_a_funded_account()
            started.the_table_agrees_with_the_model()
            yield started
        finally:
            started.teardown()


def replay(state: ApiMachine, steps: list[Step]) -> None:
    for rule, arguments in steps:
        getattr(state, rule)(**arguments)
        state.the_table_agrees_with_the_model()


def test_finding_4_a_strangers_transfers_take_only_the_incoming_part_of_the_bound(state):
    replay(
        state,
        [
            ("pause_settlement", {}),
            ("a_stranger_sends_many_transfers", {"stranger": "alice", "times": 6, "victim": 10}),
        ],
    )


def test_finding_5_a_lock_keyed_by_an_earlier_rule_is_moved_by_one_audit(state):
    replay(
        state,
        [
            (
                "create_account",
                {"caller": "alice", "display": 0, "email": 3, "key": "fresh", "username": 3, "warm": False},
            ),
            ("a_lock_from_an_earlier_rule_is_moved_by_the_audit", {}),
        ],
    )


def test_finding_8_a_display_name_of_hangul_fillers_is_refused(state):
    replay(
        state,
        [
            (
                "create_account",
                {"caller": "alice", "display": 3, "email": 0, "key": "fresh", "username": 0, "warm": False},
            )
        ],
    )


def test_soak_a_key_past_its_lifetime_may_create_again(state):
    """Found by `make soak` (seed 2058448337) in the machine's own invariants, not in the service: an order key
    used again after its 24 hours creates a second order (the body names another id), as docs/api.md allows; the
    table check once counted that as a key creating twice."""
    replay(
        state,
        [
            (
                "create_order",
                {
                    "account": 5,
                    "caller": "alice",
                    "key": "k1",
                    "order_id": None,
                    "price": 100,
                    "quantity": 2,
                    "stranger": 4,
                },
            ),
            ("a_day_passes", {"share": 0.0}),
            (
                "create_order",
                {
                    "account": 8,
                    "caller": "alice",
                    "key": "last",
                    "order_id": "o-1",
                    "price": 100,
                    "quantity": 1,
                    "stranger": 3,
                },
            ),
        ],
    )
