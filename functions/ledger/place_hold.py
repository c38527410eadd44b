"""POST /accounts/{accountId}/ledger/holds: move money from available to held (201 hold entry with holdId)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import holds
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, created
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import Amount

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def place_hold(request: Request[Amount, None]) -> Reply:
    hold = holds.place_hold(
        request.path["accountId"], request.caller.sub, request.body.amountCents, request.money_identity
    )
    return created(hold)


handler = endpoint.lambda_handler()
