"""Domain errors: what went wrong, in the domain's words. The HTTP edge maps each to a status."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = [
    "AccountClosing",
    "AlreadyExists",
    "BalanceNotZero",
    "Busy",
    "DomainError",
    "FieldError",
    "HoldSettled",
    "IdempotencyKeyReused",
    "InsufficientFunds",
    "InvalidInput",
    "InvalidTransition",
    "LedgerUnsettled",
    "NotFound",
    "SettlementBehind",
    "UniqueViolation",
    "VersionConflict",
]


class FieldError(NamedTuple):
    field: str
    code: str
    message: str


class DomainError(Exception):
    """Base of every refusal ddbguard reports to a client."""

    code = "error"

    def __init__(
        self, detail: str, *, errors: list[FieldError] | None = None, extra: Mapping[str, object] | None = None
    ):
        super().__init__(detail)
        self.detail = detail
        self.errors = errors or []
        self.extra: dict[str, object] = dict(extra or {})


class NotFound(DomainError):
    """Absent, or not the caller's: both answer the same, so existence never leaks."""

    def __init__(self, code: str, detail: str, *, field: str | None = None):
        errors = [FieldError(field, "not_found", detail)] if field else None
        super().__init__(detail, errors=errors)
        self.code = code


class AlreadyExists(DomainError):
    code = "already_exists"


class UniqueViolation(DomainError):
    code = "unique_violation"

    def __init__(self, fields: list[str]):
        super().__init__(
            "Already taken: " + ", ".join(fields) + ".",
            errors=[FieldError(name, "taken", f"This {name} is already taken.") for name in fields],
        )
        self.fields = fields


class VersionConflict(DomainError):
    """The item changed since the caller read it; `current` is the item as the failed write saw it."""

    code = "version_conflict"

    # `current`: any entity's public projection, whose fields only its declaration knows.
    def __init__(self, current: Mapping[str, Any], expected: int):
        super().__init__(
            f"The resource is at version {current.get('version')}, not {expected}.",
            extra={"current": current},
        )
        self.current = current
        self.expected = expected


class InvalidTransition(DomainError):
    code = "invalid_transition"

    def __init__(
        self,
        current_status: str,
        requested_status: str,
        current: Mapping[str, object] | None = None,
        *,
        subject: str = "It",
    ):
        # A move to the status it already has reads as what it is: "Order X is already paid".
        detail = (
            f"{subject} is already {current_status.lower()}."
            if current_status == requested_status
            else f"Status cannot move from {current_status} to {requested_status}."
        )
        super().__init__(detail, extra={"currentStatus": current_status, "requestedStatus": requested_status})
        self.current = current


class InsufficientFunds(DomainError):
    code = "insufficient_funds"

    def __init__(self, available_cents: int, requested_cents: int, *, field: str | None = None):
        errors = [FieldError(field, "insufficient_funds", "Not enough available money.")] if field else None
        super().__init__(
            f"Available {available_cents} cents, requested {requested_cents}.",
            errors=errors,
            extra={"availableCents": available_cents, "requestedCents": requested_cents},
        )


class HoldSettled(DomainError):
    code = "hold_settled"

    def __init__(self, hold_id: str, status: str):
        super().__init__(f"Hold {hold_id} is already {status.lower()}.", extra={"holdStatus": status})


class BalanceNotZero(DomainError):
    code = "balance_not_zero"


class LedgerUnsettled(DomainError):
    """An emptied ledger still has movements whose values are being settled: deleting its balance now would lose
    them. Refused, nothing written; the settlement finishes within seconds, so the client retries after
    `retry_after_s` (and with the same Idempotency-Key, the retry decides afresh)."""

    code = "ledger_unsettled"

    def __init__(self, account_id: str, unsettled: int, retry_after_s: int = 5):
        super().__init__(
            f"Account {account_id} has {unsettled} movements still being settled; retry the delete shortly.",
            extra={"unsettledMovements": unsettled},
        )
        self.retry_after_s = retry_after_s


class AccountClosing(DomainError):
    """The recipient's account is closing: it takes no incoming transfers (told to the sender; nothing written)."""

    code = "account_closing"

    def __init__(self, account_id: str, field: str):
        detail = f"Account {account_id} is closing and takes no incoming transfers."
        super().__init__(detail, errors=[FieldError(field, "account_closing", detail)])


class InvalidInput(DomainError):
    """Well-formed but semantically invalid (e.g. a transfer to oneself)."""

    code = "validation_failed"

    def __init__(self, detail: str, errors: list[FieldError] | None = None):
        super().__init__(detail, errors=errors)


class Busy(Exception):
    """DynamoDB kept answering with conflicts or throttling after our bounded retries.

    Nothing was written, or (`outcome_unknown`) DynamoDB never answered a write: either way
    the client should retry after `retry_after_s` with the same Idempotency-Key. Not a
    DomainError: it is never cached as the answer to an idempotency key.
    """

    def __init__(self, reason: str, retry_after_s: int = 1, *, outcome_unknown: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s
        self.outcome_unknown = outcome_unknown


class SettlementBehind(Busy):
    """A ledger's unsettled movements reached their bound (for an incoming transfer: the part incoming transfers
    may take): nothing was written. Busy, not a DomainError: the answer to a retry changes once the settlement
    (stream or sweeper) catches up, so it is never cached. `field` names the ledger's side of a transfer."""

    code = "settlement_behind"

    def __init__(self, account_id: str, retry_after_s: int = 5, *, field: str | None = None):
        super().__init__(f"ledger {account_id}: too many unsettled movements", retry_after_s)
        self.account_id = account_id
        self.field = field


class IdempotencyKeyReused(DomainError):
    """The Idempotency-Key was first used for a different request."""

    code = "idempotency_key_reused"

    def __init__(self) -> None:
        super().__init__("This Idempotency-Key was already used with a different request.")
