"""DELETE /orders/{orderId} + If-Match: delete a PENDING or CANCELLED order at the expected version."""

from ddbguard.domain import orders
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, no_content
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def delete_order(request: Request) -> Reply:
    orders.delete(request.path["orderId"], request.caller.sub, request.expected_version, request.identity)
    return no_content()


handler = endpoint.lambda_handler()
