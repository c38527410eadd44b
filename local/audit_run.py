"""The lock audit's Step Functions run, locally: the same segment worker, driven the way the state machine drives it.

infra/audit.py deploys a Distributed Map over the Scan segments; each segment's child execution invokes the worker
(functions/audit/audit_locks.py) with the segment's checkpoint, retries a failed invocation with the same input
(so it resumes from the checkpoint) up to `STEP_ATTEMPTS` times, ends the segment as not covered when every attempt
failed, and loops until the worker says the segment is done; a last step reports the run's coverage. This module
does the same in one process, one thread per segment, so tests and `make audit-locks` exercise what runs deployed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from local.invocation import running
from local.lambda_context import LambdaContext

FUNCTION = "audit_locks"
# As the state machine's Retry on the worker's task (infra/audit.py; a test checks they agree): the first attempt
# and five retries.
STEP_ATTEMPTS = 6


@dataclass
class SegmentRun:
    segment: int
    steps: int = 0  # worker invocations that succeeded
    failed_attempts: int = 0
    results: list[dict[str, Any]] = field(default_factory=list)
    # Every task input and output, in order, as the execution's history records them (JSON, as Step Functions
    # keeps them): what must hold no personal data.
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return bool(self.results) and bool(self.results[-1].get("done"))


@dataclass
class RunReport:
    segments: list[SegmentRun]
    summary: dict[str, Any]  # what the run's last step returned (coverage)
    report_input: dict[str, Any] = field(default_factory=dict)  # what the run's last step was given

    def history(self) -> list[dict[str, Any]]:
        """Every input and output the run's execution history would hold: the steps', then the last step's."""
        return [entry for run in self.segments for entry in run.history] + [self.report_input, self.summary]

    def total(self, name: str) -> int:
        return sum(int(result.get(name, 0)) for run in self.segments for result in run.results)


def run_audit(
    total_segments: int,
    *,
    max_pages: int | None = None,
    timeout_s: float = 300.0,
    handler: Callable[[dict[str, Any], Any], Mapping[str, Any]] | None = None,
) -> RunReport:
    """One audit run as the state machine makes it, against the configured table."""
    if handler is None:
        from audit.audit_locks import handler as worker

        handler = worker
    step = handler

    def invoke(event: dict[str, Any]) -> dict[str, Any]:
        with running(FUNCTION):
            return dict(step(event, LambdaContext(function_name=f"ddbguard-{FUNCTION}", timeout_s=timeout_s)))

    def one(segment: int) -> SegmentRun:
        run = SegmentRun(segment)
        state: dict[str, Any] = {"segment": segment, "totalSegments": total_segments, "checkpoint": None}
        if max_pages:
            state["maxPages"] = max_pages
        while True:
            for _attempt in range(STEP_ATTEMPTS):
                run.history.append(json.loads(json.dumps(state)))
                try:
                    result = invoke(state)
                    run.history.append(json.loads(json.dumps(result)))
                    break
                except Exception:  # the state machine retries any failure of the task with the same input
                    run.failed_attempts += 1
            else:  # every attempt failed: the segment ends here, not covered (its checkpoint, not the last
                # step's counts again, which would count that step twice)
                checkpoint = {key: state.get(key) for key in ("segment", "totalSegments", "checkpoint")}
                run.results.append({**checkpoint, "done": False})
                return run
            run.steps += 1
            run.results.append(result)
            if result["done"]:
                return run
            state = result

    with ThreadPoolExecutor(max_workers=total_segments, thread_name_prefix="audit-segment") as pool:
        segments = list(pool.map(one, range(total_segments)))
    report_input = {"segments": [{"segment": run.segment, "done": run.done} for run in segments]}
    return RunReport(segments, invoke(report_input), report_input)
