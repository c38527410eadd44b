"""GET /accounts/{accountId}/ledger?limit=&cursor=: the balance and a page of entries, newest first."""

from ddbguard.domain import statements
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.models import StatementQuery
from ddbguard_api.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def get_statement(request: Request) -> Reply:
    query = request.query_as(StatementQuery)
    statement = statements.get_statement(
        request.path["accountId"],
        request.caller.sub,
        limit=query.limit,
        cursor=query.cursor,
    )
    return ok(statement)


handler = endpoint.lambda_handler()
