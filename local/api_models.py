"""The API's pydantic models by name, for what describes the API: the OpenAPI document and the tests of it.

The route table names a route's body, query and response by name (`Route.body`, `.query`, `.response`): request
models are the hand-written ones (`ddbguard_api.models.request_models`) and each declared entity's derived create and
update bodies; response models the hand-written ones (`ddbguard_api.models.response_models`) and each entity's
derived response. Explicit lists, built here: nothing is found by a module `__getattr__`.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import local  # noqa: F401 - functions/ and the layer on sys.path

if TYPE_CHECKING:
    from pydantic import BaseModel


def request_models() -> dict[str, type[BaseModel]]:
    """Every request body and query model, by name."""
    from local.generate_bodies import source_models

    return {model.__name__: model for model in source_models()}


def response_models() -> dict[str, type[BaseModel]]:
    """Every response model, by name: the hand-written ones and each declared entity's."""
    import routes
    from ddbguard_api.models import response_models as written
    from ddbguard_api.models.entity_models import response_model_of
    from ddbguard_api.models.model_bases import ResponseModel

    found: dict[str, type[BaseModel]] = {
        name: model
        for name, model in vars(written).items()
        if isinstance(model, type) and issubclass(model, ResponseModel) and model is not ResponseModel
    }
    found.update({entity.title: response_model_of(entity) for entity in routes.ENTITIES})
    return found


@cache
def request_model(name: str) -> type[BaseModel]:
    return request_models()[name]


@cache
def response_model(name: str) -> type[BaseModel]:
    return response_models()[name]
