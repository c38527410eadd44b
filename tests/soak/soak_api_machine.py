"""`make soak`: the API state machine (tests/integration/api_machine.py) for as long as asked.

Not collected by `make test` (its name is not `test_*.py`); `make soak` names it. `SOAK_MIN` minutes (default 10)
of rounds, each a fixed number of examples under a seed derived from `SOAK_SEED` (printed first, random when not
given), so a failing round is re-run exactly with the same two numbers. Prints steps, sequences and whole-table
invariant checks per second as it goes, and at the end.
"""

from __future__ import annotations

import os
import random
import sys
import time

from hypothesis import HealthCheck, seed, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.integration.api_machine import machine_for

EXAMPLES_PER_ROUND = 20
STEPS = 40


def _say(text: str) -> None:
    sys.stderr.write(f"soak: {text}\n")
    sys.stderr.flush()


def test_the_api_machine_for_as_long_as_asked(dynamodb_local, ddb_client):
    budget_s = float(os.environ.get("SOAK_MIN", "10")) * 60
    base_seed = int(os.environ.get("SOAK_SEED") or random.SystemRandom().randrange(2**32))
    _say(f"seed {base_seed} (SOAK_SEED={base_seed} repeats this run), {budget_s / 60:g} minutes")
    started = time.monotonic()
    rounds = 0
    with machine_for(dynamodb_local.endpoint, ddb_client) as machine:
        while time.monotonic() - started < budget_s:
            round_seed = base_seed + rounds
            run_state_machine_as_test(
                seed(round_seed)(machine),
                settings=settings(
                    max_examples=EXAMPLES_PER_ROUND,
                    stateful_step_count=STEPS,
                    deadline=None,
                    database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
                ),
            )
            rounds += 1
            stats, elapsed = machine.statistics, time.monotonic() - started
            _say(
                f"round {rounds} (seed {round_seed}) clean: {stats.steps} steps, {stats.sequences} sequences, "
                f"{stats.invariant_checks} invariant checks, {stats.requests} requests in {elapsed:.0f} s"
            )
    stats, elapsed = machine.statistics, time.monotonic() - started
    _say(
        f"done, seed {base_seed}: {rounds} rounds, {stats.steps / elapsed:.1f} steps/s, "
        f"{stats.sequences / elapsed:.2f} sequences/s, {stats.invariant_checks / elapsed:.1f} invariant checks/s"
    )
    assert rounds >= 1 and stats.steps > 0
