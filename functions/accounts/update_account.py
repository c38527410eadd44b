"""PATCH /accounts/{accountId} + If-Match: change email, username or displayName at the expected version."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import accounts
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, ok
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import UpdateAccount

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def update_account(request: Request[UpdateAccount]) -> Reply:
    body = request.body
    account = accounts.update_account(
        request.path["accountId"],
        request.caller.sub,
        request.expected_version,
        email=body.email,
        username=body.username,
        display_name=body.displayName,
        identity=request.identity,
    )
    return ok(account)


handler = endpoint.lambda_handler()
