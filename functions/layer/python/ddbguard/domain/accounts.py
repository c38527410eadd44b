"""Accounts: the account entity (`ddbguard.domain.entities.accounts`) plus its own rules.

The generic operations (`ddbguard.guards.entity_operations`) give the guarantees: email and
username unique through lock items in the account's own transaction, the owner check and the
expected version in every write's condition, refusals explained from the failed write (404 for
absent or not yours, 412 with the current account, 409 naming every taken field), replays.
What is the account's own: `displayName` is kept as written (NFC, trimmed), and no delete while
the ledger holds money (409 `balance_not_zero`) or waits for settlement (409 `ledger_unsettled`): the balance
item's emptiness is a guard of the delete transaction, and an empty balance item goes with the account (its
entries are kept, each with its value).

An owner may close an account to incoming money (`closing: true`, a change like any other): transfers into it
are then refused to their senders (`ddbguard.domain.transfers`), while the owner's own movements go on, so close,
withdraw, delete always completes.

Public account JSON: `accountId, email, username, displayName, closing, version, createdAt, updatedAt`.
`displayName` is null when the owner never gave one: the service does not invent a name (the
username is already there for a client that wants a fallback).
"""

from __future__ import annotations

from collections.abc import Mapping

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.domain.normalize import clean_display_name
from ddbguard.errors import BalanceNotZero, LedgerUnsettled
from ddbguard.guards import entity_operations as operations
from ddbguard.guards.entity import PublicItem
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store import keys, writes
from ddbguard.store.attribute_names import (
    CLEARED_CENTS,
    DISPLAY_NAME,
    EMAIL,
    HOLD_CENTS,
    PENDING,
    PK,
    USERNAME,
)
from ddbguard.store.shapes import Item

__all__ = ["clean_values", "create_account", "delete_rules"]


def clean_values(values: Mapping[str, object]) -> dict[str, object]:
    """A create's or an update's values as stored (the generic create's and update's `clean_values`, passed by
    functions/accounts/create_account.py and update_account.py): the display name cleaned; unique values are
    normalised by their kinds in the write itself, the rest (`closing`) is kept as sent."""
    display_name = values.get(DISPLAY_NAME)
    cleaned = None if display_name is None else clean_display_name(str(display_name))
    return {**values, DISPLAY_NAME: cleaned}


def create_account(
    owner_sub: str,
    *,
    email: str,
    username: str,
    display_name: str | None = None,
    identity: RequestIdentity | None = None,
) -> PublicItem:
    """Put the account (version 0), both locks and its owner-index entry in one transaction."""
    values = clean_values({EMAIL: email, USERNAME: username, DISPLAY_NAME: display_name})
    return operations.create(ACCOUNT, owner_sub, values, identity=identity)


def _ledger_is_empty() -> ConditionBase:
    # No balance item, or one holding nothing and waiting for no settlement: an empty balance item goes with the
    # account. Unsettled values live only on the balance (`pending`), so it must outlive them.
    settled = Attr(PENDING).not_exists() | Attr(PENDING).size().eq(0)
    return Attr(PK).not_exists() | (Attr(CLEARED_CENTS).eq(0) & Attr(HOLD_CENTS).eq(0) & settled)


def delete_rules(account_id: str, expected: int) -> operations.DeleteRules:
    """What DELETE /accounts/{accountId} adds to the generic delete (account, locks, owner-index entry): its
    empty, settled balance item goes in the same transaction. Refused while the ledger holds money (409
    balance_not_zero) or while any of its movements is unsettled (409 ledger_unsettled, Retry-After): the balance
    carries their values until the settlement moves them onto their entries."""

    def not_empty(balance: Item | None) -> BalanceNotZero | LedgerUnsettled:
        balance = balance or {}
        cleared, held = int(balance.get(CLEARED_CENTS, 0)), int(balance.get(HOLD_CENTS, 0))
        if cleared == 0 and held == 0:
            return LedgerUnsettled(account_id, len(balance.get(PENDING) or {}))
        return BalanceNotZero(
            f"Account {account_id} still holds money; empty its ledger first.",
            extra={CLEARED_CENTS: cleared, HOLD_CENTS: held},
        )

    empty_balance = writes.delete(keys.balance_key(account_id), _ledger_is_empty())
    return {"checks": {"balance": (empty_balance, not_empty)}}
