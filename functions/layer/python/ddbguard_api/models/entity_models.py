"""The pydantic models of an entity, derived from its declared fields (`ddbguard.guards.fields`).

For an entity `team`: `CreateTeam` (the create body: the fields sent on create, required unless optional or
defaulted, and a client-chosen `teamId` when ids are per owner), `UpdateTeam` (the update body: every updatable field
optional, at least one sent; a single updatable field is required) and `Team` (the response: the public projection,
every field present). A `lines` field adds its record model (`OrderLine`), shared by the request and the response.
These models describe the API (its OpenAPI document, local/openapi.py) and are what `make regenerate` writes the body
classes and their compiled schemas from (local/generate_bodies.py); no handler imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, StrictBool, StrictInt, StrictStr, create_model, model_validator
from pydantic import Field as ModelField

from ddbguard.guards.entity import Entity
from ddbguard.guards.fields import CHOICE, COMPUTED, FLAG, INTEGER, LINES, MATCHING, REFERENCE, TEXT, UNIQUE, Field
from ddbguard.limits import RESOURCE_ID_PATTERN, UNIQUE_VALUE_RAW_MAX_CHARS
from ddbguard_api.models.body_rules import something_to_update, visible_text
from ddbguard_api.models.json_schema_patterns import email_pattern, visible_text_pattern, with_pattern
from ddbguard_api.models.model_bases import ResponseModel, StrictModel, Timestamp

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.config import JsonDict

__all__ = ["CREATE", "UPDATE", "FieldDefinition", "line_model", "request_models_of", "response_model_of"]

# A model field as `create_model` takes it: (annotation, default), `...` for a required one. The annotation is a
# type used as a value (`Annotated[...]`, `X | None`), which mypy types as a special form only `Any` accepts.
type FieldDefinition = tuple[Any, object]

CREATE = "Create"
UPDATE = "Update"


def _unique_type(spec: Field) -> Any:
    """The layer checks the normalised form by its kind, so the edge bounds only the raw size; the document states
    the kind's rule, which is what a client should send (spellings that normalise into it pass as well)."""
    kind = spec.unique
    assert kind is not None
    extra: JsonDict | Callable[[JsonDict], None] | None = None
    if kind.email:
        extra = with_pattern(email_pattern, maxLength=kind.max_length)
    elif kind.pattern:
        extra = {"pattern": kind.sent_pattern, "minLength": kind.min_length, "maxLength": kind.max_length}
    constraints = ModelField(
        min_length=kind.min_sent,
        max_length=UNIQUE_VALUE_RAW_MAX_CHARS,
        description=spec.description,
        json_schema_extra=extra,
    )
    return Annotated[StrictStr, constraints]


def _value_type(spec: Field) -> Any:
    """What a body may send for the field."""
    said = spec.description
    if spec.kind == TEXT:
        constraints = ModelField(
            min_length=spec.min_length,
            max_length=spec.max_length,
            description=said,
            json_schema_extra=with_pattern(visible_text_pattern),
        )
        return Annotated[StrictStr, constraints, AfterValidator(visible_text)]
    if spec.kind == INTEGER:
        return Annotated[StrictInt, ModelField(ge=spec.minimum, le=spec.maximum, description=said)]
    if spec.kind == UNIQUE:
        return _unique_type(spec)
    if spec.kind == CHOICE:
        return Annotated[Literal[spec.choices], ModelField(description=said)]
    if spec.kind == FLAG:
        return Annotated[StrictBool, ModelField(description=said)]
    if spec.kind in (REFERENCE, MATCHING):
        return Annotated[StrictStr, ModelField(pattern=spec.pattern, description=said)]
    if spec.kind == LINES:
        lines = _list_of(line_model(spec))
        return Annotated[lines, ModelField(min_length=spec.min_items, max_length=spec.max_items, description=said)]
    raise ValueError(f"a {spec.kind} field is never sent")


def _list_of(model: type[BaseModel]) -> Any:
    """`list[model]`, for a model built at run time (the type checker sees no class to subscript with)."""
    return list[model]  # type: ignore[valid-type]


def _model(name: str, base: type[BaseModel], fields: Mapping[str, FieldDefinition], doc: str = "") -> type[BaseModel]:
    # Called through `Callable[..., ...]`: mypy checks a `**` mapping's values against every named keyword of
    # `create_model` too (`__config__`, `__doc__`, ...), which no field definition is.
    make: Callable[..., type[BaseModel]] = create_model
    return make(name, __base__=base, __doc__=doc or None, **fields)


@cache
def line_model(spec: Field) -> type[BaseModel]:
    """The record model of a `lines` field (`OrderLine`): one class for the request and the response."""
    fields = {name: (_value_type(item), ...) for name, item in spec.item_fields.items()}
    return _model(spec.item_name, StrictModel, fields, f"One {spec.item_name}.")


