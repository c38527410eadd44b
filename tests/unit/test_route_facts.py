"""Every runtime per-route fact lives in the route table: no other module keeps its own list of operations.

A dict, set, list or tuple literal naming three or more operations (as keys or elements) outside
functions/routes/ is a second table that a new route would have to be added to by hand; the consumers
(OpenAPI, request parsing, the demo, the tests over every route) read `routes.ROUTES` instead. The list that
describes routes to readers (local/route_stories.py) is the exception by design: tests/unit/test_route_stories.py
checks it complete both ways. The table itself holds runtime facts only: no wording, sample body, demo id or
walk-through step. And every route's handler is a file, named by a literal that `grep` finds. A module's `__all__`
is no table: it names the module's public functions, some of which serve operations of the same name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import routes
from ddbguard.domain.entities.accounts import ACCOUNT
from routes.generic import CRUD_VERBS, entity_route

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".venv", "node_modules", "cdk.out", ".local", ".git"}
OPERATIONS = {route.operation for route in routes.ROUTES}
TABLE = ROOT / "functions" / "routes" / "__init__.py"
TABLES_BY_OPERATION = {TABLE, ROOT / "local" / "route_stories.py"}


def _sources() -> list[Path]:
    return [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if not SKIPPED & set(path.relative_to(ROOT).parts) and path not in TABLES_BY_OPERATION
    ]


def _operations_named(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Dict):
        elements = [key for key in node.keys if key is not None]
    elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        elements = list(node.elts)
    else:
        return set()
    return {e.value for e in elements if isinstance(e, ast.Constant) and e.value in OPERATIONS}


def _exports(tree: ast.AST) -> set[int]:
    """A module's `__all__` lists its public names, which may be operations' functions: no table of operations."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    }


def operation_tables(path: Path) -> list[tuple[int, set[str]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    exports = _exports(tree)
    return [
        (getattr(node, "lineno", 0), named)
        for node in ast.walk(tree)
        if id(node) not in exports and len(named := _operations_named(node)) >= 3
    ]


def test_no_module_outside_the_route_table_keeps_a_list_of_operations():
    found = {str(path.relative_to(ROOT)): tables for path in _sources() if (tables := operation_tables(path))}
    assert found == {}


def test_the_check_sees_a_table_of_operations(tmp_path):
    """Not vacuous: a module with such a table is caught."""
    planted = tmp_path / "planted.py"
    names = sorted(OPERATIONS)[:3]
    planted.write_text(f"CODES = {dict.fromkeys(names, 1)!r}\n")
    assert operation_tables(planted) == [(1, set(names))]
    assert len(_sources()) > 100


def test_every_route_states_its_facts():
    for route in routes.ROUTES:
        assert (route.status == 204) == (route.response is None), route.key
        assert route.location is None or route.status == 201, route.key
        for parameter in route.path_parameters:
            assert route.not_found_code(parameter) != "not_found", (route.key, parameter)


def test_the_table_holds_runtime_facts_only():
    """How a route is described (wording, sample bodies, demo ids, walk-through) ships in no Lambda function."""
    described = {"reply", "summary", "description", "sample_body", "walkthrough", "example"}
    assert not described & set(routes.Route.__slots__)
    source = TABLE.read_text(encoding="utf-8")
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    assert not uuid.search(source) and "demo" not in source.casefold() and "Walkthrough" not in source


def test_a_generic_route_lists_the_refusals_of_its_method():
    """The 404 every generic route shares must not replace what a create or a change refuses besides."""
    facts = {
        method: entity_route(
            ACCOUNT, method=method, path="/things/{accountId}", handler=f"things.{method.lower()}"
        ).problems
        for method in ("POST", "GET", "PATCH", "DELETE")
    }
    assert facts["POST"][409] == ("unique_violation", "already_exists")
    assert facts["POST"][422] == ("validation_failed",)
    assert facts["PATCH"] == {404: ("account_not_found",), 409: ("unique_violation",), 422: ("validation_failed",)}
    assert facts["GET"] == facts["DELETE"] == {404: ("account_not_found",)}


def test_every_routes_handler_is_a_file_of_its_own():
    """A reader opens it, a traceback names it: `<package>.<module>` is functions/<package>/<module>.py."""
    handlers = [route.handler for route in routes.ROUTES]
    assert len(set(handlers)) == len(handlers)
    for handler in handlers:
        assert (ROOT / "functions").joinpath(*handler.split(".")).with_suffix(".py").is_file(), handler


def _crud_handler(route: routes.Route) -> bool:
    """A handler `crud_routes` names by its one scheme, `<collection>.<verb>_<kind>` (products.get_product): the
    file of that name under functions/ is what a reader finds it by."""
    entity = route.entity
    collection = route.path.strip("/").split("/")[0]
    return (
        route.generic
        and entity is not None
        and route.handler == f"{collection}.{CRUD_VERBS[route.method]}_{entity.kind}"
    )


def test_the_table_names_every_handler_by_a_literal():
    """`grep "orders.get_order"` finds the route: no handler name is built (an f-string, a join) in the table, but
    the four of a `crud_routes(...)` statement, named by its scheme (the guide's one-statement resource)."""
    tree = ast.parse(TABLE.read_text(encoding="utf-8"))
    named = {
        keyword.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "handler" and isinstance(keyword.value, ast.Constant)
    }
    crud_statements = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "crud_routes"
    ]
    built = {route.handler for route in routes.ROUTES if route.handler not in named}
    assert all(_crud_handler(route) for route in routes.ROUTES if route.handler in built)
    assert bool(built) == bool(crud_statements)


def test_a_route_is_a_record_built_by_keyword_only():
    with pytest.raises(TypeError):
        routes.Route("GET", "/health", "health.check_health")
    route = routes.by_operation("check_health")
    assert not isinstance(route, tuple)
    with pytest.raises(TypeError):
        route.access["GetItem"] = ()
