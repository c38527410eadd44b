"""What one call of a compared implementation answered."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    ok: bool
    status: str  # what it told the client: created / taken / insufficient_funds / replayed ...
