"""Request models named at import, built at first use: pydantic stays off a handler's import path.

Importing pydantic's BaseModel costs about half of `import boto3`, which a cold start pays before the first request
even arrives (bench/cold.py). The edge holds a route's model (named in the route table) here instead, and the
model class (with pydantic) is imported when the first request is parsed, or before a SnapStart snapshot
(`ddbguard.snapshot_hooks`), whichever comes first. What the edge does with a model class works on the stand-in:
`model_validate`, any other class attribute, `isinstance`, `__name__`.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from typing import Any

from ddbguard import snapshot_hooks

MODELS_MODULE = "ddbguard_api.models"


class LazyModel:
    """Stands in for `ddbguard_api.models.<name>`; attribute access goes to the class, imported on first use."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    @cached_property
    def model(self) -> Any:
        return getattr(importlib.import_module(MODELS_MODULE), self.__name__)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # copy/pickle probes: not the model's business
            raise AttributeError(attribute)
        return getattr(self.model, attribute)

    def __instancecheck__(self, instance: object) -> bool:
        return isinstance(instance, self.model)

    def __repr__(self) -> str:
        return f"LazyModel({self.__name__!r})"


def lazy_model(name: str) -> Any:
    """The stand-in for the model class `name` (type checkers should see the class itself, under TYPE_CHECKING)."""
    model = LazyModel(name)
    # With SnapStart the snapshot should hold the built model: init is paid once, restores are not.
    snapshot_hooks.before_snapshot(lambda: model.model.model_rebuild(force=True))
    return model


def resolved(model: Any) -> Any:
    """The model class itself (for code that inspects it, e.g. OpenAPI generation); None stays None."""
    return model.model if isinstance(model, LazyModel) else model
