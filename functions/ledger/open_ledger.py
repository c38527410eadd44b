"""POST /accounts/{accountId}/ledger: open the account's ledger (201 balance)."""

from ddbguard.domain import ledger
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, created
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def open_ledger(request: Request[None, None]) -> Reply:
    account_id = request.path["accountId"]
    balance = ledger.open_ledger(account_id, request.caller.sub, request.identity)
    return created(balance)


handler = endpoint.lambda_handler()
