"""Page cursors: a page's LastEvaluatedKey as an opaque string for clients, and back.

A cursor carries the position only: the last item's sort key, behind a digest of the whole key. The partition
(`OWNERS#<sub>`, `ACCT#<id>`) is never in it; the caller supplies its own partition on the way back, and the
digest must match that partition, so a cursor says nothing of whose list it pages and can never point into
someone else's items. The caller then checks the position's shape. The digest is unkeyed: it proves where a cursor
came from to this service, not secrecy, and the position holds nothing the page did not show.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

from ddbguard.store.attribute_names import PK, SK
from ddbguard.store.shapes import Key

__all__ = ["BadCursor", "decode_cursor", "encode_cursor"]

_DIGEST_BYTES = 12


class BadCursor(ValueError):
    """Not a cursor this service handed out."""


def _digest(partition: str, sort: str) -> bytes:
    return hashlib.sha256(f"{partition}\0{sort}".encode()).digest()[:_DIGEST_BYTES]


def encode_cursor(last_key: Key) -> str:
    sealed = _digest(last_key[PK], last_key[SK]) + last_key[SK].encode()
    return base64.urlsafe_b64encode(sealed).rstrip(b"=").decode()


def decode_cursor(cursor: str, partition: str) -> Key:
    """The key a cursor stands for in the caller's own partition; BadCursor unless this service made it there."""
    try:
        sealed = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        sort = sealed[_DIGEST_BYTES:].decode("utf-8")
    except (binascii.Error, ValueError):
        raise BadCursor(cursor) from None
    if not sort or not hmac.compare_digest(sealed[:_DIGEST_BYTES], _digest(partition, sort)):
        raise BadCursor(cursor)
    return Key(PK=partition, SK=sort)
