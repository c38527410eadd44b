"""Personal values (emails, usernames) as they may appear in telemetry: keyed hashes, never the value.

A tag is HMAC-SHA256 under a key drawn at random for each `Pseudonyms` instance (one per audit run): two
findings of one run about the same value carry the same tag, so they can be told apart and matched, but nobody
can recompute a tag from a guessed email afterwards (an unkeyed hash of an email is a dictionary lookup away
from the email). The account id beside it says where to look, for whoever may read the table.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING

from ddbguard.store import keys
from ddbguard.store.attribute_names import FIELD

if TYPE_CHECKING:  # the audit imports more than a tag needs
    from ddbguard.domain.lock_audit import Finding

__all__ = ["Pseudonyms"]


class Pseudonyms:
    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    def tag(self, value: str) -> str:
        return "hmac-sha256:" + hmac.new(self._key, value.encode(), hashlib.sha256).hexdigest()[:20]

    def lock_partition(self, partition: str) -> str:
        """`UNIQ#EMAIL#<value>` -> `UNIQ#EMAIL#<tag>`: lock keys embed the value they protect."""
        kind, value = keys.lock_parts(partition)
        return keys.lock_partition(kind, self.tag(value))

    def finding(self, finding: Finding) -> dict[str, object]:
        """A lock-audit finding as it is logged: the value and the lock key as tags."""
        return {
            "problem": finding.problem,
            FIELD: finding.field,
            "entity": finding.entity,
            "ownerId": finding.owner_id,
            "lock": self.lock_partition(finding.lock) if finding.lock else None,
            "valueTag": self.tag(finding.value) if finding.value is not None else None,
            "detail": finding.detail,
            "repaired": finding.repaired,
        }
