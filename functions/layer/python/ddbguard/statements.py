"""The statement: the balance and its entries, newest first, one page at a time.

Entries are read with a Query on the account's item collection (`PK = ACCT#<id>` and
`begins_with(SK, "TXN#")`, newest first), never a Scan. The cursor is opaque to clients:
base64url (unpadded) of the page's LastEvaluatedKey as JSON, `{"PK": "ACCT#<id>", "SK":
"TXN#<entryId>"}`. On input it is decoded and checked strictly: it must name an entry key of
this very account, so a cursor can never point into another item collection; anything else is
a 422 (field `cursor`), never a 500.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from ddbguard import keys, movements, transactions
from ddbguard.codec import from_item, to_item
from ddbguard.dynamodb import client, table_name
from ddbguard.errors import Busy, FieldError, InvalidInput, NotFound
from ddbguard.expressions import key_condition_params
from ddbguard.ledger import public_entry
from ddbguard.schema import PARTITION_KEY, SORT_KEY

AFTER = "availableCentsAfter"
_ENTRY_ID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")  # a ULID (ids.time_sortable_id)
_THROTTLED = {"ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded"}


def encode_cursor(last_key: dict[str, str]) -> str:
    text = json.dumps({PARTITION_KEY: last_key[PARTITION_KEY], SORT_KEY: last_key[SORT_KEY]}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def decode_cursor(cursor: str, account_id: str) -> dict[str, str]:
    """The ExclusiveStartKey a cursor stands for; InvalidInput unless it names an entry of this account."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        decoded = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError):
        raise _bad_cursor() from None
    if not isinstance(decoded, dict) or set(decoded) != {PARTITION_KEY, SORT_KEY}:
        raise _bad_cursor()
    partition, sort = decoded[PARTITION_KEY], decoded[SORT_KEY]
    if not isinstance(partition, str) or not isinstance(sort, str):
        raise _bad_cursor()
    if partition != keys.account_partition(account_id) or not sort.startswith(keys.ENTRY_PREFIX):
        raise _bad_cursor()
    if not _ENTRY_ID.fullmatch(sort[len(keys.ENTRY_PREFIX) :]):
        raise _bad_cursor()
    return keys.entry_key(account_id, sort[len(keys.ENTRY_PREFIX) :])


def _bad_cursor() -> InvalidInput:
    message = "The cursor is not one this statement handed out."
    return InvalidInput(message, errors=[FieldError("cursor", "invalid", message)])


def get_statement(account_id: str, caller_sub: str, *, limit: int = 25, cursor: str | None = None) -> dict[str, Any]:
    """Balance plus one page of entries, newest first. 404 ledger_not_found when absent or not
    the caller's (admins too: their reach is the account itself, docs/api.md)."""
    start_key = decode_cursor(cursor, account_id) if cursor is not None else None
    balance = transactions.get_item(keys.balance_key(account_id))
    if balance is None or balance.get(movements.OWNER) != caller_sub:
        raise NotFound("ledger_not_found", f"No open ledger for account {account_id}.")
    items, last_key = _query_entries(account_id, limit, start_key)
    entries = _with_available_after([public_entry(item) for item in items], balance, account_id)
    public = movements.public_balance(balance)
    return {
        movements.CLEARED: public[movements.CLEARED],
        movements.HELD: public[movements.HELD],
        movements.AVAILABLE: public[movements.AVAILABLE],
        "version": public["version"],
        "entries": entries,
        "nextCursor": encode_cursor(last_key) if last_key else None,
    }


def _query_entries(
    account_id: str, limit: int, start_key: dict[str, str] | None
) -> tuple[list[dict[str, Any]], dict[str, str] | None]:
    condition = Key(PARTITION_KEY).eq(keys.account_partition(account_id)) & Key(SORT_KEY).begins_with(keys.ENTRY_PREFIX)
    request: dict[str, Any] = {
        "TableName": table_name(),
        "ScanIndexForward": False,
        "Limit": limit,
        "ConsistentRead": True,
        **key_condition_params(condition),
    }
    if start_key is not None:
        request["ExclusiveStartKey"] = to_item(start_key)
    try:
        response = client().query(**request)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code", "") in _THROTTLED:
            raise Busy("DynamoDB is throttling reads") from None
        raise
    items = [from_item(item) for item in response.get("Items", [])]
    return items, from_item(response.get("LastEvaluatedKey"))


def _with_available_after(
    entries: list[dict[str, Any]], balance: dict[str, Any], account_id: str
) -> list[dict[str, Any]]:
    """Fill `availableCentsAfter` of entries whose movement has not been settled yet (see movements)."""
    pending = balance.get(movements.PENDING) or {}
    missing = [e for e in entries if e.get(AFTER) is None and e["entryId"] not in pending]
    if missing:
        # Committed after the balance was read: its value is in a fresher balance, or already on the entry.
        pending = {
            **pending,
            **((transactions.get_item(keys.balance_key(account_id)) or {}).get(movements.PENDING) or {}),
        }
    filled = []
    for entry in entries:
        if entry.get(AFTER) is None:
            after = pending.get(entry["entryId"])
            if after is None:
                stored = transactions.get_item(keys.entry_key(account_id, entry["entryId"])) or {}
                after = stored.get(AFTER)
            entry = {**entry, AFTER: after}
        filled.append(entry)
    return filled
