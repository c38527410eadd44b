"""Response bodies, as pydantic models: what the handlers send back, for the OpenAPI description.

The handlers build plain dicts (an entity's projection, ddbguard's `public_*` functions); these models describe them.
The schemathesis suite checks every real response against the document generated from them,
so a field the code adds or drops shows up as a failing test, not as a silently stale doc.
Extra fields are allowed (additionalProperties): clients must ignore what they do not know. An entity's response
(`Account`, `Order`) is derived from its declared fields (ddbguard_api.models.entity_models).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.domain.entities.orders import ORDER
from ddbguard_api.models.entity_models import response_model_of
from ddbguard_api.models.model_bases import ResponseModel, Timestamp

__all__ = [
    "Account",
    "AccountList",
    "Balance",
    "Entry",
    "EntryType",
    "FieldProblem",
    "Health",
    "Hold",
    "HoldStatus",
    "Order",
    "Problem",
    "Statement",
    "TransferSent",
]

EntryType = Literal["deposit", "withdrawal", "hold", "capture", "release", "transfer_in", "transfer_out", "refund"]
HoldStatus = Literal["OPEN", "CAPTURED", "RELEASED"]
Account = response_model_of(ACCOUNT)
Order = response_model_of(ORDER)


class Health(ResponseModel):
    status: Literal["ok"]
    version: str = Field(description="The release of ddbguard that answers (semantic versioning), e.g. 0.1.0.")


class AccountList(ResponseModel):
    """GET /accounts: one page of the caller's own accounts."""

    accounts: list[Account] = Field(description="Newest first.")  # type: ignore[valid-type]
    nextCursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last page.")


class Balance(ResponseModel):
    """A ledger's balance item. Invariant: availableCents = clearedCents - holdCents >= 0."""

    accountId: str
    clearedCents: int
    holdCents: int = Field(ge=0)
    availableCents: int = Field(ge=0)
    version: int = Field(ge=0)
    createdAt: Timestamp | None = None
    updatedAt: Timestamp | None = None


class Entry(ResponseModel):
    """One ledger entry; holds, transfers and order payments add the fields that name them."""

    entryId: str = Field(description="Time-sortable id; statements list entries newest first.")
    accountId: str
    type: EntryType
    amountCents: int = Field(ge=1)
    availableCentsAfter: int | None = Field(description="The ledger's available money right after this entry.")
    createdAt: Timestamp
    holdId: str | None = None
    holdStatus: HoldStatus | None = None
    transferId: str | None = None
    counterpartyAccountId: str | None = None
    fromAccountId: str | None = None
    toAccountId: str | None = None
    orderId: str | None = None


class Hold(Entry):
    """The `hold` entry (placing) or the `capture` / `release` entry (settling) of one hold."""

    holdId: str
    holdStatus: HoldStatus


class TransferSent(Entry):
    """The caller's `transfer_out` entry; the receiver got a `transfer_in` entry in the same transaction."""

    transferId: str
    fromAccountId: str
    toAccountId: str


class Statement(ResponseModel):
    clearedCents: int
    holdCents: int = Field(ge=0)
    availableCents: int = Field(ge=0)
    version: int = Field(ge=0)
    entries: list[Entry] = Field(description="Newest first.")
    nextCursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last page.")


class FieldProblem(BaseModel):
    field: str = Field(description="Dotted path of the offending field (`items.0.sku`), or `body`.")
    code: str = Field(description="taken, required, unknown_field, not_an_integer, too_large, ...")
    message: str


class Problem(ResponseModel):
    """RFC 9457 problem details (`application/problem+json`). `code` is the machine-readable reason;
    some codes carry extension members (`current`, `availableCents`, `requestedCents`, ...)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    errors: list[FieldProblem] | None = None
    current: dict[str, object] | None = Field(
        default=None, description="version_conflict: the resource as it is now (its ETag header is its version)."
    )
    availableCents: int | None = Field(default=None, description="insufficient_funds: available when refused.")
    requestedCents: int | None = Field(default=None, description="insufficient_funds: the amount asked for.")
    currentStatus: str | None = Field(default=None, description="invalid_transition: the order's status now.")
    requestedStatus: str | None = Field(default=None, description="invalid_transition: the status asked for.")
    holdStatus: HoldStatus | None = Field(default=None, description="hold_settled: how the hold was settled.")
    clearedCents: int | None = Field(default=None, description="balance_not_zero: money still on the ledger.")
    holdCents: int | None = Field(default=None, description="balance_not_zero: money still held.")
