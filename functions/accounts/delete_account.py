"""DELETE /accounts/{accountId}: the account, its locks and its empty balance item, in one transaction."""

from ddbguard.domain import accounts
from ddbguard_api.http.entity_endpoints import entity_endpoint
from routes import by_handler

endpoint, handler = entity_endpoint(by_handler(__name__), delete_rules=accounts.delete_rules)
