"""The statement: the balance and its entries, newest first, one page at a time.

Entries are read with a Query on the account's item collection (`PK = ACCT#<id>` and
`begins_with(SK, "TXN#")`, newest first), never a Scan. The cursor is opaque to clients
(`ddbguard.store.cursors`: the last entry's sort key behind a digest of its whole key). On input it is checked
strictly: it must name an entry key of this very account, so a cursor can never point into another item
collection; anything else is a 422 (field `cursor`), never a 500.
"""

from __future__ import annotations

import re

from boto3.dynamodb.conditions import Key as KeyCondition

from ddbguard.domain.projections import public_balance, public_entry
from ddbguard.domain.views import EntryView, StatementView
from ddbguard.errors import FieldError, InvalidInput
from ddbguard.guards.money import ledger_not_found
from ddbguard.guards.ownership import visible_or_refuse
from ddbguard.limits import PAGE_DEFAULT
from ddbguard.store import keys, reads
from ddbguard.store.attribute_names import (
    AVAILABLE_CENTS,
    AVAILABLE_CENTS_AFTER,
    CLEARED_CENTS,
    ENTRY_ID,
    HOLD_CENTS,
    PENDING,
    PK,
    SK,
    VERSION,
)
from ddbguard.store.cursors import BadCursor, decode_cursor, encode_cursor
from ddbguard.store.items import BalanceItem
from ddbguard.store.shapes import Key

__all__ = ["decode_statement_cursor", "get_statement"]

_ENTRY_ID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")  # a ULID (store.ids.time_sortable_id)


def decode_statement_cursor(cursor: str, account_id: str) -> Key:
    """The ExclusiveStartKey a cursor stands for; InvalidInput unless it names an entry of this account."""
    try:
        key = decode_cursor(cursor, keys.account_partition(account_id))
    except BadCursor:
        raise _bad_cursor() from None
    entry_id = keys.entry_id_of(key[SK])
    if key[PK] != keys.account_partition(account_id) or entry_id is None or not _ENTRY_ID.fullmatch(entry_id):
        raise _bad_cursor()
    return keys.entry_key(account_id, entry_id)


def _bad_cursor() -> InvalidInput:
    message = "The cursor is not one this statement handed out."
    return InvalidInput(message, errors=[FieldError("cursor", "invalid", message)])


def get_statement(
    account_id: str, caller_sub: str, *, limit: int = PAGE_DEFAULT, cursor: str | None = None
) -> StatementView:
    """Balance plus one page of entries, newest first. 404 ledger_not_found when absent or not
    the caller's (admins too: their reach is the account itself, docs/api.md)."""
    start_key = decode_statement_cursor(cursor, account_id) if cursor is not None else None
    balance = visible_or_refuse(
        reads.get_item_as(BalanceItem, keys.balance_key(account_id)),
        caller_sub,
        lambda: ledger_not_found(account_id),
    )
    entry_range = KeyCondition(PK).eq(keys.account_partition(account_id)) & KeyCondition(SK).begins_with(
        keys.ENTRY_PREFIX
    )
    items, last_key = reads.query_page(entry_range, limit=limit, start_key=start_key, newest_first=True)
    entries = _with_available_after([public_entry(item) for item in items], balance, account_id)
    public = public_balance(balance)
    return StatementView(
        clearedCents=public[CLEARED_CENTS],
        holdCents=public[HOLD_CENTS],
        availableCents=public[AVAILABLE_CENTS],
        version=public[VERSION],
        entries=entries,
        nextCursor=encode_cursor(last_key) if last_key else None,
    )


def _with_available_after(entries: list[EntryView], balance: BalanceItem, account_id: str) -> list[EntryView]:
    """Fill `availableCentsAfter` of entries whose movement has not been settled yet (see guards.money)."""
    pending = balance.get(PENDING) or {}
    missing = [e for e in entries if e.get(AVAILABLE_CENTS_AFTER) is None and e[ENTRY_ID] not in pending]
    if missing:
        # Committed after the balance was read: its value is in a fresher balance, or already on the entry.
        pending = {**pending, **((reads.get_item(keys.balance_key(account_id)) or {}).get(PENDING) or {})}
    filled = []
    for entry in entries:
        if entry.get(AVAILABLE_CENTS_AFTER) is None:
            after = pending.get(entry[ENTRY_ID])
            if after is None:
                stored = reads.get_item(keys.entry_key(account_id, entry[ENTRY_ID])) or {}
                after = stored.get(AVAILABLE_CENTS_AFTER)
            entry = {**entry, AVAILABLE_CENTS_AFTER: after}
        filled.append(entry)
    return filled
