"""What the background jobs may do to the table: the lock audit, the stream's settlement and the sweeper.

None of them is an API route, so none has an entry in the route table; infra/ grants each exactly this, as it grants
a route its `access`, and tests/test_table_access.py checks the grants against the calls the test suite makes.
"""

from __future__ import annotations

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard_api.http.route import TableAccess
from ddbguard_jobs.access import SETTLEMENT_ACCESS, SWEEPER_ACCESS, UNSETTLED_BALANCES, audit_access
from routes import ENTITIES
from routes.table_patterns import ACCOUNTS

# The jobs' access is the library's (ddbguard_jobs/access.py), over this route table's entities.
AUDIT_TABLE_ACCESS: TableAccess = audit_access(ENTITIES)
SETTLEMENT_TABLE_ACCESS: TableAccess = SETTLEMENT_ACCESS
SWEEPER_TABLE_ACCESS: TableAccess = SWEEPER_ACCESS

# The on-call remedy for an unrepaired lock (scripts/lock_remedy.py, `make lock-remedy`; a role of the stack, not a
# function): an account's unique value changed on its owner's behalf, by the update PATCH /accounts/{id} makes
# (read the account, update it at its version, put the new lock, release the old one while still its own).
_ACCOUNT_LOCKS = tuple(ACCOUNT.lock_patterns)
LOCK_REMEDY_TABLE_ACCESS: TableAccess = {
    "GetItem": (ACCOUNTS,),
    "UpdateItem": (ACCOUNTS,),
    "PutItem": _ACCOUNT_LOCKS,
    "DeleteItem": _ACCOUNT_LOCKS,
}

__all__ = [
    "AUDIT_TABLE_ACCESS",
    "LOCK_REMEDY_TABLE_ACCESS",
    "SETTLEMENT_TABLE_ACCESS",
    "SWEEPER_TABLE_ACCESS",
    "UNSETTLED_BALANCES",
]
