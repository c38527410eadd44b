"""POST /orders: a PENDING order at version 0 for one of the caller's accounts (never overwrites)."""

from __future__ import annotations

from ddbguard.domain import orders
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, created
from ddbguard_api.models.request_bodies import CreateOrder
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def create_order(request: Request[CreateOrder, None]) -> Reply:
    body = request.body
    order = orders.create_order(
        request.caller.sub,
        body.accountId,
        [
            orders.OrderLine(sku=line.sku, quantity=line.quantity, unitPriceCents=line.unitPriceCents)
            for line in body.items
        ],
        order_id=body.orderId,
        identity=request.identity,
    )
    return created(order)


handler = endpoint.lambda_handler()
