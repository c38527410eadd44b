"""Request bodies and queries: strict pydantic models (no coercion, no unknown fields).

Shape and range only; the domain normalises and checks meaning (e.g. unique values after NFKC).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

from ddbguard.limits import (
    CURSOR_MAX_CHARS,
    DISPLAY_NAME_MAX_CHARS,
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
)

Cents = Annotated[StrictInt, Field(ge=MIN_CENTS, le=MAX_CENTS)]
ResourceId = Annotated[StrictStr, Field(pattern=RESOURCE_ID_PATTERN)]
# Unique values: only the raw size here; their rules apply to the normalised form (ddbguard.domain.normalize).
Email = Annotated[StrictStr, Field(min_length=EMAIL_MIN_CHARS, max_length=UNIQUE_VALUE_RAW_MAX_CHARS)]
Username = Annotated[StrictStr, Field(min_length=1, max_length=UNIQUE_VALUE_RAW_MAX_CHARS)]
DisplayName = Annotated[StrictStr, Field(min_length=1, max_length=DISPLAY_NAME_MAX_CHARS)]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class CreateAccount(StrictModel):
    email: Email
    username: Username
    displayName: DisplayName | None = None


class UpdateAccount(StrictModel):
    email: Email | None = None
    username: Username | None = None
    displayName: DisplayName | None = None

    @model_validator(mode="after")
    def _something_to_change(self) -> UpdateAccount:
        if self.email is None and self.username is None and self.displayName is None:
            raise ValueError("send at least one of email, username, displayName")
        return self


class Amount(StrictModel):
    amountCents: Cents


class Transfer(StrictModel):
    fromAccountId: ResourceId
    toAccountId: ResourceId
    amountCents: Cents


class OrderItem(StrictModel):
    sku: Annotated[StrictStr, Field(pattern=SKU_PATTERN)]
    quantity: Annotated[StrictInt, Field(ge=1, le=MAX_QUANTITY)]
    unitPriceCents: Cents


class CreateOrder(StrictModel):
    accountId: ResourceId
    items: Annotated[list[OrderItem], Field(min_length=1, max_length=MAX_ORDER_LINES)]
    orderId: ResourceId | None = None


OrderStatus = Literal["PENDING", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"]


class UpdateOrderStatus(StrictModel):
    status: OrderStatus


class StatementQuery(StrictModel):
    limit: Annotated[int, Field(ge=1, le=PAGE_MAX)] = PAGE_DEFAULT
    cursor: Annotated[StrictStr, Field(min_length=1, max_length=CURSOR_MAX_CHARS)] | None = None


class AccountListQuery(StrictModel):
    limit: Annotated[int, Field(ge=1, le=PAGE_MAX)] = PAGE_DEFAULT
    cursor: Annotated[StrictStr, Field(min_length=1, max_length=CURSOR_MAX_CHARS)] | None = None
