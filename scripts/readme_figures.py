#!/usr/bin/env python3
"""The README's test figures, written from the last `make test` (`.local/test-run.json`, tests/suite.py).

    python scripts/readme_figures.py           prints the block the last run gives
    python scripts/readme_figures.py --write   rewrites it in README.md, and commits the run's record

The block, between `<!-- figures -->` and `<!-- /figures -->`: each tier's test count and summed test time, the
whole run's time, workers, cores and load average, and the date. Nobody types these numbers: `make figures`
writes them after a whole `make test`, with the run's record beside them (tests/data/readme-figures.json), and
tests/unit/test_readme_figures.py fails when the README's block is not what that record gives. A later run whose
counts differ says so at its end, naming this command (tests/suite.py), without failing: a change that adds tests
(a team's new resource adds derived ones) must not fail its own first run. `--write` also commits the run's seconds
per test module to tests/data/test-durations.json: `make test` hands out its longest units first by them
(tests/support/scheduling.py), and shows progress by them in a clone that has no run of its own yet.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LAST_RUN = ROOT / ".local" / "test-run.json"
MODULE_DURATIONS = ROOT / "tests" / "data" / "test-durations.json"
# The whole run the README's block was written from (its figures, without the seconds of each module).
RECORDED_RUN = ROOT / "tests" / "data" / "readme-figures.json"
BLOCK = re.compile(r"(<!-- figures[^>]*-->\n)(.*?)(<!-- /figures -->)", re.DOTALL)
ROW = re.compile(r"^\| `([a-z-]+)` \| (\d[\d,]*) \|", re.MULTILINE)
# What each tier is, in the order a reader meets them.
TIERS = {
    "unit": "`tests/unit/`",
    "integration": "`tests/integration/`",
    "http": "`tests/http/`",
    "api": "`tests/api/`",
    "infra": "`tests/infra/`",
    "browser": "tests marked `browser`",
    "whole-suite": "`tests/test_*.py`, run last",
}
OUTCOMES = ("passed", "failed", "error", "skipped")


def collected(counts: dict[str, Any]) -> int:
    return sum(int(counts.get(outcome, 0)) for outcome in OUTCOMES)


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}:{rest:02d}"


def render(run: dict[str, Any]) -> str:
    tiers: dict[str, dict[str, Any]] = run["tiers"]
    order = [tier for tier in TIERS if tier in tiers] + sorted(set(tiers) - set(TIERS))
    lines = ["| tier | tests | test time, summed | what |", "| --- | ---: | ---: | --- |"]
    for tier in order:
        counts = tiers[tier]
        ran = any(int(counts.get(o, 0)) for o in ("passed", "failed", "error"))
        what = TIERS.get(tier, "") + ("" if ran else " (skipped in that run)")
        lines.append(f"| `{tier}` | {collected(counts):,} | {_clock(float(counts.get('seconds', 0)))} | {what} |")
    total = sum(collected(counts) for counts in tiers.values())
    lines.append(f"| all | {total:,} | | |")
    lines.append("")
    lines.append(
        f"Last whole `make test`: {_clock(run['pytest_seconds'])} of pytest (both runs), {run['workers']} workers on "
        f"{run['cores']} cores, load average {run['load_average_before']} at the start and "
        f"{run['load_average_after']} at the end, {run['date']}."
    )
    return "\n".join(lines) + "\n"


def documented_counts(text: str) -> dict[str, int]:
    """tier -> test count, as the README's block states them."""
    found = BLOCK.search(text)
    if found is None:
        raise ValueError("README.md has no figures block (<!-- figures --> ... <!-- /figures -->)")
    return {tier: int(count.replace(",", "")) for tier, count in ROW.findall(found.group(2))}


def recorded_run() -> dict[str, Any]:
    """The committed record of the run the README's figures come from."""
    return dict(json.loads(RECORDED_RUN.read_text(encoding="utf-8")))


def changed_counts(recorded: dict[str, Any], tiers: dict[str, dict[str, Any]]) -> list[str]:
    """`tier old -> new` for each tier whose test count in `tiers` (a run's) differs from the recorded run's."""
    before = {tier: collected(counts) for tier, counts in recorded["tiers"].items()}
    after = {tier: collected(counts) for tier, counts in tiers.items()}
    return [
        f"{tier} {before.get(tier, 0)} -> {after.get(tier, 0)}"
        for tier in sorted(set(before) | set(after))
        if before.get(tier, 0) != after.get(tier, 0)
    ]


def rewritten(text: str, block: str) -> str:
    if not BLOCK.search(text):
        raise ValueError("README.md has no figures block (<!-- figures --> ... <!-- /figures -->)")
    return BLOCK.sub(lambda found: f"{found.group(1)}{block}{found.group(3)}", text, count=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the block in README.md")
    args = parser.parse_args(argv)
    try:
        run = json.loads(LAST_RUN.read_text(encoding="utf-8"))
    except OSError:
        print(f"ddbguard: no {LAST_RUN.relative_to(ROOT)}: run `make test` first", file=sys.stderr)
        return 2
    if not run.get("whole_suite"):
        print("ddbguard: the last `make test` ran part of the suite: its figures are not the README's", file=sys.stderr)
        return 2
    block = render(run)
    if not args.write:
        sys.stdout.write(block)
        return 0
    README.write_text(rewritten(README.read_text(encoding="utf-8"), block), encoding="utf-8")
    recorded = {key: value for key, value in run.items() if key != "module_seconds"}
    RECORDED_RUN.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"ddbguard: wrote the test figures of {run['date']} into README.md and {RECORDED_RUN.relative_to(ROOT)}")
    modules = run.get("module_seconds")
    if modules:
        MODULE_DURATIONS.write_text(json.dumps(modules, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"ddbguard: wrote the seconds of {len(modules)} test modules into tests/data/test-durations.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
