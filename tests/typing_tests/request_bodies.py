"""What a handler's `request.body` and `request.query` are to the type checker: the generated body classes, exactly
the classes the edge validates into (tests/unit/test_typing.py shows the same at runtime). Checked by mypy in
`make lint`; never run."""

from __future__ import annotations

from typing import Literal, assert_type

from ddbguard_api.http.endpoint import Request
from ddbguard_api.models.body import Body
from ddbguard_api.models.request_bodies import (
    Amount,
    CreateAccount,
    CreateOrder,
    OrderLine,
    StatementQuery,
    Transfer,
    UpdateAccount,
    UpdateOrder,
)

OrderStatus = Literal["PENDING", "PAID", "SHIPPED", "DELIVERED", "CANCELLED", "REFUNDED"]


def a_money_route_sees_its_amount(request: Request[Amount, None]) -> None:
    assert_type(request.body, Amount)
    assert_type(request.body.amountCents, int)
    assert_type(request.query, None)


def a_query_is_typed_as_its_class(request: Request[None, StatementQuery]) -> None:
    assert_type(request.query, StatementQuery)
    assert_type(request.query.limit, int)
    assert_type(request.query.cursor, str | None)


def nested_records_are_their_own_class(request: Request[CreateOrder, None]) -> None:
    assert_type(request.body.items, list[OrderLine])
    assert_type(request.body.items[0].unitPriceCents, int)
    assert_type(request.body.orderId, str | None)


def an_entitys_bodies_follow_its_fields(create: CreateAccount, update: UpdateAccount, move: UpdateOrder) -> None:
    assert_type(create.displayName, str | None)
    assert_type(update.closing, bool | None)
    assert_type(move.status, OrderStatus)


def a_body_is_built_by_keyword_and_dumped_as_a_dict(transfer: Transfer) -> None:
    assert_type(Amount(amountCents=1), Amount)
    assert_type(transfer.model_dump(), dict[str, object])
    Amount(1)  # type: ignore[call-arg]
    Amount(amount=1)  # type: ignore[call-arg]


def what_the_classes_do_not_have_is_refused(request: Request[Amount, None]) -> None:
    # pydantic's methods: a body is no pydantic model, and the type checker knows it.
    request.body.model_json_schema()  # type: ignore[attr-defined]
    request.body.model_copy()  # type: ignore[attr-defined]
    print(request.body.amount)  # type: ignore[attr-defined]


def every_body_is_a_body(body: Amount | CreateOrder) -> Body:
    return body
