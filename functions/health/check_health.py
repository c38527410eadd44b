"""GET /health: the service answers, and says which release it is (no authorizer, touches nothing)."""

from ddbguard.release import VERSION
from ddbguard_api.http.endpoint import Endpoint, Request
from ddbguard_api.http.replies import Reply, ok
from routes import by_handler

endpoint = Endpoint(by_handler(__name__))


@endpoint.operation
def check_health(request: Request[None, None]) -> Reply:
    return ok({"status": "ok", "version": VERSION})


handler = endpoint.lambda_handler()
