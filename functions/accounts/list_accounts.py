"""GET /accounts?limit=&cursor=: the caller's own accounts, newest first (a Query on the owner index)."""

from __future__ import annotations

from ddbguard.domain import account_listing
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, ok
from ddbguard_api.models.request_bodies import AccountListQuery
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def list_accounts(request: Request[None, AccountListQuery]) -> Reply:
    query = request.query
    return ok(account_listing.list_accounts(request.caller.sub, limit=query.limit, cursor=query.cursor))


handler = endpoint.lambda_handler()
