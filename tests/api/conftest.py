"""schemathesis items: a node id of their own each, and their tests built on the worker that runs them.

Node ids: schemathesis 4.32 names an item `test_x[GET /accounts]` but builds it with no parametrization, and
pytest 9 builds an item's node id from its function name and parametrization: every operation's item got the same
id. pytest-xdist schedules by node id, so one of them ran and the rest were silently dropped (tests/suite.py runs
under xdist).

Built where they run: schemathesis builds each operation's Hypothesis test while collecting, coverage-phase
examples included, and those examples cost about 20 s of CPU (regex strategies over the document's patterns).
Under pytest-xdist every worker collects everything, so every worker paid it at its start, for a module only
one of them runs. Here collection makes a stand-in with the real test's signature (so pytest resolves the same
fixtures), and the item's set-up builds the real test with the very arguments schemathesis passed: the same
examples, the same settings, the same checks, built once. schemathesis has no option for this; it patches one
function of schemathesis' pytest plugin (pinned in requirements-dev.txt).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis.pytest._test_builder as test_builder

_build_operation_test = test_builder.build_operation_test
# stand-in -> what builds the real test; kept here, not on the function, whose attributes become the item's keywords
_DEFERRED: dict[Callable[..., Any], Callable[[], Callable[..., Any]]] = {}


def _deferred_operation_test(**arguments: Any) -> Callable[..., Any]:
    test = arguments["test_func"]
    filled = {"case", *arguments["given_kwargs"]}  # what Hypothesis passes; pytest passes the rest (fixtures)
    signature = inspect.signature(test)

    def stand_in(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the real test is built at the item's set-up (tests/api/conftest.py)")

    stand_in.__name__ = stand_in.__qualname__ = test.__name__
    stand_in.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for name, p in signature.parameters.items() if name not in filled]
    )
    _DEFERRED[stand_in] = functools.partial(_build_operation_test, **arguments)
    return stand_in


test_builder.build_operation_test = _deferred_operation_test


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        label = getattr(item, "operation_label", None)
        if label and item.nodeid.endswith(f"::{item.originalname}"):  # type: ignore[attr-defined]
            item._id = item.parent.id.child(item.originalname).with_params(label)  # type: ignore[attr-defined]
        if isinstance(item, pytest.Function) and item.obj in _DEFERRED:
            item.add_marker("hypothesis")  # as Hypothesis' plugin marks the tests it sees built


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if isinstance(item, pytest.Function) and item.obj in _DEFERRED:
        item.obj = _DEFERRED.pop(item.obj)()
