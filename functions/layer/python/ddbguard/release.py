"""Which release of ddbguard this code is: the `version` in pyproject.toml's `[project]` table.

A deployed function has no pyproject.toml beside it, so the layer carries the number; a unit test
(tests/unit/test_release.py) holds the two equal, so pyproject.toml stays the one place to change it.
"""

__all__ = ["VERSION"]

VERSION = "0.1.0"
