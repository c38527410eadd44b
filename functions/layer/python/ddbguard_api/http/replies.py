"""What an operation hands back to the edge (status, body, headers), and the one conversion to Lambda's
proxy response."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ddbguard_api.http.proxy_events import ProxyResponse

__all__ = [
    "JSON",
    "REPLAYED_HEADER",
    "Reply",
    "add_header",
    "created",
    "etag",
    "json_body",
    "no_content",
    "ok",
    "proxy_response",
]

JSON = "application/json"
# Stripe's name for it: the response is the first attempt's, given again under the same Idempotency-Key.
REPLAYED_HEADER = "Idempotent-Replayed"
# A str holds a surrogate only when a client sent a lone one (`"\\udc00"`): JSON allows the escape, UTF-8 cannot
# encode it. Every response body is written through `json_body`, which replaces it with U+FFFD.
_SURROGATE = re.compile("[\ud800-\udfff]")


class Reply(NamedTuple):
    status: int
    body: Any = None
    headers: Mapping[str, str] = MappingProxyType({})


def json_body(document: Any, *, sort_keys: bool = False) -> str:
    """A response body as JSON text that always encodes as UTF-8, whatever strings a client sent into it."""
    return _SURROGATE.sub("\ufffd", json.dumps(document, ensure_ascii=False, sort_keys=sort_keys))


def etag(version: int) -> str:
    """A strong ETag: the item's version number, quoted."""
    return f'"{int(version)}"'


def ok(body: Any) -> Reply:
    return Reply(200, body)


def created(body: Any) -> Reply:
    return Reply(201, body)


def no_content() -> Reply:
    return Reply(204)


def proxy_response(reply: Reply) -> ProxyResponse:
    """The API Gateway REST proxy response (headers as `multiValueHeaders`, as API Gateway reads them)."""
    headers = dict(reply.headers)
    text = None
    if reply.body is not None:
        headers.setdefault("Content-Type", JSON)
        # A success body is sorted: a replay (read back from the request marker, whose maps DynamoDB returns in
        # any order) is byte for byte the first response. A problem keeps RFC 9457's member order; it is never
        # replayed.
        text = json_body(reply.body, sort_keys=headers["Content-Type"] == JSON)
    return _proxy(reply.status, text, {name: [value] for name, value in headers.items()})


def add_header(response: ProxyResponse, name: str, value: str) -> ProxyResponse:
    """`response` with one more header (or that header's value replaced), its members in the usual order (a
    response given again from Powertools' cache comes back with them sorted)."""
    headers = {**(response.get("multiValueHeaders") or {}), name: [value]}
    return _proxy(response["statusCode"], response.get("body"), headers)


def _proxy(status: int, body: str | None, headers: dict[str, list[str]]) -> ProxyResponse:
    return {"statusCode": status, "body": body, "isBase64Encoded": False, "multiValueHeaders": headers}
