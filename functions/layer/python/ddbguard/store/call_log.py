"""Every DynamoDB call, counted per request and described at DEBUG: which items, under which conditions.

A botocore hook on the one client (ddbguard.store.client) sees each API call once, before its parameters are
built (a retry by botocore is the same call). It adds one to the count of the request being answered
(`counting()`, opened by the HTTP edge for each invocation: the `calls` of its one INFO line), and when the logger
is at DEBUG it logs the call: operation, each item's key kind and its condition, names resolved, values left as
placeholders. Keys show their kind only (`UNIQ#EMAIL#…`, `ACCT#…`): a lock key embeds the email it protects, and
no log line may carry personal data (tests/integration/test_telemetry_pii.py runs every route at DEBUG).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ddbguard.observability import logger
from ddbguard.store.attribute_names import KEY_ATTRIBUTES

__all__ = ["HOOK_ID", "attach", "counting", "describe", "key_kind"]

HOOK_ID = "ddbguard-call-log"
# A key's kind: its leading upper-case segments (`UNIQ#EMAIL#`, `ACCT#`); the rest is an id or a value.
_KIND = re.compile(r"^(?:[A-Z][A-Z_]*#){1,2}")
_NAME = re.compile(r"#[A-Za-z0-9_]+")
_CONDITION_PARTS = ("ConditionExpression", "UpdateExpression", "KeyConditionExpression", "FilterExpression")
_TRANSACT_ACTIONS = ("Put", "Update", "Delete", "ConditionCheck")

_calls: ContextVar[list[int] | None] = ContextVar("ddbguard_calls", default=None)


@contextmanager
def counting() -> Iterator[list[int]]:
    """Count the calls made inside the block (one invocation); the count is `[n]`, read when the block ends."""
    count = [0]
    token = _calls.set(count)
    try:
        yield count
    finally:
        _calls.reset(token)


def key_kind(value: Any) -> str:
    """`UNIQ#EMAIL#ada@example.com` -> `UNIQ#EMAIL#…`; a constant sort key (`PROFILE`, `LOCK`) as it is."""
    text = value.get("S", "") if isinstance(value, Mapping) else str(value)
    if re.fullmatch(r"[A-Z][A-Z_]*", text):
        return text
    found = _KIND.match(text)
    return f"{found.group(0)}…" if found else "…"


def _key(key: Mapping[str, Any] | None) -> str:
    return "/".join(key_kind(value) for name, value in (key or {}).items() if name in KEY_ATTRIBUTES) or "-"


def _conditions(params: Mapping[str, Any]) -> str:
    names: Mapping[str, str] = params.get("ExpressionAttributeNames") or {}
    parts = []
    for part in _CONDITION_PARTS:
        expression = params.get(part)
        if expression:
            resolved = _NAME.sub(lambda found: names.get(found.group(0), found.group(0)), expression)
            parts.append(f"{part.removesuffix('Expression').lower()}: {resolved}")
    return "; ".join(parts)


def _item(action: str, params: Mapping[str, Any]) -> str:
    key = params.get("Key") or {name: params.get("Item", {}).get(name) for name in KEY_ATTRIBUTES if "Item" in params}
    conditions = _conditions(params)
    return f"{action} {_key(key)}" + (f" ({conditions})" if conditions else "")


def describe(operation: str, params: Mapping[str, Any]) -> list[str]:
    """One entry per item a call touches (a transaction's actions in order), without any value."""
    if operation in ("TransactWriteItems", "TransactGetItems"):
        return [
            _item(action, body)
            for entry in params.get("TransactItems", [])
            for action, body in entry.items()
            if action in (*_TRANSACT_ACTIONS, "Get")
        ]
    if operation in ("Query", "Scan"):
        where = params.get("IndexName") or "table"
        segment = f" segment {params['Segment']}/{params['TotalSegments']}" if "TotalSegments" in params else ""
        conditions = _conditions(params)
        return [f"{operation} {where}{segment}" + (f" ({conditions})" if conditions else "")]
    return [_item(operation, params)]


def _on_call(params: Mapping[str, Any], model: Any, **_: object) -> None:
    count = _calls.get()
    if count is not None:
        count[0] += 1
    if logging.getLogger(logger.name).isEnabledFor(logging.DEBUG):
        logger.debug(f"DynamoDB {model.name}", extra={"actions": describe(model.name, params)})


def attach(client: Any) -> None:
    client.meta.events.register("before-parameter-build.dynamodb", _on_call, unique_id=HOOK_ID)
