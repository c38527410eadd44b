"""POST /accounts/{accountId}/ledger/holds/{holdId}/capture: held money leaves the account, once (200)."""

from ddbguard.domain import holds
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def capture_hold(request: Request[None, None]) -> Reply:
    settled = holds.capture_hold(
        request.path["accountId"], request.path["holdId"], request.caller.sub, request.money_identity
    )
    return ok(settled)


handler = endpoint.lambda_handler()
