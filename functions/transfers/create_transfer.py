"""POST /transfers: move money between two ledgers in one transaction (201 the caller's transfer_out entry)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import transfers
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, created
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import Transfer

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def create_transfer(request: Request[Transfer, None]) -> Reply:
    body = request.body
    sent = transfers.create_transfer(
        body.fromAccountId, body.toAccountId, body.amountCents, request.caller.sub, request.money_identity
    )
    return created(sent)


handler = endpoint.lambda_handler()
