"""The lock audit's DynamoDB calls filed under the audit Lambda's grant (tests/test_table_access.py judges them
there), while the seeding a test does through the layer is filed under no function."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from ddbguard.domain import lock_audit
from local.invocation import running


def _as_audit_function(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        with running("audit_locks"):
            return function(*args, **kwargs)

    return run


def file_under_the_audit_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """For one test (from an autouse fixture): the audit and its repairs run as the audit function."""
    for name in ("audit_locks", "_repair"):
        monkeypatch.setattr(lock_audit, name, _as_audit_function(getattr(lock_audit, name)))
