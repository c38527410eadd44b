"""pytest's progress by time: elapsed and an estimate from the last run's durations, and the durations kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from local.paths import ROOT
from tests.support.progress import Estimate, clock

SUITE = {
    "conftest.py": (
        "from tests.support.progress import register\n\n\ndef pytest_configure(config):\n    register(config)\n"
    ),
    "test_small.py": "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n",
}


def _run(folder: Path, durations: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DDBGUARD_TEST_DURATIONS": str(durations), "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # a bare pytest: the installed plugins (schemathesis...) cost seconds
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(folder), "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_run_shows_elapsed_and_left_and_keeps_its_durations_for_the_next(tmp_path):
    for name, text in SUITE.items():
        (tmp_path / name).write_text(text)
    durations = tmp_path / "durations.json"
    first = _run(tmp_path, durations)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "elapsed" in first.stdout and "progress was by test count" in first.stdout, first.stdout
    kept = json.loads(durations.read_text())
    assert set(kept) == {"test_small.py::test_one", "test_small.py::test_two"}
    second = _run(tmp_path, durations)
    assert "elapsed" in second.stdout and "by test count" not in second.stdout, second.stdout
    assert "[100%" in second.stdout


def test_the_estimate_weighs_tests_by_their_last_durations():
    estimate = Estimate({"slow": 90.0, "fast": 10.0})
    estimate.collected(["slow", "fast", "new"])
    assert estimate.total == 90.0 + 10.0 + 50.0  # a test never measured weighs the median
    estimate.finish("fast")
    assert estimate.message(20.0) == " [  6% 0:20 elapsed, ~4:40 left]"  # 140 s of weight left at 2x its pace
    estimate.finish("fast")  # counted once
    assert estimate.done == 10.0
    assert clock(3725) == "62:05"


def test_with_too_few_durations_it_counts_tests():
    estimate = Estimate({"a": 1.0})
    estimate.collected(["a", "b", "c"])
    assert estimate.by_count and estimate.total == 3


def test_without_a_run_of_its_own_each_test_weighs_its_share_of_its_modules_committed_seconds():
    estimate = Estimate({}, {"a.py": 9.0, "b.py": 1.0})
    estimate.collected(["a.py::x", "a.py::y", "a.py::z", "b.py::w", "c.py::new"])
    assert estimate.by_module and not estimate.by_count
    assert estimate.weights == {"a.py::x": 3.0, "a.py::y": 3.0, "a.py::z": 3.0, "b.py::w": 1.0, "c.py::new": 3.0}
    estimate = Estimate({}, {"other.py": 9.0})
    estimate.collected(["a.py::x"])
    assert estimate.by_count and not estimate.by_module  # none of these modules recorded: by count
