"""A parallel run's record: each worker's units in order, when it started and ended."""

from __future__ import annotations

import json
from types import SimpleNamespace

from tests.support.worker_timeline import WorkerTimeline


def _report(worker: str, nodeid: str, when: str, start: float, stop: float) -> SimpleNamespace:
    return SimpleNamespace(
        node=SimpleNamespace(gateway=SimpleNamespace(id=worker)), nodeid=nodeid, when=when, start=start, stop=stop
    )


def test_each_worker_keeps_its_units_in_order_and_its_end(tmp_path):
    timeline = WorkerTimeline(tmp_path / "timeline.json")
    timeline.started = 1000.0
    for report in (
        _report("gw0", "tests/api/test_cli.py::test_run", "setup", 1020.0, 1021.0),
        _report("gw0", "tests/api/test_cli.py::test_run", "call", 1021.0, 1080.0),
        _report("gw1", "tests/infra/test_a.py::test_one", "call", 1022.0, 1030.0),
        _report("gw1", "tests/infra/test_b.py::test_one", "call", 1030.0, 1100.5),
        _report("gw0", "tests/unit/test_fast.py::test_one", "call", 1080.0, 1081.0),
    ):
        timeline.pytest_runtest_logreport(report)
    timeline.pytest_sessionfinish(None)
    kept = json.loads((tmp_path / "timeline.json").read_text())
    assert [unit["unit"] for unit in kept["gw0"]] == ["tests/api/test_cli.py", "tests/unit/test_fast.py"]
    assert kept["gw0"][0] == {"unit": "tests/api/test_cli.py", "start": 20.0, "end": 80.0, "tests": 1}
    assert len(kept["gw1"]) == 1 and kept["gw1"][0]["tests"] == 2 and kept["gw1"][0]["end"] == 100.5  # one group
    assert timeline.lines() == [
        "gw0: first test at 0:20, ended at 1:21 after tests/unit/test_fast.py (2 units, 1:01 of them)",
        "gw1: first test at 0:22, ended at 1:40 after cdk: the synthesized stacks, cdk-nag, cfn-lint "
        "(1 unit, 1:18 of them)",
    ]
