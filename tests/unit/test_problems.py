"""RFC 9457 problem details, and the one table that maps each domain error to a status."""

from __future__ import annotations

import json

import pytest

from ddbguard import errors
from ddbguard.errors import FieldError
from ddbguard_api.http.problems import (
    PROBLEM_JSON,
    TYPE_BASE,
    EdgeError,
    from_busy,
    from_domain_error,
    from_edge_error,
    problem,
    problem_document,
    problem_type,
    status_of,
)
from ddbguard_api.http.replies import proxy_response


def test_document_has_the_rfc_9457_members_and_the_code():
    body = problem_document(409, "unique_violation", "Already taken.")

    assert body == {
        "type": TYPE_BASE + "unique-violation",
        "title": "Conflict",
        "status": 409,
        "detail": "Already taken.",
        "code": "unique_violation",
    }


def test_type_is_an_absolute_uri_per_code():
    assert problem_type("insufficient_funds") == TYPE_BASE + "insufficient-funds"
    # Relative, under our own path: no domain the project does not control.
    assert TYPE_BASE == "/problems/"
    assert problem_type("a") != problem_type("b")


def test_field_errors_and_extra_members():
    body = problem_document(
        422,
        "validation_failed",
        "Bad.",
        field_errors=[FieldError("email", "too_long", "Too long.")],
        extra={"availableCents": 5},
    )

    assert body["errors"] == [{"field": "email", "code": "too_long", "message": "Too long."}]
    assert body["availableCents"] == 5
    assert body["title"] == "Unprocessable Content"
    assert "errors" not in problem_document(400, "x", "y", field_errors=[])


EXPECTED_STATUS = [
    (errors.NotFound("account_not_found", "No."), 404),
    (errors.AlreadyExists("Exists."), 409),
    (errors.UniqueViolation(["email"]), 409),
    (errors.VersionConflict({"version": 4}, 3), 412),
    (errors.InvalidTransition("PAID", "PENDING"), 409),
    (errors.InsufficientFunds(1, 2), 409),
    (errors.HoldSettled("h", "CAPTURED"), 409),
    (errors.BalanceNotZero("Money."), 409),
    (errors.LedgerUnsettled("a", 2), 409),
    (errors.AccountClosing("a", "toAccountId"), 409),
    (errors.InvalidInput("Bad."), 422),
    (errors.IdempotencyKeyReused(), 422),
]


@pytest.mark.parametrize(("error", "status"), EXPECTED_STATUS, ids=lambda v: type(v).__name__)
def test_every_domain_error_has_its_status(error, status):
    assert status_of(error) == status
    reply = from_domain_error(error)
    assert reply.status == status
    body = reply.body
    assert (body["status"], body["code"], body["detail"]) == (status, error.code, error.detail)


def test_every_domain_error_subclass_is_covered():
    def subclasses(cls: type) -> set[type]:
        found: set[type] = set()
        subs: list[type] = cls.__subclasses__()
        for sub in subs:
            found |= {sub, *subclasses(sub)}
        return found

    assert subclasses(errors.DomainError) <= {type(e) for e, _ in EXPECTED_STATUS}


def test_a_subclass_falls_back_to_its_nearest_listed_base():
    class OrderNotFound(errors.NotFound):
        pass

    assert status_of(OrderNotFound("order_not_found", "No.")) == 404


def test_version_conflict_carries_the_current_etag_and_item():
    reply = from_domain_error(errors.VersionConflict({"version": 7, "status": "PAID"}, 6))

    assert reply.headers["ETag"] == '"7"'
    assert reply.body["current"] == {"version": 7, "status": "PAID"}
    assert "ETag" not in from_domain_error(errors.VersionConflict({}, 6)).headers


def test_field_errors_of_a_domain_error_reach_the_body():
    body = from_domain_error(errors.UniqueViolation(["email", "username"])).body
    assert [(e["field"], e["code"]) for e in body["errors"]] == [("email", "taken"), ("username", "taken")]


def test_problem_is_a_proxy_response_with_the_problem_media_type():
    response = proxy_response(problem(503, "busy", "Try again.", headers={"Retry-After": "1"}))

    assert response["statusCode"] == 503
    assert response["multiValueHeaders"] == {"Content-Type": [PROBLEM_JSON], "Retry-After": ["1"]}
    assert PROBLEM_JSON == "application/problem+json"
    assert json.loads(response["body"])["title"] == "Service Unavailable"


def test_problem_body_keeps_non_ascii_text_and_rfc_member_order():
    response = proxy_response(problem(422, "validation_failed", "Straße ist ungültig."))
    assert "Straße" in response["body"]
    assert list(json.loads(response["body"])) == ["type", "title", "status", "detail", "code"]


@pytest.mark.parametrize(
    ("error", "status", "code", "retry_after"),
    [
        (errors.Busy("conflicts", 2), 503, "busy", "2"),
        (errors.Busy("no answer", outcome_unknown=True), 503, "busy", "1"),
        (errors.SettlementBehind("a", 7), 503, "settlement_behind", "7"),
    ],
    ids=["busy", "outcome-unknown", "settlement-behind"],
)
def test_busy_is_503_with_retry_after(error, status, code, retry_after):
    reply = from_busy(error)
    assert (reply.status, reply.body["code"], reply.headers["Retry-After"]) == (status, code, retry_after)
    assert ("same Idempotency-Key" in reply.body["detail"]) == error.outcome_unknown


def test_settlement_behind_names_the_side_of_a_transfer_it_refuses():
    refused = from_busy(errors.SettlementBehind("a", field="toAccountId"))
    assert [e["field"] for e in refused.body["errors"]] == ["toAccountId"]
    assert "errors" not in from_busy(errors.SettlementBehind("a")).body


def test_an_edge_refusal_keeps_its_status_code_and_field_errors():
    error = EdgeError(400, "invalid_if_match", "Bad.", [FieldError("If-Match", "malformed", "Bad.")])
    reply = from_edge_error(error)
    assert (reply.status, reply.body["code"], reply.body["errors"][0]["field"]) == (400, "invalid_if_match", "If-Match")
