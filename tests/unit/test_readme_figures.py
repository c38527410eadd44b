"""The README's test figures are a whole run's, written by `make figures` (scripts/readme_figures.py): the block is
exactly what the committed record of that run (tests/data/readme-figures.json) gives, so no figure is typed by hand.

A later run with other counts does not fail here: tests/suite.py names the change and `make figures` at its end.
"""

from __future__ import annotations

from local.paths import ROOT
from scripts.readme_figures import BLOCK, changed_counts, documented_counts, recorded_run, render


def test_the_readme_block_is_what_the_recorded_run_gives() -> None:
    found = BLOCK.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found is not None, "README.md has lost its figures block"
    assert found.group(2) == render(recorded_run()), "the README's figures were edited by hand: run `make figures`"


def test_the_recorded_run_was_a_whole_suite_with_every_tier() -> None:
    run = recorded_run()
    assert run["whole_suite"] is True
    assert {"unit", "integration", "http", "api", "infra", "whole-suite"} <= set(run["tiers"])
    assert documented_counts((ROOT / "README.md").read_text(encoding="utf-8"))


def test_a_run_with_other_counts_is_named_tier_by_tier() -> None:
    recorded = {"tiers": {"unit": {"passed": 3}, "infra": {"passed": 2, "skipped": 1}}}
    run = {"unit": {"passed": 4}, "infra": {"passed": 3}, "api": {"failed": 1}}
    assert changed_counts(recorded, run) == ["api 0 -> 1", "unit 3 -> 4"]
    assert changed_counts(recorded, recorded["tiers"]) == []
