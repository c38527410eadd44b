"""Request headers: case-insensitive lookup, strict If-Match and Idempotency-Key parsing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ddbguard.limits import IDEMPOTENCY_KEY_MAX_CHARS
from ddbguard_api.http.problems import EdgeError

if TYPE_CHECKING:
    from ddbguard_api.http.proxy_events import ProxyEvent

__all__ = [
    "MAX_SAFE_VERSION",
    "NEVER_MATCHES",
    "header_values",
    "parse_idempotency_key",
    "parse_if_match",
    "single_header",
]

MAX_SAFE_VERSION = 2**53  # versions are JSON numbers; beyond this clients lose precision
NEVER_MATCHES = -1  # a syntactically valid If-Match that names no version of ours
_STRONG_VERSION = re.compile(r'"(0|[1-9][0-9]{0,15})"')
# RFC 9110 entity-tag: optional W/ then a quoted string of etagc characters.
_ENTITY_TAG = re.compile(r'(W/)?"[\x21\x23-\x7e\x80-\xff]*"')
_IDEMPOTENCY_KEY = re.compile(rf"[\x21-\x7e]{{1,{IDEMPOTENCY_KEY_MAX_CHARS}}}")


def header_values(event: ProxyEvent, name: str) -> list[str]:
    """Every value sent for `name`, whatever its case, counting repeats."""
    wanted = name.lower()
    multi = event.get("multiValueHeaders") or {}
    values = [v for k, vs in multi.items() if k.lower() == wanted for v in (vs or [])]
    if values:
        return values
    return [v for k, v in (event.get("headers") or {}).items() if k.lower() == wanted and v is not None]


def single_header(event: ProxyEvent, name: str, code: str) -> str | None:
    values = header_values(event, name)
    if len(values) > 1:
        raise EdgeError(400, code, f"Send the {name} header once.")
    return values[0] if values else None


def parse_if_match(raw: str | None) -> int | None:
    """The expected version from `If-Match: "<version>"`.

    None when absent. A well-formed entity-tag that is not one of our strong numeric tags
    (`*`, `W/"7"`, `"07"`, a list) can never match: NEVER_MATCHES, so the guarded write fails
    and answers 412 with the current item. Anything that is not an entity-tag at all is a 400.
    """
    if raw is None:
        return None
    value = raw.strip(" \t")
    match = _STRONG_VERSION.fullmatch(value)
    if match and value == raw:
        version = int(match.group(1))
        return version if version <= MAX_SAFE_VERSION else NEVER_MATCHES
    tags = [tag.strip(" \t") for tag in value.split(",")]
    if value == "*" or (value and all(_ENTITY_TAG.fullmatch(tag) for tag in tags)):
        return NEVER_MATCHES
    raise EdgeError(400, "invalid_if_match", 'If-Match must be a strong ETag such as "3".')


def parse_idempotency_key(raw: str | None) -> str | None:
    """1-255 visible ASCII characters; a structured-field string ("...") is unwrapped."""
    if raw is None:
        return None
    value = raw
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        value = value[1:-1]
    if not _IDEMPOTENCY_KEY.fullmatch(value) or "," in value or '"' in value:
        raise EdgeError(
            400, "invalid_idempotency_key", "Idempotency-Key must be 1-255 visible ASCII characters, sent once."
        )
    return value
