"""POST /accounts/{accountId}/ledger/withdrawals: take money out only if available (201 entry, else 409)."""

from __future__ import annotations

from ddbguard.domain import ledger
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, created
from ddbguard_api.models.request_bodies import Amount
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def withdraw(request: Request[Amount, None]) -> Reply:
    entry = ledger.withdraw(
        request.path["accountId"], request.caller.sub, request.body.amountCents, request.money_identity
    )
    return created(entry)


handler = endpoint.lambda_handler()
