"""POST /orders: a PENDING order at version 0 for one of the caller's accounts (never overwrites)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import orders
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.lazy_models import lazy_model
from ddbguard_api.replies import Reply, created
from routes import by_handler

if TYPE_CHECKING:
    from ddbguard_api.models import CreateOrder
else:  # the class is imported at the first request (ddbguard_api.lazy_models)
    CreateOrder = lazy_model("CreateOrder")

endpoint = Endpoint(by_handler(__name__), body=CreateOrder)


@endpoint.operation
def create_order(request: Request[CreateOrder]) -> Reply:
    body = request.body
    order = orders.create(
        request.caller.sub,
        body.accountId,
        [line.model_dump() for line in body.items],
        order_id=body.orderId,
        identity=request.identity,
    )
    return created(order, location=f"/orders/{order['orderId']}")


handler = endpoint.lambda_handler()
