"""The handlers of the routes `crud_routes` declares (functions/routes.py): `crud.<operation>`, with no file each.

Importing crud.create_team (for a route of `TEAM`) builds that module from its route: `endpoint` and `handler` from
`ddbguard_api.entity_endpoints.entity_endpoint`, and as docstring the route's `METHOD /path` and the generic
operation that serves it (OpenAPI's wording is local/route_docs.py's). Each route stays its own module, so its own
Lambda function. A module finder rather than a file per route: Lambda's runtime, the local server and the tests
import `<handler>` and read `.handler` for these exactly as for the hand-written ones, and a new resource writes no
handler.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType


class GenericOperationFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `crud.<operation>` for every generic route of the route table, and builds it."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(f"{__name__}."):
            return None
        import routes  # the route table, at import time (a test may have added routes beside the product's)

        if not any(route.handler == fullname for route in routes.ROUTES):
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        import routes
        from ddbguard_api.entity_endpoints import entity_endpoint
        from generic_routes import CRUD_VERBS

        route = routes.by_handler(module.__name__)
        kind = route.entity.kind if route.entity is not None else "item"
        module.__doc__ = f"{route.key}: the generic {CRUD_VERBS[route.method]} of the {kind}"
        module.endpoint, module.handler = entity_endpoint(route)  # type: ignore[attr-defined]


if not any(isinstance(finder, GenericOperationFinder) for finder in sys.meta_path):
    sys.meta_path.append(GenericOperationFinder())
