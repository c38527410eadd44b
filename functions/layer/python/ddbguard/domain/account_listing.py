"""The caller's own accounts, newest first, one page at a time: a Query on the owner index, never a Scan.

A page is one Query on `OWNERS#<sub>` (newest first, strongly consistent) and one consistent
BatchGetItem of the listed accounts' profiles. An account deleted between the two reads is left
out. The cursor is opaque to clients (`ddbguard.store.cursors`); on input it must name an index
item of this very caller, anything else is a 422 (field `cursor`), never a 500, and never a way
into another owner's list.
"""

from __future__ import annotations

from boto3.dynamodb.conditions import Key as KeyCondition

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.domain.views import AccountPage
from ddbguard.errors import FieldError, InvalidInput
from ddbguard.limits import PAGE_DEFAULT
from ddbguard.store import keys, reads
from ddbguard.store.attribute_names import ACCOUNT_ID, OWNER_SUB, PK, SK
from ddbguard.store.cursors import BadCursor, decode_cursor, encode_cursor
from ddbguard.store.shapes import Key

__all__ = ["list_accounts"]


def _bad_cursor() -> InvalidInput:
    message = "The cursor is not one this list handed out."
    return InvalidInput(message, errors=[FieldError("cursor", "invalid", message)])


def _start_key(cursor: str, owner_sub: str) -> Key:
    try:
        key = decode_cursor(cursor, keys.owner_index_partition(owner_sub))
    except BadCursor:
        raise _bad_cursor() from None
    if key[PK] != keys.owner_index_partition(owner_sub) or not keys.is_owner_index_sort(key[SK]):
        raise _bad_cursor()
    return key


def list_accounts(owner_sub: str, *, limit: int = PAGE_DEFAULT, cursor: str | None = None) -> AccountPage:
    """`{"accounts": [...], "nextCursor"}`: the caller's accounts, newest first."""
    start_key = _start_key(cursor, owner_sub) if cursor is not None else None
    # Only the accounts' entries: other kinds may list their items under the same owner.
    index_range = KeyCondition(PK).eq(keys.owner_index_partition(owner_sub)) & KeyCondition(SK).begins_with(
        keys.ACCOUNT_PREFIX
    )
    index_items, last_key = reads.query_page(index_range, limit=limit, start_key=start_key, newest_first=True)
    account_ids = [item[ACCOUNT_ID] for item in index_items]
    found = reads.get_items([keys.account_key(account_id) for account_id in account_ids]) if account_ids else []
    profiles = {item[ACCOUNT_ID]: item for item in found}
    accounts = [
        ACCOUNT.project(profiles[account_id])
        for account_id in account_ids
        if account_id in profiles and profiles[account_id].get(OWNER_SUB) == owner_sub
    ]
    return AccountPage(accounts=accounts, nextCursor=encode_cursor(last_key) if last_key else None)
