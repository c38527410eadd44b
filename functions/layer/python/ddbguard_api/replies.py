"""What an operation hands back to the edge: plain status, body and headers."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

# A str holds a surrogate only when a client sent a lone one (`"\\udc00"`): JSON allows the escape, UTF-8 cannot
# encode it. Every response body is written through `json_body`, which replaces it with U+FFFD.
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def json_body(document: Any, *, sort_keys: bool = False) -> str:
    """A response body as JSON text that always encodes as UTF-8, whatever strings a client sent into it."""
    return _SURROGATE.sub("\ufffd", json.dumps(document, ensure_ascii=False, sort_keys=sort_keys))


def etag(version: int) -> str:
    """A strong ETag: the item's version number, quoted."""
    return f'"{int(version)}"'


def _versioned_headers(body: Any, location: str | None) -> dict[str, str]:
    headers = {}
    if isinstance(body, dict) and isinstance(body.get("version"), int):
        headers["ETag"] = etag(body["version"])
    if location:
        headers["Location"] = location
    return headers


def ok(body: Any) -> Reply:
    return Reply(200, body, _versioned_headers(body, None))


def created(body: Any, location: str | None = None) -> Reply:
    return Reply(201, body, _versioned_headers(body, location))


def no_content() -> Reply:
    return Reply(204)
