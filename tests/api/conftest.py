"""Each schemathesis test item gets a node id of its own: its operation, as its name already shows.

schemathesis 4.32 names an item `test_x[GET /accounts]` but builds it with no parametrization, and pytest 9 builds
an item's node id from its function name and parametrization: every operation's item got the same id. pytest-xdist
schedules by node id, so one of them ran and the rest were silently dropped (tests/suite.py runs under xdist).
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        label = getattr(item, "operation_label", None)
        if label and item.nodeid.endswith(f"::{item.originalname}"):  # type: ignore[attr-defined]
            item._id = item.parent.id.child(item.originalname).with_params(label)  # type: ignore[attr-defined]
