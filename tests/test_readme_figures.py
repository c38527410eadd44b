"""The README's test counts are this run's: `make figures` (scripts/readme_figures.py) writes them after a whole
`make test`, and a whole run whose counts differ fails here, naming that command.

A whole-suite check (tests/support/whole_suite.py): it runs after every other test, in one process or in
`make test`'s second run, where it reads the first run's counts (DDBGUARD_SUITE_TIERS).
"""

from __future__ import annotations

import pytest

from local.paths import ROOT
from scripts.readme_figures import collected, documented_counts
from tests.support.tiers import WHOLE_SUITE_TIER, counts_of_this_run
from tests.support.whole_suite import is_check, read_record, whole_suite


def test_the_readme_states_the_test_count_of_every_tier(request: pytest.FixtureRequest) -> None:
    record = read_record()
    if not (record.whole_suite if record else whole_suite(request.config)):
        pytest.skip("a partial run has partial counts; `make test` checks the README's")
    counts = {tier: collected(outcomes) for tier, outcomes in counts_of_this_run(request.config).items()}
    # This tier is still running: its size is what was collected of it.
    counts[WHOLE_SUITE_TIER] = sum(1 for item in request.session.items if is_check(item))
    documented = documented_counts((ROOT / "README.md").read_text(encoding="utf-8"))
    assert documented == counts, "the README's test counts are stale: after a whole `make test`, run `make figures`"
