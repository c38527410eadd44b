"""What the domain hands back for what is no entity, one typed view per kind: the ledger's projections
(`ddbguard.domain.projections`) and the replies built from them. An entity's items (accounts, orders) are its
projection (`PublicItem`), whose fields its declaration names. Types only: nothing runs at import.

The HTTP edge describes the same shapes to clients (`ddbguard_api.models.response_models`);
tests/unit/test_views.py checks that both name the same fields with the same optionality.
Field names are the public ones of docs/api.md.
"""

# No `from __future__ import annotations`: `NotRequired` must be seen at runtime, so the views know their
# optional keys (`__optional_keys__`), which the projections and the schema check read.
from typing import NotRequired, TypedDict

from ddbguard.guards.entity import PublicItem

__all__ = ["AccountPage", "BalanceView", "EntryView", "HoldOutcome", "StatementView", "TransferOutcome"]


class AccountPage(TypedDict):
    accounts: list[PublicItem]  # each the account entity's projection
    nextCursor: str | None


class BalanceView(TypedDict):
    accountId: str
    clearedCents: int
    holdCents: int
    availableCents: int
    version: int
    createdAt: str | None
    updatedAt: str | None


class HoldOutcome(TypedDict):
    """What placing, capturing or releasing a hold adds to its entry (and keeps in its request marker)."""

    holdId: str
    holdStatus: str


class TransferOutcome(TypedDict):
    """What a transfer adds to the sender's entry (and keeps in its request marker)."""

    transferId: str
    fromAccountId: str
    toAccountId: str


class EntryView(TypedDict):
    """A ledger entry as clients see it; the fields that name its cause appear where its type has them, and
    the replies of holds and transfers add their outcome (`HoldOutcome`, `TransferOutcome`)."""

    entryId: str
    accountId: str
    type: str
    amountCents: int
    availableCentsAfter: int | None
    createdAt: str
    holdId: NotRequired[str]
    holdStatus: NotRequired[str]
    transferId: NotRequired[str]
    counterpartyAccountId: NotRequired[str]
    fromAccountId: NotRequired[str]
    toAccountId: NotRequired[str]
    orderId: NotRequired[str]


class StatementView(TypedDict):
    """The balance and one page of its entries, newest first."""

    clearedCents: int
    holdCents: int
    availableCents: int
    version: int
    entries: list[EntryView]
    nextCursor: str | None
