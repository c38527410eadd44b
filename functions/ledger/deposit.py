"""POST /accounts/{accountId}/ledger/deposits: add money to the caller's ledger (201 entry)."""

from __future__ import annotations

from ddbguard.domain import ledger
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, created
from ddbguard_api.models.request_bodies import Amount
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def deposit(request: Request[Amount, None]) -> Reply:
    entry = ledger.deposit(
        request.path["accountId"], request.caller.sub, request.body.amountCents, request.money_identity
    )
    return created(entry)


handler = endpoint.lambda_handler()
