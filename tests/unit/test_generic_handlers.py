"""The `crud` package builds a handler module for every generic route, and for nothing else."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

import routes
from generic_routes import CRUD_VERBS
from local.openapi import _handler_modules
from route_facts import GENERIC_HANDLERS

GENERIC = [route for route in routes.ROUTES if route.is_generic]


def test_the_product_serves_some_routes_generically() -> None:
    served = {route.key for route in GENERIC}
    assert {"POST /accounts", "PATCH /orders/{orderId}", "DELETE /accounts/{accountId}"} <= served


@pytest.mark.parametrize("route", GENERIC, ids=lambda route: route.operation)
def test_each_generic_route_has_its_own_module_with_a_handler(route: routes.Route) -> None:
    _handler_modules()  # the environment a handler module is imported in (a boto3 client, no call)
    module = importlib.import_module(route.handler)
    assert callable(module.handler) and module.endpoint.route is route
    assert route.entity is not None and module.__doc__ == (
        f"{route.key}: the generic {CRUD_VERBS[route.method]} of the {route.entity.kind}"
    )


def test_a_name_no_route_has_is_no_module() -> None:
    assert importlib.util.find_spec(f"{GENERIC_HANDLERS}.no_such_operation") is None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"{GENERIC_HANDLERS}.no_such_operation")
