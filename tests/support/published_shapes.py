"""The fields a response carries: the ones promised to clients, and the published document's (docs/openapi.json,
which `make regenerate` writes from the declarations).

A response holds exactly what the document publishes, and that includes every promised field. So a field added to
a declaration is an addition the document publishes (`make api-check` tells an addition from a break) and passes;
a promised field gone, or a field the document does not publish, fails.
"""

from __future__ import annotations

import json
from functools import cache

from local.paths import ROOT

# An account's JSON as promised to clients since 0.1.0: these eight, whatever a declaration adds.
PROMISED_ACCOUNT_FIELDS = frozenset(
    {"accountId", "email", "username", "displayName", "closing", "version", "createdAt", "updatedAt"}
)


@cache
def published_fields(component: str) -> frozenset[str]:
    """The properties of a response component of docs/openapi.json (`Account`, `Order`, ...)."""
    document = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    return frozenset(document["components"]["schemas"][component]["properties"])
