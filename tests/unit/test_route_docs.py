"""Every route has its OpenAPI wording (local/route_docs.py), and every entry there names a route."""

from __future__ import annotations

import routes
from examples.teams.routes import TEAM_ROUTES
from local.route_docs import ROUTE_DOCS, RouteDocs, docs_of


def test_every_route_has_words_and_every_entry_names_a_route() -> None:
    for route in routes.ROUTES:
        docs = docs_of(route)
        assert docs.reply, route.key
        # OpenAPI takes a hand-written handler's summary from its docstring, a generic route's from here.
        assert bool(docs.summary) == route.is_generic, route.key
    assert set(ROUTE_DOCS) <= {route.operation for route in routes.ROUTES}


def test_a_generic_route_gets_its_words_from_its_entity_and_method() -> None:
    create, get, change, delete = TEAM_ROUTES
    assert docs_of(create) == RouteDocs(reply="The new team.", summary="Create a team, its slug unique")
    assert docs_of(get) == RouteDocs(reply="The team.", summary="The caller's team, with its ETag")
    assert docs_of(change).summary == "Change the team at the If-Match version"
    assert docs_of(delete) == RouteDocs(
        reply="Deleted, with its locks.", summary="Delete the team at the If-Match version, with its locks"
    )


def test_a_declared_entry_overrides_only_what_it_says() -> None:
    delete_account = routes.by_operation("delete_account")
    assert docs_of(delete_account) == ROUTE_DOCS["delete_account"]
    get_order = routes.by_operation("get_order")
    assert docs_of(get_order).reply == "The order." and docs_of(get_order).summary == ROUTE_DOCS["get_order"].summary
