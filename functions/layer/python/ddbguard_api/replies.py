"""What an operation hands back to the edge: plain status, body and headers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


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
