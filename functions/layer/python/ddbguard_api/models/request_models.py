"""Request bodies and queries: strict pydantic models (no coercion, no unknown fields).

Shape and range only; the domain checks meaning. The bodies of an entity (`CreateAccount`, `UpdateAccount`,
`CreateOrder`, ...) are derived from its declared fields (ddbguard_api.models.entity_models); these are the rest.
`make regenerate` writes the body classes handlers receive from both (local/generate_bodies.py).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StrictInt, StrictStr, field_validator

from ddbguard.guards.fields import WHOLE_CENTS
from ddbguard.limits import (
    CURSOR_MAX_CHARS,
    CURSOR_PATTERN,
    MAX_CENTS,
    MIN_CENTS,
    PAGE_DEFAULT,
    PAGE_MAX,
    RESOURCE_ID_PATTERN,
)
from ddbguard_api.models.body_rules import different_accounts
from ddbguard_api.models.model_bases import StrictModel

__all__ = ["AccountListQuery", "Amount", "Cents", "Cursor", "ResourceId", "StatementQuery", "Transfer"]

Cents = Annotated[
    StrictInt,
    Field(
        ge=MIN_CENTS,
        le=MAX_CENTS,
        description=WHOLE_CENTS,
    ),
]
ResourceId = Annotated[StrictStr, Field(pattern=RESOURCE_ID_PATTERN)]
Cursor = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=CURSOR_MAX_CHARS,
        pattern=CURSOR_PATTERN,
        description="The `nextCursor` of the previous page, unchanged; any other value is refused (422).",
    ),
]


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

    # A plain function (ddbguard_api.models.body_rules), so the compiled schema names it.
    _different_accounts = field_validator("toAccountId")(different_accounts)


class StatementQuery(StrictModel):
    limit: Annotated[int, Field(ge=1, le=PAGE_MAX)] = PAGE_DEFAULT
    cursor: Cursor | None = None


class AccountListQuery(StrictModel):
    limit: Annotated[int, Field(ge=1, le=PAGE_MAX)] = PAGE_DEFAULT
    cursor: Cursor | None = None
