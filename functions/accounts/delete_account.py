"""DELETE /accounts/{accountId} + If-Match: the account, its locks and its empty balance item, in one transaction."""

from ddbguard.domain import accounts
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, no_content
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def delete_account(request: Request) -> Reply:
    accounts.delete_account(
        request.path["accountId"], request.caller.sub, request.expected_version, identity=request.identity
    )
    return no_content()


handler = endpoint.lambda_handler()
