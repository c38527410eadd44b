"""GET /accounts/{accountId}: the owner's account (admins may read any), with its ETag."""

from ddbguard_api.http.entity_endpoints import entity_endpoint
from routes import by_handler

endpoint, handler = entity_endpoint(by_handler(__name__))
