"""POST /orders/{orderId}/pay (Idempotency-Key required): PENDING -> PAID, ledger debit and entry, atomically."""

from ddbguard.domain import orders
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def pay_order(request: Request[None, None]) -> Reply:
    order = orders.pay_order(request.path["orderId"], request.caller.sub, request.money_identity)
    return ok(order)


handler = endpoint.lambda_handler()
