"""GET /accounts?limit=&cursor=: the caller's own accounts, newest first (a Query on the owner index)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import account_listing
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, ok
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import AccountListQuery

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def list_accounts(request: Request[None, AccountListQuery]) -> Reply:
    query = request.query
    return ok(account_listing.list_accounts(request.caller.sub, limit=query.limit, cursor=query.cursor))


handler = endpoint.lambda_handler()
