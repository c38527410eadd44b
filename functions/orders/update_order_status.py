"""PATCH /orders/{orderId} + If-Match: move the order's status along the transition table."""

from ddbguard.domain import orders
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.models import UpdateOrderStatus
from ddbguard_api.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def update_order_status(request: Request[UpdateOrderStatus]) -> Reply:
    order = orders.update_status(
        request.path["orderId"], request.caller.sub, request.body.status, request.expected_version, request.identity
    )
    return ok(order)


handler = endpoint.lambda_handler()
