"""GET /accounts/{accountId}/ledger?limit=&cursor=: the balance and a page of entries, newest first."""

from __future__ import annotations

from ddbguard.domain import statements
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, ok
from ddbguard_api.models.request_bodies import StatementQuery
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def get_statement(request: Request[None, StatementQuery]) -> Reply:
    query = request.query
    statement = statements.get_statement(
        request.path["accountId"],
        request.caller.sub,
        limit=query.limit,
        cursor=query.cursor,
    )
    return ok(statement)


handler = endpoint.lambda_handler()
