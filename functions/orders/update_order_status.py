"""PATCH /orders/{orderId}: move the order's status along the transition table."""

from ddbguard.domain import orders
from ddbguard_api.http.entity_endpoints import entity_endpoint
from routes import by_handler

endpoint, handler = entity_endpoint(by_handler(__name__), update_rules=orders.update_rules)
