"""PATCH /orders/{orderId} + If-Match: move the order's status along the transition table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import orders
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, ok
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import UpdateOrderStatus

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def update_order_status(request: Request[UpdateOrderStatus]) -> Reply:
    order = orders.update_status(
        request.path["orderId"], request.caller.sub, request.body.status, request.expected_version, request.identity
    )
    return ok(order)


handler = endpoint.lambda_handler()
