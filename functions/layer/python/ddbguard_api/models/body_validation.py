"""Validating a request body or query: pydantic-core alone, on the core schema generated ahead of time.

Importing pydantic's BaseModel costs about half of `import boto3` (bench/cold.py), and a first request would pay it.
The pydantic models (`request_models`, and `entity_models` for a declared entity's bodies) are the one source;
`make regenerate` (local/generate_bodies.py) writes, from them, the body classes (`request_bodies`) and each one's
pydantic-core schema (`compiled_schemas`), naming the classes and the plain rule functions (`body_rules`) they use
as Python objects. pydantic-core validates with the same engine pydantic would, so the same values, error types and
messages (tests/unit/test_compiled_schemas.py compares them), and builds instances of the body classes themselves:
a handler typed `Request[Amount, None]` gets an `Amount`. A validator is built at the first request that needs it,
or before a SnapStart snapshot (`ddbguard.snapshot_hooks`), whichever comes first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ddbguard import snapshot_hooks

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator

    from ddbguard_api.models.body import Body

__all__ = ["build_before_snapshot", "validate", "validator"]


_VALIDATORS: dict[type[Body], SchemaValidator] = {}


def validator(body: type[Body]) -> SchemaValidator:
    """pydantic-core's validator for the body class `body`, built once."""
    built = _VALIDATORS.get(body)
    if built is None:
        from pydantic_core import SchemaValidator

        from ddbguard_api.models.compiled_schemas import SCHEMAS

        built = _VALIDATORS[body] = SchemaValidator(SCHEMAS[body])
    return built


def validate[B: Body](body: type[B], document: object, *, strict: bool | None = None) -> B:
    """`document` as an instance of `body`; raises `pydantic_core.ValidationError` (pydantic's own)."""
    return cast("B", validator(body).validate_python(document, strict=strict))


def build_before_snapshot(body: type[Body]) -> None:
    """With SnapStart the snapshot should hold the built validator: init is paid once, restores are not."""
    snapshot_hooks.before_snapshot(lambda: validator(body))
