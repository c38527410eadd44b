"""Request bodies and queries: strict pydantic models (no coercion, no unknown fields).

Shape and range only; the domain normalises and checks meaning (e.g. unique values after NFKC).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

MAX_CENTS = 100_000_000_000
Cents = Annotated[StrictInt, Field(ge=1, le=MAX_CENTS)]
ResourceId = Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
Email = Annotated[StrictStr, Field(min_length=3, max_length=254)]
Username = Annotated[StrictStr, Field(min_length=1, max_length=120)]  # format checked after normalising
DisplayName = Annotated[StrictStr, Field(min_length=1, max_length=100)]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


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
    sku: Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]
    quantity: Annotated[StrictInt, Field(ge=1, le=10_000)]
    unitPriceCents: Cents


class CreateOrder(StrictModel):
    accountId: ResourceId
    items: Annotated[list[OrderItem], Field(min_length=1, max_length=100)]
    orderId: ResourceId | None = None


OrderStatus = Literal["PENDING", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"]


class UpdateOrderStatus(StrictModel):
    status: OrderStatus


class StatementQuery(StrictModel):
    limit: Annotated[int, Field(ge=1, le=100)] = 25
    cursor: Annotated[StrictStr, Field(min_length=1, max_length=1024)] | None = None


class AccountListQuery(StrictModel):
    limit: Annotated[int, Field(ge=1, le=100)] = 25
    cursor: Annotated[StrictStr, Field(min_length=1, max_length=1024)] | None = None
