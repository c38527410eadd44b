"""Lock audit segment worker (infra/audit.py's state machine runs it; not an API route): the library's worker
(`ddbguard_jobs.audit_locks`) over every entity of the route table."""

import routes
from ddbguard_jobs.audit_locks import handler_for

__all__ = ["handler"]

handler = handler_for(routes.ENTITIES)
