"""Least privilege, measured: every DynamoDB call a function made in this session is one its grant allows,
and every grant was needed by some call.

conftest.py attaches the recorder (tests/support/table_access.py) to ddbguard's client and orders this test last;
under pytest-xdist (`make test`) each worker records its own calls and this test runs in a second pytest run on
all of them (tests/support/whole_suite.py). The observations are written to `.local/table-access.json`. The grants
are the route table's declarations, which infra/ turns into IAM statements (tests/infra/test_iam.py checks the
template).
"""

from __future__ import annotations

import pytest

from infra import constants
from local.paths import ROOT
from tests.support.table_access import SESSION_LOG, ungranted_calls, unused_grants
from tests.support.whole_suite import Record, read_record, whole_suite

REPORT = ROOT / ".local" / "table-access.json"


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Record:
    """The calls to judge: make test's first run's, or this session's own."""
    return read_record() or Record(SESSION_LOG, whole_suite(request.config), request.session.testsfailed)


def test_every_call_is_granted_and_every_grant_is_used(record: Record) -> None:
    observed = record.log.as_json()
    record.log.write(REPORT)
    assert ungranted_calls(observed) == [], f"calls outside the grants (observed: {REPORT})"
    if not record.whole_suite:
        pytest.skip("a partial run cannot tell an unused grant; `make test` runs the whole check")
    # Judged even when other tests failed, so an unused grant shows on the run that made it, not only the next one;
    # the message says when a failed test may have skipped the call a grant is for.
    unused = unused_grants(observed)
    caveat = (
        f"; {record.failed} other test(s) failed, so a call they would have made may be missing"
        if record.failed
        else ""
    )
    assert unused == [], f"grants no call needed (observed: {REPORT}){caveat}"


def test_every_operation_called_is_a_term_of_the_table_system_error_alarm(record: Record) -> None:
    """The alarm (infra/monitoring.py) sums SystemErrors over constants.TABLE_OPERATIONS: none may be missing."""
    assert record.log.operations, "no DynamoDB call was recorded"
    assert record.log.operations <= set(constants.TABLE_OPERATIONS)
