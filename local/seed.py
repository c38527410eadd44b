"""`make seed`: create the demo world (local/demo.py) in the running table, idempotently.

Every step is a request to the real handler, as the local server would send it, with a fixed
Idempotency-Key: run it twice and the second run answers the first results and changes nothing.
`make run` calls it before serving.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import routes
from local import demo
from local.tokens import make_token

METRICS_DISABLED_VARIABLE = "POWERTOOLS_METRICS_DISABLED"


@dataclass(frozen=True)
class StepOutcome:
    step: demo.SeedStep
    status: int
    detail: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def _path(route: routes.Route, values: dict[str, str]) -> str:
    path = route.path
    for name in route.path_parameters:
        path = path.replace("{" + name + "}", values[name])
    return path


def _run_step(step: demo.SeedStep) -> StepOutcome:
    from local.server import invoke  # imports the handlers: only once the table is configured

    route = routes.by_operation(step.operation)
    headers = [("Authorization", f"Bearer {make_token(step.sub)}"), ("Idempotency-Key", step.key)]
    body = b""
    if step.body is not None:
        body = json.dumps(step.body).encode()
        headers.append(("Content-Type", "application/json"))
    status, _headers, data = invoke(route.method, _path(route, step.path), headers, body)
    answer = json.loads(data) if data else {}
    detail = answer.get("detail", "") if status >= 300 else ""
    return StepOutcome(step, status, detail)


def seed_demo_world() -> list[StepOutcome]:
    """Run every seed step against the configured table; returns each step's outcome.

    A finished walk-through's traces of `ada` are cleared first, so it can run again (local/walkthrough_reset.py).
    Replayed seed steps count a replay metric and log their requests; neither is printed here (the seeder reports
    its steps itself, in one line).
    """
    from local.walkthrough_reset import reset_finished_walkthrough

    with metrics_unprinted(), requests_unlogged():
        reset_finished_walkthrough()
        return [_run_step(step) for step in demo.SEED_STEPS]


@contextmanager
def metrics_unprinted() -> Iterator[None]:
    """Powertools Metrics print nothing inside the block (it reads POWERTOOLS_METRICS_DISABLED at each flush)."""
    previous = os.environ.get(METRICS_DISABLED_VARIABLE)
    os.environ[METRICS_DISABLED_VARIABLE] = "true"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(METRICS_DISABLED_VARIABLE, None)
        else:
            os.environ[METRICS_DISABLED_VARIABLE] = previous


@contextmanager
def requests_unlogged() -> Iterator[None]:
    """ddbguard's logger logs from WARNING up inside the block: no line per seed request."""
    import logging

    from ddbguard.observability import logger

    previous = logger.log_level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(previous)


def report(outcomes: list[StepOutcome]) -> tuple[str, bool]:
    failed = [o for o in outcomes if not o.ok]
    if not failed:
        return (
            f"ddbguard: demo world ready: owner {demo.OWNER!r} has account {demo.MAIN_ACCOUNT} (alice@example.com), "
            f"owner {demo.PEER!r} has {demo.PEER_ACCOUNT}; every file in events/ acts on them",
            True,
        )
    lines = [f"ddbguard: the demo world is incomplete ({len(failed)} of {len(outcomes)} steps refused):"]
    lines += [f"  {o.step.name} ({o.step.operation}): {o.status} {o.detail}" for o in failed]
    lines.append("  (a table with older data? start afresh with `make run DDB_DATA_DIR=memory`)")
    return "\n".join(lines), False


def main() -> int:
    from local.dynamodb_local import local_client
    from local.runtime_env import configure
    from local.service_state import ServiceNotFound, find_table, read_state
    from local.table import ensure_table

    try:
        target = find_table()
    except ServiceNotFound as error:
        print(f"ddbguard: cannot seed: {error}", file=sys.stderr)
        return 2
    configure(target.endpoint, target.table)
    ensure_table(local_client(target.endpoint), target.table)
    text, ok = report(seed_demo_world())
    print(text, file=sys.stdout if ok else sys.stderr)
    running = read_state()
    blocked = report_walkthrough_blockers(running.api_url if running else "http://127.0.0.1:3000")
    return 0 if ok and not blocked else 1


def report_walkthrough_blockers(api_url: str) -> bool:
    """Say on stderr what keeps the README walk-through from running (local/walkthrough_reset.py); whether any."""
    from local.walkthrough_reset import walkthrough_blockers

    blockers = walkthrough_blockers(api_url)
    for blocker in blockers:
        print(f"ddbguard: {blocker}", file=sys.stderr)
    return bool(blockers)


if __name__ == "__main__":
    sys.exit(main())
