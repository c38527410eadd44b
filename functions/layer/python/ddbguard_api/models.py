"""Request bodies and queries: strict pydantic models (no coercion, no unknown fields).

Shape and range only; the domain normalises and checks meaning (e.g. unique values after NFKC). An entity that
declares its fields has its bodies derived (`Create<Title>`, `Change<Title>`: ddbguard_api.entity_models),
answered here by name like the ones written below.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)
from pydantic.config import JsonValue

from ddbguard.limits import (
    CURSOR_MAX_CHARS,
    CURSOR_PATTERN,
    DISPLAY_NAME_MAX_CHARS,
    EMAIL_MAX_BYTES,
    EMAIL_MIN_CHARS,
    MAX_CENTS,
    MAX_ORDER_LINES,
    MAX_QUANTITY,
    MIN_CENTS,
    PAGE_DEFAULT,
    PAGE_MAX,
    RESOURCE_ID_PATTERN,
    SKU_PATTERN,
    UNIQUE_VALUE_RAW_MAX_CHARS,
    USERNAME_MAX_CHARS,
    USERNAME_MIN_CHARS,
    USERNAME_PATTERN,
)
from ddbguard_api.bodies import different_accounts, something_to_change, visible_text
from ddbguard_api.schema_patterns import email_pattern, visible_text_pattern, with_pattern

Cents = Annotated[
    StrictInt,
    Field(
        ge=MIN_CENTS,
        le=MAX_CENTS,
        description="Whole cents, written as a JSON integer: 100.0 or 1e2 are refused even though integral, so a"
        " client that rounds through binary floats hears it at once instead of at 2^53.",
    ),
]
ResourceId = Annotated[StrictStr, Field(pattern=RESOURCE_ID_PATTERN)]
# Unique values: the validators check the normalised form (ddbguard.domain.normalize), so the edge bounds only the
# raw size; the document states the rules of that form (json_schema_extra: the schema only, not the validator),
# which is what a client should send. Spellings that normalise into it (case, surrounding spaces, fullwidth
# letters) are accepted as well.
Email = Annotated[
    StrictStr,
    Field(
        min_length=EMAIL_MIN_CHARS,
        max_length=UNIQUE_VALUE_RAW_MAX_CHARS,
        description=f"One @ with text on both sides, no spaces or control characters; at most {EMAIL_MAX_BYTES}"
        " UTF-8 bytes once normalised (NFKC, case-folded, trimmed).",
        json_schema_extra=with_pattern(email_pattern, maxLength=EMAIL_MAX_BYTES),
    ),
]
Username = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=UNIQUE_VALUE_RAW_MAX_CHARS,
        description=f"{USERNAME_MIN_CHARS} to {USERNAME_MAX_CHARS} of A-Z, a-z, 0-9, '_', '.', '-' once normalised"
        " (NFKC, case-folded, trimmed); compared case-insensitively.",
        json_schema_extra={
            "pattern": USERNAME_PATTERN.pattern.join("^$"),
            "minLength": USERNAME_MIN_CHARS,
            "maxLength": USERNAME_MAX_CHARS,
        },
    ),
]
DisplayName = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=DISPLAY_NAME_MAX_CHARS,
        description="Shown as written (NFC), trimmed; shows at least one visible character (spaces, fillers, blank"
        " symbols and lone marks alone do not), no control or invisible format characters.",
        json_schema_extra=with_pattern(visible_text_pattern),
    ),
    AfterValidator(visible_text),  # a plain function (ddbguard_api.bodies), so the precompiled schema names it
]
Cursor = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=CURSOR_MAX_CHARS,
        pattern=CURSOR_PATTERN,
        description="The `nextCursor` of the previous page, unchanged; any other value is refused (422).",
    ),
]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class CreateAccount(StrictModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"email": "try@openapi.example", "username": "try_it", "displayName": "Try"}]}
    )

    email: Email
    username: Username
    displayName: DisplayName | None = None


# "At least one of them" (UpdateAccount's validator), said in its schema too: a text field, or `closing`.
_SOMETHING_TO_CHANGE: list[JsonValue] = [
    {"required": [name], "properties": {name: {"type": "string"}}} for name in ("email", "username", "displayName")
]
_SOMETHING_TO_CHANGE.append({"required": ["closing"], "properties": {"closing": {"type": "boolean"}}})


class UpdateAccount(StrictModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"displayName": "Countess of Lovelace"}], "anyOf": _SOMETHING_TO_CHANGE}
    )

    email: Email | None = None
    username: Username | None = None
    displayName: DisplayName | None = None
    closing: StrictBool | None = Field(
        default=None,
        description="true closes the account to incoming transfers (senders get 409 account_closing; the owner's own"
        " movements go on), false opens it again.",
    )

    # A plain function (ddbguard_api.bodies), so the precompiled schema can name it: see compiled_schemas_source.
    _something_to_change = model_validator(mode="after")(something_to_change)


class Amount(StrictModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"amountCents": 2500}]})

    amountCents: Cents


class Transfer(StrictModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "fromAccountId": "27f60ec3-d89f-5a94-931d-431dbff968a9",
                    "toAccountId": "62f27671-fcf6-5cef-9378-1b5bce7d1776",
                    "amountCents": 1000,
                }
            ]
        }
    )

    fromAccountId: ResourceId
    toAccountId: ResourceId
    amountCents: Cents

    # A plain function (ddbguard_api.bodies), so the precompiled schema can name it, as UpdateAccount's.
    _different_accounts = field_validator("toAccountId")(different_accounts)


class OrderItem(StrictModel):
    sku: Annotated[StrictStr, Field(pattern=SKU_PATTERN)]
    quantity: Annotated[StrictInt, Field(ge=1, le=MAX_QUANTITY)]
    unitPriceCents: Cents


class CreateOrder(StrictModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "accountId": "27f60ec3-d89f-5a94-931d-431dbff968a9",
                    "items": [{"sku": "BOOK-1843", "quantity": 2, "unitPriceCents": 1999}],
                }
            ]
        }
    )

    accountId: ResourceId
    items: Annotated[list[OrderItem], Field(min_length=1, max_length=MAX_ORDER_LINES)]
    orderId: ResourceId | None = None


OrderStatus = Literal["PENDING", "PAID", "SHIPPED", "DELIVERED", "CANCELLED", "REFUNDED"]


class UpdateOrderStatus(StrictModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"status": "CANCELLED"}]})

    status: OrderStatus


class StatementQuery(StrictModel):
    limit: Annotated[int, Field(ge=1, le=PAGE_MAX)] = PAGE_DEFAULT
    cursor: Cursor | None = None


class AccountListQuery(StrictModel):
    limit: Annotated[int, Field(ge=1, le=PAGE_MAX)] = PAGE_DEFAULT
    cursor: Cursor | None = None


def __getattr__(name: str) -> Any:
    """A declared entity's derived body model, by name (`CreateTeam`); AttributeError for anything else."""
    from ddbguard_api.entity_models import request_model

    return request_model(name)


