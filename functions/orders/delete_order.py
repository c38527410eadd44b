"""DELETE /orders/{orderId}: delete an order that never moved money (PENDING, CANCELLED), at its version.

Its id is never given again: the order leaves a tombstone.
"""

from ddbguard.domain import orders
from ddbguard_api.http.entity_endpoints import entity_endpoint
from routes import by_handler

endpoint, handler = entity_endpoint(by_handler(__name__), delete_rules=orders.delete_rules)
