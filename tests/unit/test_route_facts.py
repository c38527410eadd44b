"""Every runtime per-route fact lives in the route table: no other module keeps its own list of operations.

A dict, set, list or tuple literal naming three or more operations (as keys or elements) outside
functions/routes.py is a second table that a new route would have to be added to by hand; the consumers
(OpenAPI, request parsing, the demo, the tests over every route) read `routes.ROUTES` instead. The two tables
that describe routes to readers, keyed by operation (local/route_docs.py, local/walkthrough_steps.py), are the
exception by design: tests/unit/test_route_docs.py and test_walkthrough_steps.py check them complete both ways.
The table itself holds runtime facts only: no wording, sample body, demo id or walk-through step.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import routes
from ddbguard.domain.entities.accounts import ACCOUNT
from generic_routes import entity_route

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".venv", "node_modules", "cdk.out", ".local", ".git"}
OPERATIONS = {route.operation for route in routes.ROUTES}
TABLES_BY_OPERATION = {
    ROOT / path for path in ("functions/routes.py", "local/route_docs.py", "local/walkthrough_steps.py")
}


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


def operation_tables(path: Path) -> list[tuple[int, set[str]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        (getattr(node, "lineno", 0), named) for node in ast.walk(tree) if len(named := _operations_named(node)) >= 3
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
    assert not described & set(routes.Route._fields)
    source = (ROOT / "functions" / "routes.py").read_text(encoding="utf-8")
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    assert not uuid.search(source) and "demo" not in source.casefold() and "Walkthrough" not in source


def test_a_generic_route_lists_the_refusals_of_its_method():
    """The 404 every generic route shares must not replace what a create or a change refuses besides."""
    facts = {
        method: entity_route(ACCOUNT, method, "/things/{accountId}", f"things.{method.lower()}").problems
        for method in ("POST", "GET", "PATCH", "DELETE")
    }
    assert facts["POST"][409] == ("unique_violation", "already_exists")
    assert facts["POST"][422] == ("validation_failed",)
    assert facts["PATCH"] == {404: ("account_not_found",), 409: ("unique_violation",), 422: ("validation_failed",)}
    assert facts["GET"] == facts["DELETE"] == {404: ("account_not_found",)}
