"""What clients see of each item kind: one projection per kind, nothing else strips keys or bookkeeping."""

from __future__ import annotations

from typing import Any

from ddbguard.store.schema import (
    AMOUNT,
    AVAILABLE,
    AVAILABLE_AFTER,
    CLEARED,
    CREATED_AT,
    HELD,
    STATUS,
    UPDATED_AT,
    VERSION,
)
from ddbguard.store.shapes import Item

ACCOUNT_FIELDS = ("accountId", "email", "username", "displayName", VERSION, CREATED_AT, UPDATED_AT)
ORDER_FIELDS = ("orderId", "accountId", STATUS, "items", "totalCents", VERSION, CREATED_AT, UPDATED_AT)
BALANCE_FIELDS = ("accountId", CLEARED, HELD, AVAILABLE, VERSION, CREATED_AT, UPDATED_AT)
# An entry's details differ by type (holdId, orderId, transferId, counterpartyAccountId).
ENTRY_FIELDS = (
    "entryId",
    "accountId",
    "type",
    AMOUNT,
    AVAILABLE_AFTER,
    CREATED_AT,
    "holdId",
    "orderId",
    "transferId",
    "counterpartyAccountId",
)


def _pick(item: Item, fields: tuple[str, ...]) -> dict[str, Any]:
    return {name: item.get(name) for name in fields}


def public_account(item: Item) -> dict[str, Any]:
    """`displayName` is null when the owner never gave one: the service does not invent a name."""
    return _pick(item, ACCOUNT_FIELDS)


def public_order(item: Item) -> dict[str, Any]:
    return _pick(item, ORDER_FIELDS)


def public_balance(item: Item) -> dict[str, Any]:
    public = _pick(item, BALANCE_FIELDS)
    for name in (CLEARED, HELD, AVAILABLE, VERSION):
        public[name] = int(item[name])
    return public


def public_entry(item: Item) -> dict[str, Any]:
    """The fields an entry has (details only where its type has them)."""
    return {name: item[name] for name in ENTRY_FIELDS if name in item}
