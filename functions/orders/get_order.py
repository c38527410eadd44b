"""GET /orders/{orderId}: the caller's order with its ETag (admins too: only their own, docs/api.md)."""

from ddbguard_api.http.entity_endpoints import entity_endpoint
from routes import by_handler

endpoint, handler = entity_endpoint(by_handler(__name__))
