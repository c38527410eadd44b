"""ddbguard: data-integrity primitives for a single DynamoDB table.

Uniqueness (lock items in one transaction), condition-expression guards and optimistic
locking. Knows DynamoDB and the domain; knows nothing of HTTP.

The public API is what `__all__` names: a module is public when its package's `__all__` names it, a name when its
module's `__all__` does. Everything else is internal and may change in any release; `make api-check` holds the
public part to the last release's (api/). The product's own domain (accounts, ledgers, holds, transfers, orders,
statements: each package's `PRODUCT_MODULES`) ships in the layer beside the library, is no API, and uses the library
through its public names only (tests/unit/test_public_imports.py).
"""

__all__ = ["domain", "errors", "guards", "limits", "observability", "records", "release", "store", "tracing"]
