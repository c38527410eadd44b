"""Floor 3, the domain: accounts, ledgers, holds, transfers, orders, statements, the lock audit.

Each operation is written with the guards below it and raises the domain errors of
`ddbguard.errors`; nothing here knows HTTP.

The library's part (public): normalisation and look-alikes (`normalize`), the lock audit (`lock_audit`,
`audit_scan`), the settlement sweeper (`settlement_sweep`) and `pseudonyms`. The rest is the product's own domain
(`PRODUCT_MODULES`).
"""

__all__ = ["audit_scan", "lock_audit", "normalize", "pseudonyms", "settlement_sweep"]

# The product's own modules in this package: every one `__all__` does not name (accounts, ledger, holds, transfers,
# orders, statements, entities, ... and a team's new resource's rules). Shipped in the layer, no API (ddbguard's
# docstring); tests/unit/test_public_imports.py reads "*" so.
PRODUCT_MODULES = ("*",)
