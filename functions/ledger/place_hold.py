"""POST /accounts/{accountId}/ledger/holds: move money from available to held (201 hold entry with holdId)."""

from __future__ import annotations

from ddbguard.domain import holds
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, created
from ddbguard_api.models.request_bodies import Amount
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def place_hold(request: Request[Amount, None]) -> Reply:
    hold = holds.place_hold(
        request.path["accountId"], request.caller.sub, request.body.amountCents, request.money_identity
    )
    return created(hold)


handler = endpoint.lambda_handler()
