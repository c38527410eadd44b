"""Page cursors: a page's LastEvaluatedKey as an opaque string for clients, and back.

base64url (unpadded) of the key as JSON. Decoding only checks the shape (two string attributes,
`PK` and `SK`); the caller checks that the key belongs to the collection it pages through, so a
cursor can never point into someone else's items.
"""

from __future__ import annotations

import base64
import binascii
import json

from ddbguard.store.schema import PARTITION_KEY, SORT_KEY
from ddbguard.store.shapes import Key


class BadCursor(ValueError):
    """Not a cursor this service handed out."""


def encode_cursor(last_key: Key) -> str:
    text = json.dumps({PARTITION_KEY: last_key["PK"], SORT_KEY: last_key["SK"]}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def decode_cursor(cursor: str) -> Key:
    try:
        decoded = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8"))
    except (binascii.Error, ValueError):
        raise BadCursor(cursor) from None
    if not isinstance(decoded, dict) or set(decoded) != {PARTITION_KEY, SORT_KEY}:
        raise BadCursor(cursor)
    partition, sort = decoded[PARTITION_KEY], decoded[SORT_KEY]
    if not isinstance(partition, str) or not isinstance(sort, str):
        raise BadCursor(cursor)
    return Key(PK=partition, SK=sort)
