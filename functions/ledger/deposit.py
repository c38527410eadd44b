"""POST /accounts/{accountId}/ledger/deposits: add money to the caller's ledger (201 entry)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import ledger
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, created
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import Amount

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def deposit(request: Request[Amount, None]) -> Reply:
    entry = ledger.deposit(
        request.path["accountId"], request.caller.sub, request.body.amountCents, request.money_identity
    )
    return created(entry)


handler = endpoint.lambda_handler()
