"""The caller, as API Gateway's Cognito authorizer (or the local stand-in) put it in the event."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ddbguard_api.http.proxy_events import ProxyEvent

__all__ = ["ADMIN_GROUP", "Caller", "caller_from_event"]

ADMIN_GROUP = "admin"


class Caller(NamedTuple):
    sub: str
    groups: frozenset[str]

    @property
    def is_admin(self) -> bool:
        return ADMIN_GROUP in self.groups


def _groups(raw: object) -> frozenset[str]:
    # API Gateway flattens claims to strings: a list arrives as "a,b", "[a b]" or a JSON array.
    if raw is None:
        return frozenset()
    if isinstance(raw, list):
        return frozenset(str(g) for g in raw)
    text = str(raw).strip()
    if text.startswith("[") and text.endswith("]"):
        try:
            parsed = json.loads(text)
            if isinstance(parsed, list):
                return frozenset(str(g) for g in parsed)
        except ValueError:
            text = text[1:-1]
    return frozenset(g for g in re.split(r"[,\s]+", text) if g)


def caller_from_event(event: ProxyEvent) -> Caller | None:
    claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("claims") or {}
    sub = claims.get("sub") if isinstance(claims, dict) else None
    if not isinstance(sub, str) or not sub.strip() or len(sub) > 128:
        return None
    return Caller(sub=sub, groups=_groups(claims.get("cognito:groups")))
