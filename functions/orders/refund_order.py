"""POST /orders/{orderId}/refund (Idempotency-Key required): PAID -> REFUNDED, the total back onto the ledger with a
`refund` entry, atomically and once."""

from ddbguard.domain import orders
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def refund_order(request: Request[None, None]) -> Reply:
    order = orders.refund_order(request.path["orderId"], request.caller.sub, request.money_identity)
    return ok(order)


handler = endpoint.lambda_handler()
