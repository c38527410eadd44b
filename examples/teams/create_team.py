"""POST /teams: create a team, its slug unique.

Written by `make regenerate` (local/handler_files.py), then yours: pass your domain's hooks to
`entity_endpoint` by keyword (`clean_values`, `update_rules`, `delete_rules`: ddbguard_api.http.entity_endpoints).
"""

from ddbguard_api.http.entity_endpoints import entity_endpoint
from routes import by_handler

endpoint, handler = entity_endpoint(by_handler(__name__))
