"""Every generic route has a handler file of its own: `make regenerate` writes a missing one, and never again.

No module is built at import (no `sys.meta_path` finder): `inspect.getsource` reads every handler, mypy checks it,
and a traceback names its file.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import routes
from examples.teams.routes import TEAM_ROUTES
from local import handler_files
from local.openapi import _handler_modules

GENERIC = [route for route in routes.ROUTES if route.generic]
FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"


def test_the_product_serves_some_routes_generically_each_from_a_file_it_owns() -> None:
    served = {route.key for route in GENERIC}
    assert {"POST /accounts", "PATCH /orders/{orderId}", "DELETE /accounts/{accountId}"} <= served
    _handler_modules()  # the environment a handler module is imported in (a boto3 client, no call)
    for route in GENERIC:
        module = importlib.import_module(route.handler)
        assert module.endpoint.route is route and callable(module.handler)
        assert inspect.getsource(module).startswith(f'"""{route.key}: '), route.handler


def test_no_handler_is_built_by_an_import_hook() -> None:
    for path in FUNCTIONS.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "meta_path" not in text and "__instancecheck__" not in text, path


def test_regenerating_writes_a_missing_handler_and_its_package_and_keeps_an_owned_one(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(routes, "ROUTES", (*routes.ROUTES, *TEAM_ROUTES))
    owned = tmp_path / "examples" / "teams" / "get_team.py"
    owned.parent.mkdir(parents=True)
    owned.write_text("# the team's own\n")
    written = handler_files.write_missing(tmp_path)
    names = sorted(str(path.relative_to(tmp_path)) for path in written if "teams" in path.parts)
    assert names == [
        "examples/teams/__init__.py",
        "examples/teams/create_team.py",
        "examples/teams/delete_team.py",
        "examples/teams/update_team.py",
    ]
    assert owned.read_text() == "# the team's own\n"
    assert handler_files.write_missing(tmp_path) == []


def test_the_examples_handlers_are_what_regenerating_writes() -> None:
    """examples/teams/ ships the files `make regenerate` writes for its routes, unchanged."""
    for route in TEAM_ROUTES:
        shipped = FUNCTIONS.parent.joinpath(*route.handler.split(".")).with_suffix(".py")
        assert shipped.read_text(encoding="utf-8") == handler_files.source(route), route.handler
