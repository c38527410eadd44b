"""POST /accounts: create an account whose email and username are unique (locks in the same transaction)."""

from ddbguard.domain import accounts
from ddbguard_api.http.entity_endpoints import entity_endpoint
from routes import by_handler

endpoint, handler = entity_endpoint(by_handler(__name__), clean_values=accounts.clean_values)
