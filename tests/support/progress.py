"""Progress by time, not by count: pytest's `[ 24%]` becomes `[ 41% 3:12 elapsed, ~4:38 left]`.

pytest's own percentage counts tests, and ours differ by four orders of magnitude in duration (a parser test takes
a millisecond, a synthesized stack with 100 more routes a minute): it showed 7 % after 7.5 minutes. Here each test
weighs what it took in the last run (`.local/test-durations.json`, written at the end of every run, merged with
what earlier runs measured), a test never measured weighs the median of the others, and what is left is scaled by
this run's own pace (elapsed / weight done), so a busier machine or more workers (pytest-xdist) are accounted for.
With no earlier run (a fresh clone) it weighs each module by the seconds the last whole run gave it (committed in
tests/data/test-durations.json by `make figures`), shared evenly among its tests; failing that, it counts tests.
Either way it says so at the end.

It replaces one private method of pytest's terminal reporter (pytest is pinned in requirements-dev.txt); the
console style `progress` is the only one it changes. `tests/unit/test_progress.py` runs it on a small suite.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.scheduling import load_module_seconds, module_of, read_seconds

DURATIONS_VARIABLE = "DDBGUARD_TEST_DURATIONS"
DEFAULT_DURATIONS = Path(__file__).resolve().parents[2] / ".local" / "test-durations.json"
# The widest message this module writes: pytest wraps a line of dots before it would overflow with it.
WIDEST = " [100% 999:59 elapsed, ~999:59 left]"
MIN_WEIGHT_S = 0.001


def durations_path() -> Path:
    return Path(os.environ.get(DURATIONS_VARIABLE) or DEFAULT_DURATIONS)


def clock(seconds: float) -> str:
    """`m:ss`, minutes unbounded (a whole run is minutes, not hours)."""
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def load_durations(path: Path) -> dict[str, float]:
    """test id -> seconds of the last run; empty when there is none."""
    return read_seconds(path)


def spread(module_seconds: dict[str, float], nodeids: list[str]) -> dict[str, float]:
    """Each test's share of its module's seconds (the module's tests weigh the same), for the recorded modules."""
    tests_of = Counter(module_of(nodeid) for nodeid in nodeids)
    return {n: module_seconds[module_of(n)] / tests_of[module_of(n)] for n in nodeids if module_of(n) in module_seconds}


def _enough(known: dict[str, float], nodeids: list[str]) -> bool:
    # Half the tests measured at least: otherwise the weights say less than the count does.
    measured = sum(1 for n in nodeids if n in known)
    return measured > 0 and measured * 2 >= len(nodeids)


class Estimate:
    """Weights of the collected tests (seconds, from the last run) and how much of them is done."""

    def __init__(self, known: dict[str, float], module_seconds: dict[str, float] | None = None):
        self.known = known
        self.module_seconds = module_seconds or {}
        self.weights: dict[str, float] = {}
        self.done = 0.0
        self.finished: set[str] = set()
        self.by_count = False
        self.by_module = False

    def collected(self, nodeids: list[str]) -> None:
        shares = spread(self.module_seconds, nodeids)
        if not _enough(self.known, nodeids) and _enough(shares, nodeids):
            self.known, self.by_module = shares, True  # a fresh clone: the committed seconds of each module
        measured = [self.known[n] for n in nodeids if n in self.known]
        self.by_count = not _enough(self.known, nodeids)
        fallback = 1.0 if self.by_count else statistics.median(measured)
        # A floor: a test measured at 0.000 s still moves the needle when it ends.
        self.weights = {n: 1.0 if self.by_count else max(MIN_WEIGHT_S, self.known.get(n, fallback)) for n in nodeids}

    def finish(self, nodeid: str) -> None:
        if nodeid in self.weights and nodeid not in self.finished:
            self.finished.add(nodeid)
            self.done += self.weights[nodeid]

    @property
    def total(self) -> float:
        return sum(self.weights.values())

    def message(self, elapsed_s: float) -> str:
        total = self.total
        if not total:
            return f" [{clock(elapsed_s)} elapsed]"
        share = min(1.0, self.done / total)
        left = "" if self.done <= 0 else f", ~{clock((total - self.done) * elapsed_s / self.done)} left"
        return f" [{int(share * 100 + 1e-6):3d}% {clock(elapsed_s)} elapsed{left}]"  # sums in another order


class TimeProgress:
    """The plugin: registered by tests/conftest.py in the process that reports (not in pytest-xdist's workers)."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.path = durations_path()
        self.estimate = Estimate(load_durations(self.path), load_module_seconds())
        self.started = time.monotonic()
        self.measured: dict[str, float] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.started = time.monotonic()
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or getattr(reporter, "_show_progress_info", False) != "progress":
            return
        reporter._get_progress_information_message = lambda: self.estimate.message(time.monotonic() - self.started)

        # pytest leaves room for " [100%]" at the end of a line of dots; ours is wider.
        def past_edge() -> None:
            if reporter._width_of_current_line + len(WIDEST) + 1 >= reporter._screen_width:
                main_color, _ = reporter._get_main_color()
                reporter._tw.write(reporter._get_progress_information_message() + "\n", **{main_color: True})

        reporter._write_progress_information_if_past_edge = past_edge

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.estimate.collected([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.estimate.weights:  # every worker collects the same ids
            self.estimate.collected(list(ids))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.measured[report.nodeid] = self.measured.get(report.nodeid, 0.0) + report.duration
        if report.when == "teardown":  # every test ends with one, a failed or skipped setup's too
            self.estimate.finish(report.nodeid)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.measured:
            return
        merged = {**load_durations(self.path), **{k: round(v, 3) for k, v in self.measured.items()}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(json.dumps(merged, indent=0, sort_keys=True) + "\n", encoding="utf-8")
            temporary.replace(self.path)
        except OSError:  # a read-only checkout still runs its tests
            pass

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.estimate.by_count and self.estimate.weights:
            terminalreporter.write_line(
                f"progress was by test count (no durations of an earlier run in {self.path}); "
                "the next run shows it by time"
            )
        elif self.estimate.by_module and self.estimate.weights:
            terminalreporter.write_line(
                f"progress was by each module's seconds in the committed tests/data/test-durations.json (no "
                f"durations of an earlier run in {self.path}); the next run shows it by each test's"
            )


def register(config: pytest.Config) -> None:
    """Add the plugin where the terminal is: in a plain run, or in pytest-xdist's controller."""
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: its controller reports
        return
    config.pluginmanager.register(TimeProgress(config), "ddbguard-time-progress")
