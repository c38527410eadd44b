"""The one transient-error policy: what counts as busy, and when a write's outcome is unknown."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError, ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError

from ddbguard.errors import Busy
from ddbguard.store.transient import TRANSIENT_CODES, busy_when_transient, error_code, is_transient


def client_error(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "m"}}, "TransactWriteItems")


@pytest.mark.parametrize(
    "code",
    [
        "TransactionConflict",
        "TransactionInProgressException",
        "ThrottlingException",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
    ],
)
def test_busy_codes_are_transient(code):
    assert is_transient(code)
    assert code in TRANSIENT_CODES


@pytest.mark.parametrize(
    "code",
    ["ConditionalCheckFailed", "ConditionalCheckFailedException", "ValidationException", "None", "", None],
)
def test_refusals_and_mistakes_are_not_transient(code):
    assert not is_transient(code)


def test_error_code_reads_the_response():
    assert error_code(client_error("ThrottlingException")) == "ThrottlingException"
    assert error_code(ClientError({}, "GetItem")) == ""


CONNECTION_ERRORS = [
    EndpointConnectionError(endpoint_url="http://x"),
    ConnectTimeoutError(endpoint_url="http://x"),
    ReadTimeoutError(endpoint_url="http://x"),
]


@pytest.mark.parametrize("error", CONNECTION_ERRORS, ids=lambda e: type(e).__name__)
def test_a_write_that_never_heard_back_has_an_unknown_outcome(error):
    with pytest.raises(Busy) as busy, busy_when_transient(writes=True):
        raise error
    assert busy.value.outcome_unknown is True
    assert busy.value.retry_after_s >= 1


@pytest.mark.parametrize("error", CONNECTION_ERRORS, ids=lambda e: type(e).__name__)
def test_a_read_that_never_heard_back_changed_nothing(error):
    with pytest.raises(Busy) as busy, busy_when_transient(writes=False):
        raise error
    assert busy.value.outcome_unknown is False


@pytest.mark.parametrize("writes", [True, False])
def test_a_transient_answer_is_busy_and_nothing_was_written(writes):
    with pytest.raises(Busy) as busy, busy_when_transient(writes=writes):
        raise client_error("ProvisionedThroughputExceededException")
    assert busy.value.outcome_unknown is False
    assert "ProvisionedThroughputExceededException" in busy.value.reason


def test_other_client_errors_propagate_unchanged():
    error = client_error("ValidationException")
    with pytest.raises(ClientError) as raised, busy_when_transient(writes=True):
        raise error
    assert raised.value is error


def test_other_exceptions_and_success_pass_through():
    with busy_when_transient(writes=True):
        pass
    with pytest.raises(KeyError), busy_when_transient(writes=True):
        raise KeyError("x")
