"""`make test`: every tier in parallel (pytest-xdist), then the whole-suite checks on every call the run made.

    python -m tests.suite [--workers N] [pytest arguments...]

Run 1: pytest with N workers (default: one more than the cores, at least 3). Each worker has its own DynamoDB Local (the
session fixture of tests/conftest.py), and runs whole modules (`--dist loadscope`), so a module's expensive
fixtures (a synthesized stack, a `make run`) are built once. The workers' DynamoDB calls go to the controller,
which writes them to one record (tests/support/whole_suite.py). Run 2: the whole-suite checks on that record, with
the same judgement as in one process: every call granted, every grant used when the whole suite ran and passed
(tests/test_table_access.py). Then one
line per tier (tests/support/tiers.py: a browser tier without a browser is SKIPPED, with the command that adds
it), the closing line `suite: N passed, N failed, N skipped`, and the run's figures in
`.local/test-run.json` for `make figures` (scripts/readme_figures.py), with the load average before and after
and the seconds of each module (the durations the scheduler orders work by, tests/support/scheduling.py). A whole
run whose test counts differ from those the README states says so, naming `make figures`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from local.paths import ROOT
from scripts.readme_figures import changed_counts, recorded_run
from tests.support.tiers import FIRST_RUN_VARIABLE, OUTCOMES
from tests.support.whole_suite import CHECKS as WHOLE_SUITE_CHECKS
from tests.support.whole_suite import RECORD_OPTION, RECORD_VARIABLE

RUN_DIR = ROOT / ".local" / "suite"
FIGURES = ROOT / ".local" / "test-run.json"
CHECKS = tuple(f"tests/{name}" for name in WHOLE_SUITE_CHECKS)


def default_workers() -> int:
    # One more worker than cores: part of run 1 waits on subprocesses (make run, Chromium, the AWS and schemathesis
    # CLIs), which a third worker fills. Idle 2 cores, same commit: 8:06 with 2 workers, 7:34 with 3.
    return max(3, (os.cpu_count() or 1) + 1)


def _tiers(path: Path) -> dict[str, dict[str, int]]:
    try:
        return dict(json.loads(path.read_text(encoding="utf-8"))["tiers"])
    except (OSError, ValueError, KeyError):
        return {}


def _module_seconds(path: Path) -> dict[str, float]:
    try:
        return dict(json.loads(path.read_text(encoding="utf-8"))["module_seconds"])
    except (OSError, ValueError, KeyError):
        return {}


def _skips(path: Path) -> dict[str, str]:
    try:
        return dict(json.loads(path.read_text(encoding="utf-8"))["skipped_because"])
    except (OSError, ValueError, KeyError):
        return {}


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def tier_lines(tiers: dict[str, dict[str, int]], skips: dict[str, str]) -> list[str]:
    lines = []
    for tier, counts in sorted(tiers.items()):
        said = ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts.get(o))
        ran = any(counts.get(o) for o in ("passed", "failed", "error"))
        lines.append(f"  {tier}: {'ran' if ran else 'SKIPPED'} ({said})" + ("" if ran else f": {skips.get(tier)}"))
    return lines


def closing_line(tiers: dict[str, dict[str, int]]) -> str:
    total: Counter[str] = Counter()
    for counts in tiers.values():
        total.update(counts)
    failed = total["failed"] + total["error"]
    return f"suite: {total['passed']} passed, {failed} failed, {total['skipped']} skipped"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.suite", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=default_workers(), help="pytest-xdist workers (1: none)")
    args, pytest_args = parser.parse_known_args(argv)
    shutil.rmtree(RUN_DIR, ignore_errors=True)
    RUN_DIR.mkdir(parents=True)
    record, first_tiers, second_tiers = RUN_DIR / "record.json", RUN_DIR / "tiers-1.json", RUN_DIR / "tiers-2.json"
    parallel = ["-n", str(args.workers), "--dist", "loadscope"] if args.workers > 1 else []
    load_before, started = _load(), time.monotonic()
    print(f"ddbguard: run 1 of 2: every tier, {args.workers} worker(s), load average {load_before}", flush=True)
    recorded = [RECORD_OPTION, str(record), "--tiers-report", str(first_tiers)]
    first = subprocess.call([sys.executable, "-m", "pytest", *parallel, *recorded, *pytest_args], cwd=ROOT)
    if not record.exists():  # the run stopped before its end (collection error, interrupted): nothing to judge
        return first or 1
    print("ddbguard: run 2 of 2: the whole-suite checks on every call run 1 made", flush=True)
    second = subprocess.call(
        [sys.executable, "-m", "pytest", *CHECKS, "-p", "no:xdist", "--tiers-report", str(second_tiers)],
        cwd=ROOT,
        env={**os.environ, RECORD_VARIABLE: str(record), FIRST_RUN_VARIABLE: str(first_tiers)},
    )
    elapsed = time.monotonic() - started
    tiers = {**_tiers(first_tiers), **_tiers(second_tiers)}
    skips = {**_skips(first_tiers), **_skips(second_tiers)}
    figures = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "pytest_seconds": round(elapsed),
        "workers": args.workers,
        "cores": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": _load(),
        "whole_suite": bool(json.loads(record.read_text(encoding="utf-8"))["whole_suite"]),
        "tiers": tiers,
        # Run 1's seconds per module: `make figures` commits them (tests/data/test-durations.json) for the scheduler.
        "module_seconds": _module_seconds(first_tiers),
    }
    FIGURES.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    minutes, seconds = divmod(round(elapsed), 60)
    print(f"ddbguard: both runs took {minutes}:{seconds:02d} (load average {load_before} -> {_load()}); tiers:")
    print("\n".join(tier_lines(tiers, skips)))
    changed = changed_counts(recorded_run(), tiers) if figures["whole_suite"] else []
    if changed:
        said = ", ".join(changed)
        print(f"ddbguard: the README's test counts are an earlier run's ({said}): `make figures` writes this run's")
    print(closing_line(tiers), flush=True)
    return first or second


if __name__ == "__main__":
    sys.exit(main())
