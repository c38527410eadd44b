"""Request models named at import, validated at first use without pydantic: neither init nor a request imports it.

Importing pydantic's BaseModel costs about half of `import boto3` (bench/cold.py), and a first request would pay it.
A handler names its model here instead. `model_validate` runs pydantic-core alone on the model's core schema,
generated ahead from ddbguard_api/models.py into ddbguard_api/compiled_schemas.py: the same engine, so the same
values, error types and messages (a test compares them with pydantic's). The result is a `Body`: the fields as
attributes and `model_dump()`. A model left out of that module (one whose validator is not a plain function, or
an entity's derived model) is imported with pydantic and validates as before. The validator is built at the first
request, or before a SnapStart snapshot (`ddbguard.snapshot_hooks`), whichever comes first. Anything else the edge
asks of a model class (OpenAPI generation) goes to the pydantic class: `resolved`, or any other attribute.
"""

from __future__ import annotations

import importlib
from functools import cache, cached_property
from typing import Any

from ddbguard import snapshot_hooks

MODELS_MODULE = "ddbguard_api.models"
COMPILED_MODULE = "ddbguard_api.compiled_schemas"


class Body:
    """A body or query as pydantic-core validated it: its fields as attributes (the slots are pydantic-core's)."""

    __slots__ = ("__dict__", "__pydantic_extra__", "__pydantic_fields_set__", "__pydantic_private__")

    def model_dump(self) -> dict[str, object]:
        return {name: _dumped(value) for name, value in self.__dict__.items()}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self.__dict__.items())))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__name__}({fields})"


def _dumped(value: Any) -> Any:
    if isinstance(value, Body):
        return value.model_dump()
    if isinstance(value, list):
        return [_dumped(item) for item in value]
    return value


@cache
def body_class(name: str) -> type[Body]:
    """One class per model name, so `isinstance` agrees across every validator that returns it."""
    return type(name, (Body,), {"__slots__": ()})


FUNCTION_KEY = "__function__"  # ddbguard_api.models.FUNCTION_KEY: a plain validator function, `module:name`


def _function(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def _with_classes(schema: Any) -> Any:
    """The literal schema with each model's name replaced by its `Body` class, each function named by its function."""
    if isinstance(schema, dict):
        if set(schema) == {FUNCTION_KEY}:
            return _function(schema[FUNCTION_KEY])
        if schema.get("type") == "model":
            return {**{k: _with_classes(v) for k, v in schema.items()}, "cls": body_class(schema["cls"])}
        return {key: _with_classes(value) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_with_classes(item) for item in schema]
    return schema


def compiled_validator(name: str) -> Any:
    """pydantic-core's validator for the model `name`, or None when only pydantic can validate it."""
    schema = importlib.import_module(COMPILED_MODULE).SCHEMAS.get(name)
    if schema is None:
        return None
    from pydantic_core import SchemaValidator

    return SchemaValidator(_with_classes(schema))


class LazyModel:
    """Stands in for `ddbguard_api.models.<name>`; attribute access goes to the class, imported on first use."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    @cached_property
    def model(self) -> Any:
        return getattr(importlib.import_module(MODELS_MODULE), self.__name__)

    @cached_property
    def validator(self) -> Any:
        return compiled_validator(self.__name__)

    def model_validate(self, document: Any, *, strict: bool | None = None) -> Any:
        """The validated `Body` (or the pydantic model, for a model only pydantic validates); raises
        `pydantic_core.ValidationError`, which is pydantic's own `ValidationError`."""
        if self.validator is None:
            return self.model.model_validate(document, strict=strict)
        return self.validator.validate_python(document, strict=strict)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # copy/pickle probes: not the model's business
            raise AttributeError(attribute)
        return getattr(self.model, attribute)

    def __instancecheck__(self, instance: object) -> bool:
        if self.validator is not None:
            return isinstance(instance, body_class(self.__name__))
        return isinstance(instance, self.model)

    def __repr__(self) -> str:
        return f"LazyModel({self.__name__!r})"


def lazy_model(name: str) -> Any:
    """The stand-in for the model class `name` (type checkers should see the class itself, under TYPE_CHECKING)."""
    model = LazyModel(name)
    # With SnapStart the snapshot should hold the built validator: init is paid once, restores are not.
    snapshot_hooks.before_snapshot(lambda: model.validator or model.model.model_rebuild(force=True))
    return model


def resolved(model: Any) -> Any:
    """The model class itself (for code that inspects it, e.g. OpenAPI generation); None stays None."""
    return model.model if isinstance(model, LazyModel) else model
