"""Least privilege, measured: every DynamoDB call a function made in this session is one its grant allows,
and every grant was needed by some call.

conftest.py orders this test last and attaches the recorder (tests/support/table_access.py) to ddbguard's
client; the observations are written to `.local/table-access.json`. The grants are the route table's
declarations, which infra/ turns into IAM statements (tests/infra/test_iam.py checks the template).
"""

from __future__ import annotations

import pytest

from infra import constants
from local.paths import ROOT
from tests.support.table_access import SESSION_LOG, WHOLE_SUITE, ungranted_calls, unused_grants

REPORT = ROOT / ".local" / "table-access.json"


def test_every_call_is_granted_and_every_grant_is_used(request: pytest.FixtureRequest) -> None:
    observed = SESSION_LOG.as_json()
    SESSION_LOG.write(REPORT)
    assert ungranted_calls(observed) == [], f"calls outside the grants (observed: {REPORT})"
    if not request.config.stash.get(WHOLE_SUITE, False):
        pytest.skip("a partial run cannot tell an unused grant; `make test` runs the whole check")
    if request.session.testsfailed:
        pytest.skip("other tests failed, so some calls may not have been made: unused grants not judged")
    assert unused_grants(observed) == [], f"grants no call needed (observed: {REPORT})"


def test_every_operation_called_is_a_term_of_the_table_system_error_alarm() -> None:
    """The alarm (infra/monitoring.py) sums SystemErrors over constants.TABLE_OPERATIONS: none may be missing."""
    assert SESSION_LOG.operations, "no DynamoDB call was recorded"
    assert SESSION_LOG.operations <= set(constants.TABLE_OPERATIONS)