# --- precompiled validators (ddbguard_api/compiled_schemas.py) ----------------------------------------------------
# The request path validates with pydantic-core alone, on these models' core schemas written out as literals: the
# same engine gives the same values, error types and messages, without importing pydantic (about 100 ms of a first
# request; docs/decisions.md, "Body validation"). `make regenerate` writes the module; a test keeps it equal.
COMPILED_MODULE = "compiled_schemas.py"
# Validator functions a literal schema may name: modules that import no pydantic.
PLAIN_VALIDATOR_MODULES = ("ddbguard_api.bodies",)
FUNCTION_KEY = "__function__"


def _as_literal(value: Any) -> Any:
    """A core schema without its JSON Schema hooks (`metadata`) and process-bound `ref`s; a model's class becomes its
    name, a plain validator function its `module:name`. TypeError for anything else that is not a literal (a
    validator defined with pydantic), so that model stays on pydantic."""
    if isinstance(value, dict):
        literal = {}
        for key, item in value.items():
            if key in {"metadata", "ref"}:
                continue
            literal[key] = item.__name__ if key == "cls" and value.get("type") == "model" else _as_literal(item)
        return literal
    if isinstance(value, list | tuple):
        return [_as_literal(item) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if callable(value) and getattr(value, "__module__", None) in PLAIN_VALIDATOR_MODULES:
        return {FUNCTION_KEY: f"{value.__module__}:{value.__qualname__}"}  # resolved by ddbguard_api.lazy_models
    raise TypeError(f"{type(value).__name__} in a core schema")


def compiled_schemas_source() -> str:
    """The source of ddbguard_api/compiled_schemas.py: every request model of this module whose core schema is
    all literals, by name."""
    schemas = {}
    for name, model in sorted(globals().items()):
        if isinstance(model, type) and issubclass(model, StrictModel) and model is not StrictModel:
            model.model_rebuild(force=True)
            try:
                schemas[name] = _as_literal(model.__pydantic_core_schema__)
            except TypeError:
                continue  # e.g. a model validator: validated by pydantic itself
    lines = [
        '"""Generated by `make regenerate` from ddbguard_api/models.py (compiled_schemas_source): do not edit.',
        "",
        "Each request model's pydantic-core schema as a literal, so that validating a request needs pydantic-core",
        'alone (ddbguard_api.lazy_models). Models left out are validated by pydantic itself."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import TYPE_CHECKING",
        "",
        "if TYPE_CHECKING:",
        "    from ddbguard_api.json_documents import JsonObject",
        "",
        f"SCHEMAS: dict[str, JsonObject] = {schemas!r}",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    from pathlib import Path

    target = Path(__file__).with_name(COMPILED_MODULE)
    target.write_text(compiled_schemas_source(), encoding="utf-8")
    sys.stderr.write(f"wrote {target}\n")
