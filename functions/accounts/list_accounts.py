"""GET /accounts?limit=&cursor=: the caller's own accounts, newest first (a Query on the owner index)."""

from ddbguard.domain import account_listing
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.models import AccountListQuery
from ddbguard_api.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def list_accounts(request: Request) -> Reply:
    query = request.query_as(AccountListQuery)
    return ok(account_listing.list_accounts(request.caller.sub, limit=query.limit, cursor=query.cursor))


handler = endpoint.lambda_handler()
