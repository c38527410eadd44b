"""POST /orders: a PENDING order at version 0 for one of the caller's accounts (never overwrites)."""

from ddbguard.domain import orders
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.models import CreateOrder
from ddbguard_api.replies import Reply, created
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


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
