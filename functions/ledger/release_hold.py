"""POST /accounts/{accountId}/ledger/holds/{holdId}/release: held money returns to available, once (200)."""

from ddbguard.domain import holds
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def release_hold(request: Request[None, None]) -> Reply:
    settled = holds.release_hold(
        request.path["accountId"], request.path["holdId"], request.caller.sub, request.money_identity
    )
    return ok(settled)


handler = endpoint.lambda_handler()
