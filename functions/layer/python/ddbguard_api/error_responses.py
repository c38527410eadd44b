"""Error mapping at the edge: every failure a request can meet, as one problem+json response."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyValidationError

from ddbguard.errors import Busy, DomainError, SettlementBehind
from ddbguard.observability import logger
from ddbguard_api import problems
from ddbguard_api.edge_errors import EdgeError

# Failures a request meets on its way (never a bug): caught and answered as a problem. Powertools raises
# IdempotencyValidationError when its local cache holds this key for another fingerprint; its in-progress
# and persistence errors cannot occur (its persistence layer keeps no records of its own, and none in progress).
EXPECTED = (EdgeError, IdempotencyValidationError, Busy)


def refusal(error: DomainError, route_key: str) -> dict[str, Any]:
    """A domain refusal: it wrote nothing, its marker included, so a retry with the same key decides afresh."""
    logger.info("refused", extra={"code": error.code, "route": route_key})
    return problems.from_domain_error(error)


def failure(error: Exception) -> dict[str, Any]:
    """One of EXPECTED, as its problem response."""
    if isinstance(error, EdgeError):
        return problems.problem(error.status, error.code, error.detail, field_errors=error.errors)
    if isinstance(error, IdempotencyValidationError):
        return problems.problem(
            422, "idempotency_key_reused", "This Idempotency-Key was already used with a different request."
        )
    if isinstance(error, SettlementBehind):
        detail = "This ledger's settlement is behind; nothing was written. Retry later."
        return problems.problem(503, error.code, detail, headers={"Retry-After": str(error.retry_after_s)})
    logger.warning("busy", extra={"reason": str(error)})
    detail = (
        "The store did not answer in time; retry with the same Idempotency-Key."
        if getattr(error, "outcome_unknown", False)
        else "The store is busy; nothing was written. Retry later."
    )
    retry_after = str(getattr(error, "retry_after_s", 1))
    return problems.problem(503, "busy", detail, headers={"Retry-After": retry_after})


def no_route() -> dict[str, Any]:
    """The path did not fit this function's route."""
    return problems.problem(404, "not_found", "No such resource.")


def unexpected() -> dict[str, Any]:
    logger.exception("unexpected error")
    return problems.problem(500, "internal_error", "Something went wrong on our side.")