def _create_model(entity: Entity) -> type[BaseModel]:
    fields: dict[str, FieldDefinition] = {}
    example: JsonDict = {}
    for name, spec in entity.fields.items():
        if not spec.on_create:
            continue
        value = _value_type(spec)
        if spec.required:
            fields[name] = (value, ...)
        elif spec.default is not None:
            fields[name] = (value, spec.default)
        else:
            fields[name] = (value | None, None)
        example[name] = spec.example  # type: ignore[assignment]
    if entity.owner_scoped:  # ids per owner reveal nothing of others' items: a client may choose one (retry-safe)
        fields[entity.id_field] = (Annotated[StrictStr, ModelField(pattern=RESOURCE_ID_PATTERN)] | None, None)

    class WithExample(StrictModel):
        model_config = ConfigDict(json_schema_extra={"examples": [example]})

    return _model(f"{CREATE}{entity.title}", WithExample, fields)


def _json_type(spec: Field) -> str:
    """The JSON type a sent value of the field has. The update body's "at least one" alternatives name it rather than
    `{"not": {"type": "null"}}`: schema-driven generators (schemathesis) can only reject their way to a `not`, slowly
    enough to fail their own health check, and a type is what the published schema said before."""
    if spec.kind == INTEGER:
        return "integer"
    if spec.kind == FLAG:
        return "boolean"
    if spec.kind == LINES:
        return "array"
    return "string"


def _update_model(entity: Entity) -> type[BaseModel]:
    updatable = {name: spec for name, spec in entity.fields.items() if spec.updatable}
    if len(updatable) == 1:  # "at least one" of one field is that field: required, as a generated client reads it
        ((name, spec),) = updatable.items()

        class WithExample(StrictModel):
            model_config = ConfigDict(json_schema_extra={"examples": [{name: spec.example}]})  # type: ignore[dict-item]

        return _model(f"{UPDATE}{entity.title}", WithExample, {name: (_value_type(spec), ...)})
    fields: dict[str, FieldDefinition] = {name: (_value_type(spec) | None, None) for name, spec in updatable.items()}
    shown = next((n for n, s in updatable.items() if s.kind in (TEXT, INTEGER)), next(iter(updatable)))

    class SomethingToUpdate(StrictModel):
        # "At least one of them" (the rule), said in the schema too.
        model_config = ConfigDict(
            json_schema_extra={
                "examples": [{shown: updatable[shown].example}],  # type: ignore[dict-item]
                "anyOf": [
                    {"required": [name], "properties": {name: {"type": _json_type(spec)}}}
                    for name, spec in updatable.items()
                ],
            }
        )
        _something_to_update = model_validator(mode="after")(something_to_update)

    return _model(f"{UPDATE}{entity.title}", SomethingToUpdate, fields)


def _read_type(spec: Field) -> Any:
    """What a response holds for the field."""
    said = spec.description
    if spec.kind in (INTEGER, COMPUTED):
        value: Any = Annotated[int, ModelField(ge=spec.minimum, description=said)]
    elif spec.kind == UNIQUE:
        assert spec.unique is not None
        value = Annotated[str, ModelField(description=f"Stored normalised ({spec.unique.stored}).")]
    elif spec.kind == CHOICE:
        value = Annotated[Literal[spec.choices], ModelField(description=said)]
    elif spec.kind == FLAG:
        value = Annotated[bool, ModelField(description=said)]
    elif spec.kind == LINES:
        value = Annotated[_list_of(line_model(spec)), ModelField(description=said)]
    else:
        value = Annotated[str, ModelField(description=said)]
    return value | None if spec.nullable else value


def _response_model(entity: Entity) -> type[BaseModel]:
    fields: dict[str, FieldDefinition] = {entity.id_field: (str, ...)}
    fields.update({name: (_read_type(spec), ...) for name, spec in entity.fields.items()})
    if entity.versioned:
        version = Annotated[
            int, ModelField(ge=0, description="Grows by 1 on every change; the ETag is this number, quoted.")
        ]
        fields["version"] = (version, ...)
    fields["createdAt"] = (Timestamp, ...)
    fields["updatedAt"] = (Timestamp, ...)
    article = "An" if entity.kind[0] in "aeiou" else "A"
    unique = f"; {' and '.join(f'`{u.field}`' for u in entity.unique)} as stored, normalised" if entity.unique else ""
    return _model(entity.title, ResponseModel, fields, f"{article} {entity.kind}{unique}.")


@cache
def request_models_of(entity: Entity) -> tuple[type[BaseModel], type[BaseModel]]:
    """(`Create<Title>`, `Update<Title>`): the create and update bodies of an entity."""
    return _create_model(entity), _update_model(entity)


@cache
def response_model_of(entity: Entity) -> type[BaseModel]:
    """`<Title>`: the response of an entity."""
    return _response_model(entity)
