"""POST /accounts/{accountId}/ledger/holds: move money from available to held (201 hold entry with holdId)."""

from ddbguard.domain import holds
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.models import Amount
from ddbguard_api.replies import Reply, created
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def place_hold(request: Request[Amount]) -> Reply:
    hold = holds.place_hold(
        request.path["accountId"], request.caller.sub, request.body.amountCents, request.money_identity
    )
    return created(hold)


handler = endpoint.lambda_handler()
