"""GET /accounts/{accountId}: the owner's account (admins may read any), with its ETag."""

from ddbguard.domain import accounts
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def get_account(request: Request) -> Reply:
    account = accounts.get_account(request.path["accountId"], request.caller.sub, is_admin=request.caller.is_admin)
    return ok(account)


handler = endpoint.lambda_handler()
