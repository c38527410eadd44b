"""GET /accounts/{accountId}/ledger?limit=&cursor=: the balance and a page of entries, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.domain import statements
from ddbguard_api.endpoint import Endpoint, Request
from ddbguard_api.replies import Reply, ok
from routes import by_handler

if TYPE_CHECKING:  # the route names its model; the class is imported at the first request
    from ddbguard_api.models import StatementQuery

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
