"""The caller's own accounts, newest first, one page at a time: a Query on the owner index, never a Scan.

A page is one Query on `OWNERS#<sub>` (newest first, strongly consistent) and one consistent
BatchGetItem of the listed accounts' profiles. An account deleted between the two reads is left
out. The cursor is opaque to clients: base64url (unpadded) of the page's LastEvaluatedKey as
JSON; on input it must name an index item of this very caller, anything else is a 422
(field `cursor`), never a 500, and never a way into another owner's list.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from ddbguard import keys
from ddbguard.accounts import OWNER_SUB, public_account
from ddbguard.codec import from_item, to_item
from ddbguard.dynamodb import client, table_name
from ddbguard.errors import Busy, FieldError, InvalidInput
from ddbguard.expressions import key_condition_params
from ddbguard.schema import PARTITION_KEY, SORT_KEY

_INDEX_SORT = re.compile(r"ACCT#\d{4}-\d{2}-\d{2}T[0-9:.]+Z#[A-Za-z0-9_-]{1,64}")
_THROTTLED = {"ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded"}
_BATCH_ATTEMPTS = 5


def encode_cursor(last_key: dict[str, str]) -> str:
    text = json.dumps({PARTITION_KEY: last_key[PARTITION_KEY], SORT_KEY: last_key[SORT_KEY]}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def _bad_cursor() -> InvalidInput:
    message = "The cursor is not one this list handed out."
    return InvalidInput(message, errors=[FieldError("cursor", "invalid", message)])


def decode_cursor(cursor: str, owner_sub: str) -> dict[str, str]:
    try:
        decoded = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8"))
    except (binascii.Error, ValueError):
        raise _bad_cursor() from None
    if not isinstance(decoded, dict) or set(decoded) != {PARTITION_KEY, SORT_KEY}:
        raise _bad_cursor()
    partition, sort = decoded[PARTITION_KEY], decoded[SORT_KEY]
    if partition != keys.owner_index_partition(owner_sub) or not isinstance(sort, str):
        raise _bad_cursor()
    if not _INDEX_SORT.fullmatch(sort):
        raise _bad_cursor()
    return {PARTITION_KEY: partition, SORT_KEY: sort}


def _read_error(error: ClientError) -> Exception:
    if error.response.get("Error", {}).get("Code", "") in _THROTTLED:
        return Busy("DynamoDB is throttling reads")
    return error


def _query_index(owner_sub: str, limit: int, start_key: dict[str, str] | None) -> tuple[list[dict], dict | None]:
    condition = Key(PARTITION_KEY).eq(keys.owner_index_partition(owner_sub))
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
        raise _read_error(error) from None
    return [from_item(item) for item in response.get("Items", [])], from_item(response.get("LastEvaluatedKey"))


def _profiles(account_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The accounts' items by id (consistent BatchGetItem; unprocessed keys are asked again, bounded)."""
    wanted = [to_item(keys.account_key(account_id)) for account_id in account_ids]
    found: dict[str, dict[str, Any]] = {}
    for attempt in range(_BATCH_ATTEMPTS):
        if not wanted:
            return found
        try:
            response = client().batch_get_item(RequestItems={table_name(): {"Keys": wanted, "ConsistentRead": True}})
        except ClientError as error:
            raise _read_error(error) from None
        for raw in response.get("Responses", {}).get(table_name(), []):
            item = from_item(raw)
            found[item["accountId"]] = item
        wanted = response.get("UnprocessedKeys", {}).get(table_name(), {}).get("Keys", [])
        if wanted:
            time.sleep(0.02 * 2**attempt)
    if wanted:
        raise Busy("DynamoDB left account reads unprocessed")
    return found


def list_accounts(owner_sub: str, *, limit: int = 25, cursor: str | None = None) -> dict[str, Any]:
    """`{"accounts": [...], "nextCursor"}`: the caller's accounts, newest first."""
    start_key = decode_cursor(cursor, owner_sub) if cursor is not None else None
    index_items, last_key = _query_index(owner_sub, limit, start_key)
    account_ids = [item["accountId"] for item in index_items]
    profiles = _profiles(account_ids) if account_ids else {}
    accounts = [
        public_account(profiles[account_id])
        for account_id in account_ids
        if account_id in profiles and profiles[account_id].get(OWNER_SUB) == owner_sub
    ]
    return {"accounts": accounts, "nextCursor": encode_cursor(last_key) if last_key else None}
