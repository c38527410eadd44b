"""Which tier ran: a line per tier at the end of every run, and the counts for `make test`'s closing line.

Tiers are the folders of tests/ (unit, integration, http, api, infra), the whole-suite checks (tests/*.py), and
the browser tier: tests marked `browser` (tests/support/browser.py), wherever they live. A tier whose every test
was skipped is reported as skipped with the first reason, which names the command that adds what it lacks (for
the browser: `make browser`): never as a pass. `--tiers-report PATH` writes the counts as JSON (tests/suite.py),
with the seconds of each module.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import MARKER as BROWSER_MARKER

REPORT_OPTION = "--tiers-report"
# Set by `make test` (tests/suite.py) for its second run: the first run's report, whose counts the checks read.
FIRST_RUN_VARIABLE = "DDBGUARD_SUITE_TIERS"
OUTCOMES = ("passed", "failed", "error", "skipped")
WHOLE_SUITE_TIER = "whole-suite"
PLUGIN_NAME = "ddbguard-tiers"


def tier_of(nodeid: str, keywords: dict[str, Any] | Any) -> str:
    if BROWSER_MARKER in keywords:
        return "browser"
    parts = nodeid.split("::", 1)[0].split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else WHOLE_SUITE_TIER


def outcome_of(report: pytest.TestReport) -> str | None:
    """The test's outcome this report decides, if any: the call's, or a setup/teardown that did not pass."""
    if report.when == "call":
        return "failed" if report.failed else report.outcome
    if report.when == "setup" and not report.passed:
        return "skipped" if report.skipped else "error"
    if report.when == "teardown" and report.failed:
        return "error"
    return None


def skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


class TierReport:
    def __init__(self, config: pytest.Config):
        self.config = config
        self.counts: dict[str, Counter[str]] = {}
        self.seconds: dict[str, float] = {}  # test time summed per tier (the tiers run side by side)
        self.module_seconds: dict[str, float] = {}  # and per module: `make figures` keeps them for the scheduler
        self.skip_reasons: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        tier = tier_of(report.nodeid, report.keywords)
        self.seconds[tier] = self.seconds.get(tier, 0.0) + report.duration
        module = report.nodeid.split("::", 1)[0]
        self.module_seconds[module] = self.module_seconds.get(module, 0.0) + report.duration
        outcome = outcome_of(report)
        if outcome is None:
            return
        self.counts.setdefault(tier, Counter())[outcome] += 1
        if outcome == "skipped":
            self.skip_reasons.setdefault(tier, skip_reason(report))

    def lines(self) -> list[str]:
        lines = []
        for tier in sorted(self.counts):
            counts = self.counts[tier]
            said = ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts[o])
            if counts["skipped"] and not (counts["passed"] or counts["failed"] or counts["error"]):
                lines.append(f"{tier}: SKIPPED ({said}): {self.skip_reasons[tier]}")
            else:
                lines.append(f"{tier}: ran ({said})")
        return lines

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.counts:
            terminalreporter.section("tiers")
            for line in self.lines():
                terminalreporter.write_line(line)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        path = self.config.getoption(REPORT_OPTION, default=None)
        if path:
            report = {
                tier: {**{o: counts[o] for o in OUTCOMES}, "seconds": round(self.seconds.get(tier, 0.0), 1)}
                for tier, counts in sorted(self.counts.items())
            }
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(
                json.dumps(
                    {
                        "tiers": report,
                        "skipped_because": self.skip_reasons,
                        "module_seconds": {m: round(s, 1) for m, s in sorted(self.module_seconds.items())},
                    },
                    indent=1,
                )
                + "\n",
                encoding="utf-8",
            )


def counts_of_this_run(config: pytest.Config) -> dict[str, dict[str, int]]:
    """tier -> outcome -> count of the tests reported so far: `make test`'s first run's, or this process's."""
    first_run = os.environ.get(FIRST_RUN_VARIABLE)
    if first_run:
        tiers: dict[str, dict[str, int]] = json.loads(Path(first_run).read_text(encoding="utf-8"))["tiers"]
        return {tier: {o: int(counts.get(o, 0)) for o in OUTCOMES} for tier, counts in tiers.items()}
    plugin = config.pluginmanager.get_plugin(PLUGIN_NAME)
    assert isinstance(plugin, TierReport), "tests/conftest.py registers the tier report"
    return {tier: {o: counts[o] for o in OUTCOMES} for tier, counts in plugin.counts.items()}


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(REPORT_OPTION, default=None, help="write the counts of each tier here as JSON")


def register(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: its controller counts every report
        return
    config.pluginmanager.register(TierReport(config), PLUGIN_NAME)
