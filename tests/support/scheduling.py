"""How `make test` shares the work among pytest-xdist workers: whole modules and a few groups, longest first.

A worker runs a module whole, so a module's fixtures are built once (xdist's `loadscope`). Some session fixtures
are dear and shared by many modules: the synthesized stack and the CDK libraries' jsii runtime (every module of
tests/infra/), and a real `make run` with its seeded demo world (tests/http/conftest.py's `demo_service`). Sent to
two workers, those modules would build them twice; grouped, one worker builds each once, while the other workers
take the remaining modules one at a time, so the load still evens out. A module not named here is its own unit.

Units are handed out longest first (the classic LPT rule), by the seconds each module took in the last whole run
(tests/data/test-durations.json, written by `make figures`; a fresh clone has it). xdist's own order is by number
of tests, which sent the one-test modules of a minute (the schemathesis CLI run, the stateful machine, the
walk-throughs) last, so they set the end of the run while the other worker sat idle. A module with no recorded
duration (a new one) weighs the median module. `python -m tests.support.makespan` predicts the run's length under
either order from a run's durations.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

# Seconds each test module took in the last whole `make test` (summed over its tests), committed.
MODULE_DURATIONS = Path(__file__).resolve().parents[1] / "data" / "test-durations.json"

# Path prefix of a test module -> the unit it joins.
GROUPS = {
    "tests/infra/": "cdk: the synthesized stacks, cdk-nag, cfn-lint",
    "tests/http/test_walkthrough.py": "make run: the seeded demo world",
    "tests/http/test_browse.py": "make run: the seeded demo world",
    "tests/http/test_demo_script.py": "make run: the seeded demo world",
    "tests/http/test_run_terminal.py": "make run: the seeded demo world",
}


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def unit_of(nodeid: str) -> str:
    module = module_of(nodeid)
    return next((group for prefix, group in GROUPS.items() if module.startswith(prefix)), module)


def load_module_seconds(path: Path = MODULE_DURATIONS) -> dict[str, float]:
    """module -> seconds; empty when the file is missing or unreadable (then every unit weighs the same)."""
    return read_seconds(path)


def read_seconds(path: Path) -> dict[str, float]:
    """A JSON object of name -> seconds (modules here, tests in progress.py); empty when missing or unreadable."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {str(k): float(v) for k, v in loaded.items() if isinstance(v, int | float)}


def unit_weights(nodeids: Iterable[str], module_seconds: dict[str, float]) -> dict[str, float]:
    """unit -> expected seconds: the recorded seconds of its modules, the median module's for one never recorded."""
    median = statistics.median(module_seconds.values()) if module_seconds else 1.0
    modules: dict[str, set[str]] = {}
    for nodeid in nodeids:
        modules.setdefault(unit_of(nodeid), set()).add(module_of(nodeid))
    return {unit: sum(module_seconds.get(m, median) for m in found) for unit, found in modules.items()}


def longest_first(units: list[str], weights: dict[str, float]) -> list[str]:
    """The units by expected duration, longest first; equal ones keep their collection order."""
    return sorted(units, key=lambda unit: -weights.get(unit, 0.0))  # sorted is stable


class ModulesAndGroups(LoadScopeScheduling):
    """xdist's `loadscope` with the units above, handed out longest first."""

    def __init__(self, config: pytest.Config, log: Any = None, module_seconds: dict[str, float] | None = None):
        super().__init__(config, log)
        self.module_seconds = load_module_seconds() if module_seconds is None else module_seconds
        self.ordered = False

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)

    def _assign_work_unit(self, node: Any) -> None:
        # The work queue is complete at the first assignment (xdist's `schedule` builds it, then assigns): order it
        # once, and xdist's own assignment takes units from its front.
        if not self.ordered:
            weights = unit_weights(self.collection or [], self.module_seconds)
            for unit in longest_first(list(self.workqueue), weights):
                self.workqueue.move_to_end(unit)
            self.ordered = True
        super()._assign_work_unit(node)


class SchedulingPlugin:
    @pytest.hookimpl(tryfirst=True, optionalhook=True)  # before xdist's own, which would answer first
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> LoadScopeScheduling | None:
        if config.getvalue("dist") != "loadscope":
            return None  # another --dist asked for on the command line: xdist's own
        return ModulesAndGroups(config, log)


def register(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(SchedulingPlugin(), "ddbguard-scheduling")
