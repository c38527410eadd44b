"""Writes the handler module of every generic route that has none yet (`make regenerate`), then leaves it alone.

A route served by its entity's generic operation (`routes.generic.entity_route`, `crud_routes`) names its handler
module as any route does (`teams.update_team`, the file functions/<package>/<module>.py). The first
`make regenerate` after the route is declared writes that file: its docstring (what the route does, OpenAPI's
summary) and one call to `entity_endpoint` for its route. From then on the file is the team's own, like any handler:
it passes its domain's hooks by keyword (`update_rules=teams.update_rules`), and this never writes over it. A package
folder that does not exist yet gets its `__init__.py` too. tests/unit/test_route_facts.py fails when a route's
handler names no file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import local  # noqa: F401 - functions/ and the layer on sys.path
import routes
from local.paths import ROOT
from routes import Route

FUNCTIONS = ROOT / "functions"


def handler_path(route: Route, functions: Path = FUNCTIONS) -> Path:
    """functions/<package>/<module>.py of the route's handler."""
    return functions.joinpath(*route.handler.split(".")).with_suffix(".py")


def summary(route: Route) -> str:
    """What a generic route does, from its entity and method: the first line of its handler's docstring."""
    entity = route.entity
    if entity is None:
        raise ValueError(f"{route.key} names no entity")
    kind = entity.kind
    if route.method == "POST":
        unique = f", its {', '.join(u.field for u in entity.unique)} unique" if entity.unique else ""
        return f"create a {kind}{unique}"
    if route.method == "GET":
        return f"the caller's {kind}, with its ETag"
    if route.method == "PATCH":
        return f"update the {kind} at the If-Match version"
    return f"delete the {kind} at the If-Match version" + (", with its locks" if entity.unique else "")


def source(route: Route) -> str:
    return (
        f'"""{route.key}: {summary(route)}.\n\n'
        "Written by `make regenerate` (local/handler_files.py), then yours: pass your domain's hooks to\n"
        "`entity_endpoint` by keyword (`clean_values`, `update_rules`, `delete_rules`:"
        " ddbguard_api.http.entity_endpoints).\n"
        '"""\n\n'
        "from ddbguard_api.http.entity_endpoints import entity_endpoint\n"
        "from routes import by_handler\n\n"
        "endpoint, handler = entity_endpoint(by_handler(__name__))\n"
    )


def write_missing(functions: Path = FUNCTIONS) -> list[Path]:
    """Write every generic route's missing handler module (and its package's `__init__.py`); the paths written."""
    written = []
    for route in routes.ROUTES:
        path = handler_path(route, functions)
        if not route.generic or path.exists():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        package = path.parent / "__init__.py"
        if not package.exists():
            package.write_text(f'"""The {path.parent.name} routes\' handlers, one module per route."""\n')
            written.append(package)
        path.write_text(source(route))
        written.append(path)
    return written


def main() -> int:
    for path in write_missing():
        print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
