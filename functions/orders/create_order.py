"""POST /orders: a PENDING order at version 0 for one of the caller's accounts (never overwrites)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import orders
from ddbguard.domain.views import OrderLine
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, created
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import CreateOrder

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def create_order(request: Request[CreateOrder, None]) -> Reply:
    body = request.body
    order = orders.create_order(
        request.caller.sub,
        body.accountId,
        [OrderLine(sku=line.sku, quantity=line.quantity, unitPriceCents=line.unitPriceCents) for line in body.items],
        order_id=body.orderId,
        identity=request.identity,
    )
    return created(order)


handler = endpoint.lambda_handler()
