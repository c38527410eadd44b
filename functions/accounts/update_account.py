"""PATCH /accounts/{accountId}: update email, username, displayName or closing at the expected version."""

from ddbguard.domain import accounts
from ddbguard_api.http.entity_endpoints import entity_endpoint
from routes import by_handler

endpoint, handler = entity_endpoint(by_handler(__name__), clean_values=accounts.clean_values)
