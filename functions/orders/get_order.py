"""GET /orders/{orderId}: the caller's order with its ETag (admins too: only their own, docs/api.md)."""

from ddbguard.domain import orders
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def get_order(request: Request) -> Reply:
    order = orders.get(request.path["orderId"], request.caller.sub)
    return ok(order)


handler = endpoint.lambda_handler()
