"""Routes declared beside the product's, for one test module, as if they were in functions/routes/.

`make regenerate` writes a declared resource's body classes and their compiled schemas into the layer; for a resource
a test declares only for itself (the guide's example, examples/teams/), the same generated code is loaded into this
process instead, and taken out again afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import routes
from ddbguard.guards.entity import Entity
from ddbguard_api.models import compiled_schemas, request_bodies
from ddbguard_api.models.entity_models import request_models_of
from local import generate_bodies


@contextmanager
def declared_beside(added: tuple[routes.Route, ...], entities: tuple[Entity, ...]) -> Iterator[pytest.MonkeyPatch]:
    """The route table with `added` routes and `entities`, and the entities' body classes loaded."""
    patch = pytest.MonkeyPatch()
    patch.setattr(routes, "ROUTES", (*routes.ROUTES, *added))
    patch.setattr(routes, "ENTITIES", (*routes.ENTITIES, *entities))
    bodies_source, schemas_source = generate_bodies.sources(
        [model for entity in entities for model in request_models_of(entity)]
    )
    classes: dict[str, Any] = {}
    exec(compile(bodies_source, "<request_bodies beside>", "exec"), classes)
    for name, body in classes["BODIES"].items():  # in place: the edge holds the registry itself
        patch.setitem(request_bodies.BODIES, name, body)
        patch.setattr(request_bodies, name, body, raising=False)
    schemas: dict[str, Any] = {}
    exec(compile(schemas_source, "<compiled_schemas beside>", "exec"), schemas)
    for body, schema in schemas["SCHEMAS"].items():
        patch.setitem(compiled_schemas.SCHEMAS, body, schema)
    try:
        yield patch
    finally:
        patch.undo()
