"""Floor 1, storage: the only code that talks to the DynamoDB client.

Keys, the codec, expressions with placeholders, reads, conditional writes and transactions, and
the one transient-error policy. Knows DynamoDB; knows nothing of the domain.

Internal (no API): `audit_checkpoints`, `call_log`, `clock`, `codec`, `segment_scan`, `transient`.
"""

__all__ = [
    "attribute_names",
    "client",
    "confusables",
    "cursors",
    "expressions",
    "ids",
    "items",
    "keys",
    "plan",
    "readings",
    "reads",
    "shapes",
    "writes",
]
