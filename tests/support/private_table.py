"""A table of a test's own, for tests that scan the whole table (the lock audit): nothing of other tests in it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from local.table import ensure_table


def private_table(raw_client: Any, monkeypatch: pytest.MonkeyPatch, name: str) -> Iterator[str]:
    """Create `name`, point the layer at it for this test, and delete it afterwards (use from a fixture)."""
    ensure_table(raw_client, name)
    monkeypatch.setenv("TABLE_NAME", name)
    yield name
    raw_client.delete_table(TableName=name)
