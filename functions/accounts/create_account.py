"""POST /accounts: create an account whose email and username are unique (locks in the same transaction)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import accounts
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, created
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import CreateAccount

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def create_account(request: Request[CreateAccount]) -> Reply:
    body = request.body
    account = accounts.create_account(
        request.caller.sub,
        email=body.email,
        username=body.username,
        display_name=body.displayName,
        identity=request.identity,
    )
    return created(account, f"/accounts/{account['accountId']}")


handler = endpoint.lambda_handler()
