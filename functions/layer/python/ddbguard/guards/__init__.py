"""Floor 2, integrity patterns: optimistic versions, unique-value locks, guarded money movements,
request identity and replays, ownership refusals, the re-read/retry loop.

Built on `ddbguard.store`; knows no domain feature (accounts, orders, ...).
Every module here is public.
"""

__all__ = [
    "entity",
    "entity_access",
    "entity_operations",
    "fields",
    "money",
    "owner_index",
    "ownership",
    "replays",
    "request_identity",
    "retry",
    "settlement",
    "uniqueness",
    "versioning",
]
