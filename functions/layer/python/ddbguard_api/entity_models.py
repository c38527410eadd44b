"""The pydantic models of an entity that declares its fields, derived from the declaration, built at first use.

For an entity `team`: `CreateTeam` (the create body: the required fields, the optional ones, and a client-chosen
`teamId` when ids are per owner), `ChangeTeam` (the change body: every field optional, at least one sent) and
`Team` (the response). `ddbguard_api.models` and `ddbguard_api.schemas` answer these names as if they were
written there, so the route table names them as it names any other model, and a handler still imports pydantic
only when its first request is parsed (`ddbguard_api.lazy_models`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import ConfigDict, StrictInt, StrictStr, create_model, model_validator
from pydantic import Field as ModelField

from ddbguard.guards.entity import Entity, declared_entities
from ddbguard.guards.fields import INTEGER, Field
from ddbguard.limits import RESOURCE_ID_PATTERN, UNIQUE_VALUE_RAW_MAX_CHARS
from ddbguard_api.schema_patterns import visible_text_pattern, with_pattern

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.config import JsonDict

# A model field as `create_model` takes it: (annotation, default), `...` for a required one. The annotation is a
# type used as a value (`Annotated[...]`, `X | None`), which mypy types as a special form only `Any` accepts.
type FieldDefinition = tuple[Any, object]

CREATE = "Create"
CHANGE = "Change"


def _value_type(spec: Field) -> Any:
    if spec.type == INTEGER:
        return Annotated[StrictInt, ModelField(ge=spec.minimum, le=spec.maximum, description=spec.description)]
    kind = spec.unique
    if kind is None:  # visible text: at least one character that is not white space
        constraints = ModelField(
            min_length=spec.min_length,
            max_length=spec.max_length,
            pattern=r"\S",
            description=spec.description,
            json_schema_extra=with_pattern(visible_text_pattern),
        )
    else:
        # The layer checks the normalised form by its kind, so the edge bounds only the raw size; the document
        # states the kind's rule, which is what a client should send (as for usernames, ddbguard_api.models).
        extra: JsonDict | None = None
        if kind.pattern:
            extra = {"pattern": kind.sent_pattern, "minLength": kind.min_length, "maxLength": kind.max_length}
        constraints = ModelField(
            min_length=1, max_length=UNIQUE_VALUE_RAW_MAX_CHARS, description=spec.description, json_schema_extra=extra
        )
    return Annotated[StrictStr, constraints]


def _model(name: str, base: type[BaseModel], fields: dict[str, FieldDefinition]) -> type[BaseModel]:
    # Called through `Callable[..., ...]`: mypy checks a `**` mapping's values against every named keyword of
    # `create_model` too (`__config__`, `__doc__`, ...), which no field definition is.
    make: Callable[..., type[BaseModel]] = create_model
    return make(name, __base__=base, **fields)


def _entity_named(name: str, prefix: str) -> Entity | None:
    title = name[len(prefix) :] if name.startswith(prefix) else None
    return next((e for e in declared_entities() if e.fields and e.title == title), None)


def _client_chooses_ids(entity: Entity) -> bool:
    # Ids per owner reveal nothing of others' items, so a client may choose one (a retry-safe create).
    return entity.owner_scoped


def _create_model(entity: Entity) -> type[BaseModel]:
    from ddbguard_api.models import StrictModel

    fields: dict[str, FieldDefinition] = {}
    example: JsonDict = {}
    for name, spec in entity.fields.items():
        value = _value_type(spec)
        fields[name] = (value, ...) if spec.required else (value | None, None)
        example[name] = spec.example
    if _client_chooses_ids(entity):
        fields[entity.id_field] = (Annotated[StrictStr, ModelField(pattern=RESOURCE_ID_PATTERN)] | None, None)

    class WithExample(StrictModel):
        model_config = ConfigDict(json_schema_extra={"examples": [example]})

    return _model(f"{CREATE}{entity.title}", WithExample, fields)


def _change_model(entity: Entity) -> type[BaseModel]:
    from ddbguard_api.models import StrictModel

    names = tuple(entity.fields)
    changeable: dict[str, FieldDefinition] = {
        name: (_value_type(spec) | None, None) for name, spec in entity.fields.items()
    }
    first_plain = next((n for n, s in entity.fields.items() if s.unique is None), names[0])

    class SomethingToChange(StrictModel):
        # "At least one of them" (the validator), said in the schema too.
        model_config = ConfigDict(
            json_schema_extra={
                "examples": [{first_plain: entity.fields[first_plain].example}],
                "anyOf": [{"required": [name], "properties": {name: {"not": {"type": "null"}}}} for name in names],
            }
        )

        @model_validator(mode="after")
        def _something_to_change(self) -> SomethingToChange:
            if all(getattr(self, name) is None for name in names):
                raise ValueError(f"send at least one of {', '.join(names)}")
            return self

    return _model(f"{CHANGE}{entity.title}", SomethingToChange, changeable)


def _response_model(entity: Entity) -> type[BaseModel]:
    from ddbguard_api.schemas import ResponseModel, Timestamp

    fields: dict[str, FieldDefinition] = {entity.id_field: (str, ...)}
    for name, spec in entity.fields.items():
        value: Any = int if spec.type == INTEGER else str
        if spec.unique is not None:
            value = Annotated[str, ModelField(description="Stored normalised (NFKC, case-folded, trimmed).")]
        fields[name] = (value, ...) if spec.required else (value | None, None)
    if entity.versioned:
        fields["version"] = (
            Annotated[int, ModelField(ge=0, description="Grows by 1 on every change; the ETag is this number.")],
            ...,
        )
    fields["createdAt"] = (Timestamp, ...)
    fields["updatedAt"] = (Timestamp, ...)
    return _model(entity.title, ResponseModel, fields)


@cache
def request_model(name: str) -> type[BaseModel]:
    """`Create<Title>` or `Change<Title>` of a declared entity with fields; AttributeError for any other name."""
    for prefix, build in ((CREATE, _create_model), (CHANGE, _change_model)):
        entity = _entity_named(name, prefix)
        if entity is not None:
            return build(entity)
    raise AttributeError(name)


@cache
def response_model(name: str) -> type[BaseModel]:
    """`<Title>` of a declared entity with fields; AttributeError for any other name."""
    entity = _entity_named(name, "")
    if entity is None:
        raise AttributeError(name)
    return _response_model(entity)
