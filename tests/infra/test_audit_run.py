"""The lock audit's state machine (infra/audit.py) is what local/audit_run.py drives in the tests: the same retry
count, a loop per segment that never leaves a failed segment unreported, and a coverage report at the end."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from infra import audit as audit_infra
from local import audit_run

if TYPE_CHECKING:
    from conftest import Synth


def _definition(synth: Synth) -> dict[str, Any]:
    (machine,) = synth.of_type("AWS::StepFunctions::StateMachine").values()
    # DefinitionString is an Fn::Join of literal JSON around the worker's ARN: put a placeholder in its place.
    parts = machine["Properties"]["DefinitionString"]["Fn::Join"][1]
    return json.loads("".join(part if isinstance(part, str) else "WORKER" for part in parts))


def test_the_local_driver_retries_as_often_as_the_state_machine() -> None:
    assert audit_run.STEP_ATTEMPTS == audit_infra.STEP_ATTEMPTS


def test_each_segment_loops_its_steps_retries_them_and_reports_itself_when_they_keep_failing(synth: Synth) -> None:
    definition = _definition(synth)
    segments = definition["States"]["Segments"]
    assert segments["Type"] == "Map" and segments["ItemProcessor"]["ProcessorConfig"]["Mode"] == "DISTRIBUTED"
    assert segments["Next"] == "ReportCoverage" and definition["States"]["ReportCoverage"]["End"] is True
    child = segments["ItemProcessor"]["States"]
    step = child["AuditStep"]
    (retry,) = step["Retry"]
    assert retry["ErrorEquals"] == ["States.ALL"] and retry["MaxAttempts"] == audit_infra.STEP_ATTEMPTS - 1
    (catch,) = step["Catch"]
    assert catch["Next"] == "SegmentNotCovered" and child["SegmentNotCovered"]["Parameters"]["done"] is False
    done = child["SegmentDone"]
    assert step["Next"] == "SegmentDone" and done["Default"] == "AuditStep"  # the loop: no function invokes itself
    assert done["Choices"] == [{"Variable": "$.done", "BooleanEquals": True, "Next": "SegmentCovered"}]
