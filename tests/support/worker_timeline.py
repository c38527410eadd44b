"""How a parallel run was shared: each worker's units in order, and when each worker ended.

Under pytest-xdist the run ends with its last worker. The controller gets every test's report with its worker and
its wall-clock start and stop; this keeps, per worker, the units it ran (tests/support/scheduling.py) and when it
ended, writes them to `.local/worker-timeline.json`, and prints one line per worker: when it started its first test
(the workers' start: collection, interpreter), when it ended and after which unit. Next to the prediction of
`python -m tests.support.makespan`, it shows whether the order or the machine set the end of a run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.progress import clock
from tests.support.scheduling import unit_of

TIMELINE = Path(__file__).resolve().parents[2] / ".local" / "worker-timeline.json"


class WorkerTimeline:
    def __init__(self, path: Path = TIMELINE) -> None:
        self.path = path
        self.started = time.time()
        self.workers: dict[str, list[dict[str, Any]]] = {}  # worker -> its units in order, with start and end

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.started = time.time()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        node = getattr(report, "node", None)  # pytest-xdist's controller names the worker a report came from
        if node is None or not report.stop:
            return
        units = self.workers.setdefault(node.gateway.id, [])
        unit = unit_of(report.nodeid)
        if not units or units[-1]["unit"] != unit:
            units.append({"unit": unit, "start": round(report.start - self.started, 1), "tests": 0})
        units[-1]["end"] = round(report.stop - self.started, 1)
        units[-1]["tests"] += report.when == "call"

    def lines(self) -> list[str]:
        lines = []
        for worker, units in sorted(self.workers.items()):
            busy = sum(unit["end"] - unit["start"] for unit in units)
            lines.append(
                f"{worker}: first test at {clock(units[0]['start'])}, ended at {clock(units[-1]['end'])} after "
                f"{units[-1]['unit']} ({len(units)} unit{'s' * (len(units) != 1)}, {clock(busy)} of them)"
            )
        return lines

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.workers:
            terminalreporter.section("workers")
            for line in self.lines():
                terminalreporter.write_line(line)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.workers:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.workers, indent=1) + "\n", encoding="utf-8")
        except OSError:  # a read-only checkout still runs its tests
            pass


def register(config: pytest.Config) -> None:
    """In pytest-xdist's controller only: a plain run has one worker, and its own order."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if config.getvalue("dist") == "no":
        return
    config.pluginmanager.register(WorkerTimeline(), "ddbguard-worker-timeline")
