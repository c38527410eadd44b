"""RFC 9457 problem details, and the one table that maps domain errors to HTTP statuses."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from ddbguard import errors as domain
from ddbguard.errors import FieldError
from ddbguard_api.replies import etag, json_body

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
    domain.VersionConflict: 412,
    domain.InvalidInput: 422,
    domain.IdempotencyKeyReused: 422,
}


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
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The RFC 9457 body every error of the API carries, whoever answers it."""
    body: dict[str, Any] = {
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
    extra: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A complete Lambda proxy response carrying a problem document."""
    body = problem_document(status, code, detail, field_errors=field_errors, extra=extra)
    return {
        "statusCode": status,
        "headers": {"Content-Type": PROBLEM_JSON, **(headers or {})},
        "body": json_body(body),
    }


def from_domain_error(error: domain.DomainError) -> dict[str, Any]:
    headers = {}
    if isinstance(error, domain.VersionConflict) and isinstance(error.current.get("version"), int):
        headers["ETag"] = etag(error.current["version"])
    if isinstance(error, domain.LedgerUnsettled):  # a conflict that resolves itself: say when to try again
        headers["Retry-After"] = str(error.retry_after_s)
    return problem(
        status_of(error), error.code, error.detail, field_errors=error.errors, extra=error.extra, headers=headers
    )
