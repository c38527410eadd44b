"""Every failure a request can meet, as an RFC 9457 problem+json reply: the one module that does this.

A domain refusal (`ddbguard.errors.DomainError`) maps to its status through `STATUS_BY_ERROR`; a refusal the
edge decides before the domain is asked anything is an `EdgeError`; `Busy` (and `SettlementBehind`) answer 503
with `Retry-After`. `problem_document` renders the body alone: API Gateway's own error responses use it too, so
every error of the API has the same shape whoever answers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus

from ddbguard import errors as domain
from ddbguard.errors import Busy, FieldError, SettlementBehind
from ddbguard_api.http.replies import Reply, etag

__all__ = [
    "PROBLEM_JSON",
    "STATUS_BY_ERROR",
    "TYPE_BASE",
    "EdgeError",
    "from_busy",
    "from_domain_error",
    "from_edge_error",
    "no_route",
    "problem",
    "problem_document",
    "problem_type",
    "status_of",
    "unexpected",
]

PROBLEM_JSON = "application/problem+json"
# Relative URI references (RFC 9457 allows them): identifiers under our own path, never a page on someone
# else's domain; `code` carries the same name in snake_case.
TYPE_BASE = "/problems/"

# Exact class -> status; a subclass not listed falls back to its nearest listed base.
STATUS_BY_ERROR: dict[type[domain.DomainError], int] = {
    domain.NotFound: 404,
    domain.AlreadyExists: 409,
    domain.UniqueViolation: 409,
    domain.InvalidTransition: 409,
    domain.InsufficientFunds: 409,
    domain.HoldSettled: 409,
    domain.BalanceNotZero: 409,
    domain.LedgerUnsettled: 409,
    domain.AccountClosing: 409,
    domain.VersionConflict: 412,
    domain.InvalidInput: 422,
    domain.IdempotencyKeyReused: 422,
}


class EdgeError(Exception):
    """A refusal decided at the edge, before the domain is asked anything (header, body, path, identity)."""

    def __init__(self, status: int, code: str, detail: str, errors: list[FieldError] | None = None):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors or []


def status_of(error: domain.DomainError) -> int:
    for cls in type(error).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return 409


def problem_type(code: str) -> str:
    """The `type` URI of a problem code: the same for handlers, the local server and API Gateway."""
    return TYPE_BASE + code.replace("_", "-")


def problem_document(
    status: int,
    code: str,
    detail: str,
    *,
    field_errors: list[FieldError] | None = None,
    extra: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """The RFC 9457 body every error of the API carries, whoever answers it."""
    body: dict[str, object] = {
        "type": problem_type(code),
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if field_errors:
        body["errors"] = [{"field": e.field, "code": e.code, "message": e.message} for e in field_errors]
    if extra:
        body.update(extra)
    return body


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    field_errors: list[FieldError] | None = None,
    extra: Mapping[str, object] | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """A reply carrying a problem document."""
    body = problem_document(status, code, detail, field_errors=field_errors, extra=extra)
    return Reply(status, body, {"Content-Type": PROBLEM_JSON, **(headers or {})})


def from_domain_error(error: domain.DomainError) -> Reply:
    """A domain refusal: it wrote nothing, its request marker included, so a retry with the same key decides
    afresh."""
    headers = {}
    if isinstance(error, domain.VersionConflict) and isinstance(error.current.get("version"), int):
        headers["ETag"] = etag(error.current["version"])
    if isinstance(error, domain.LedgerUnsettled):  # a conflict that resolves itself: say when to try again
        headers["Retry-After"] = str(error.retry_after_s)
    return problem(
        status_of(error), error.code, error.detail, field_errors=error.errors, extra=error.extra, headers=headers
    )


def from_edge_error(error: EdgeError) -> Reply:
    return problem(error.status, error.code, error.detail, field_errors=error.errors)


def from_busy(error: Busy) -> Reply:
    """503 with Retry-After: nothing was written (or, `outcome_unknown`, the store never answered)."""
    if isinstance(error, SettlementBehind):
        detail = "This ledger's settlement is behind; nothing was written. Retry later."
        errors = [FieldError(error.field, "settlement_behind", detail)] if error.field else None
        return problem(503, error.code, detail, field_errors=errors, headers={"Retry-After": str(error.retry_after_s)})
    detail = (
        "The store did not answer in time; retry with the same Idempotency-Key."
        if error.outcome_unknown
        else "The store is busy; nothing was written. Retry later."
    )
    return problem(503, "busy", detail, headers={"Retry-After": str(error.retry_after_s)})


def no_route() -> Reply:
    """The event is not for this function's route (method or resource): nothing here answers it."""
    return problem(404, "not_found", "No such resource.")


def unexpected() -> Reply:
    """A bug: the details stay in the log."""
    return problem(500, "internal_error", "Something went wrong on our side.")
