"""Every rule in every combination: the API state machine (tests/integration/api_machine.py) against the model.

The CI tier runs a fixed budget of examples, sized to stay well within 3 minutes on 2 cores; `make soak` runs the
same machine for as long as asked (tests/soak/soak_api_machine.py).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.integration.api_machine import machine_for

# Examples x steps: about 700 requests, each compared with the model, with the table checked after every step.
CI_EXAMPLES = int(os.environ.get("DDBGUARD_MODEL_EXAMPLES", "25"))
CI_STEPS = int(os.environ.get("DDBGUARD_MODEL_STEPS", "30"))


def test_every_answer_agrees_with_the_model_and_every_step_keeps_the_table_whole(dynamodb_local, ddb_client):
    with machine_for(dynamodb_local.endpoint, ddb_client) as machine:
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=CI_EXAMPLES,
                stateful_step_count=CI_STEPS,
                deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
            ),
        )
        assert machine.statistics.sequences >= CI_EXAMPLES
        assert machine.statistics.steps > CI_EXAMPLES * CI_STEPS // 2
