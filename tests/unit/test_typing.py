"""A handler's request is what its annotation says: `Request[Amount, None]` receives an `Amount`.

Each hand-written handler's operation is typed with its body and query classes; the edge validates into exactly the
classes the route table names, so the annotation tells the truth. Shown at runtime on every route with a body or a
query: the handler is sent its sample event, and what arrives is an instance of the annotated class, which answers
to that class's own keyword constructor (a stand-in that only looked like it would not). mypy checks the same
statically (tests/typing_tests/request_bodies.py, in `make lint`).
"""

from __future__ import annotations

import importlib
import typing
from typing import Any

import pytest

import routes
from ddbguard_api.http.request import Request
from ddbguard_api.models.request_bodies import BODIES
from local.events import sample_event
from local.lambda_context import LambdaContext
from local.openapi import _handler_modules

TYPED = [route for route in routes.ROUTES if not route.generic and (route.body or route.query)]


class _Stop(Exception):
    """Raised by the spy once it holds the request: the domain is never asked."""


def _annotation(route: routes.Route) -> tuple[Any, Any]:
    module = importlib.import_module(route.handler)
    operation = module.endpoint._operation
    hint = typing.get_type_hints(operation, vars(module))["request"]
    assert typing.get_origin(hint) is Request, route.handler
    body, query = typing.get_args(hint)
    return body, query


def _received(route: routes.Route, monkeypatch: pytest.MonkeyPatch) -> Request[Any, Any]:
    module = importlib.import_module(route.handler)
    seen: list[Request[Any, Any]] = []

    def spy(request: Request[Any, Any]) -> Any:
        seen.append(request)
        raise _Stop

    monkeypatch.setattr(module.endpoint, "_operation", spy)
    module.handler(sample_event(route), LambdaContext(function_name=f"ddbguard-{route.operation}"))
    assert len(seen) == 1, route.key
    return seen[0]


@pytest.mark.parametrize("route", TYPED, ids=lambda route: route.operation)
def test_a_handler_is_annotated_with_the_classes_its_route_names(route: routes.Route) -> None:
    _handler_modules()
    body, query = _annotation(route)
    assert body is (BODIES[route.body] if route.body else type(None)), route.key
    assert query is (BODIES[route.query] if route.query else type(None)), route.key


@pytest.mark.parametrize("route", TYPED, ids=lambda route: route.operation)
def test_what_arrives_is_the_annotated_class_itself(route: routes.Route, monkeypatch: pytest.MonkeyPatch) -> None:
    _handler_modules()
    body_class, query_class = _annotation(route)
    request = _received(route, monkeypatch)
    for value, declared in ((request.body, body_class), (request.query, query_class)):
        if declared is type(None):
            assert value is None
            continue
        assert type(value) is declared, (route.key, type(value))
        # The class's own constructor, by keyword: only the real class has it.
        assert declared(**vars(value)) == value
