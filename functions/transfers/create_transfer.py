"""POST /transfers: move money between two ledgers in one transaction (201 the caller's transfer_out entry)."""

from __future__ import annotations

from ddbguard.domain import transfers
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, created
from ddbguard_api.models.request_bodies import Transfer
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def create_transfer(request: Request[Transfer, None]) -> Reply:
    body = request.body
    sent = transfers.create_transfer(
        body.fromAccountId, body.toAccountId, body.amountCents, request.caller.sub, request.money_identity
    )
    return created(sent)


handler = endpoint.lambda_handler()
