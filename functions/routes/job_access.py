"""What the background jobs may do to the table: the lock audit, the stream's settlement and the sweeper.

None of them is an API route, so none has an entry in the route table; infra/ grants each exactly this, as it grants
a route its `access`, and tests/test_table_access.py checks the grants against the calls the test suite makes.
"""

from __future__ import annotations

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.store.attribute_names import UNSETTLED_INDEX
from ddbguard_api.http.route import TableAccess
from routes import ENTITIES
from routes.table_patterns import ACCOUNTS, AUDIT_CHECKPOINTS, INDEX_PREFIX, REQUEST_MARKERS

_AUDITED = tuple(entity for entity in ENTITIES if entity.unique)
_AUDITED_ITEMS = tuple(entity.partition_pattern for entity in _AUDITED)
_AUDITED_LOCKS = tuple(pattern for entity in _AUDITED for pattern in entity.lock_patterns)

# The scheduled lock audit (functions/audit/audit_locks.py), over every entity with unique fields. Scan is the only
# way to see every lock; dynamodb:LeadingKeys cannot narrow a Scan (it names no partition), so infra/ grants it
# unconditioned.
AUDIT_TABLE_ACCESS: TableAccess = {
    "Scan": (),
    # Each Scan page's locks' owners and its items' locks, read by key: memory stays flat. Its own checkpoints are
    # kept and read back by key too (the state machine carries their tokens, never a lock's key).
    "BatchGetItem": (*_AUDITED_ITEMS, *_AUDITED_LOCKS),
    "GetItem": (*_AUDITED_ITEMS, *_AUDITED_LOCKS, AUDIT_CHECKPOINTS),
    "ConditionCheckItem": _AUDITED_ITEMS,
    "PutItem": (*_AUDITED_LOCKS, AUDIT_CHECKPOINTS),
    "DeleteItem": _AUDITED_LOCKS,
}

# The table stream's settlement (functions/streams/settle_entries.py): reads a balance's `pending` map, its entries'
# request digests, copies each value onto its entry and request marker, drops it from `pending`.
SETTLEMENT_TABLE_ACCESS: TableAccess = {
    "GetItem": (ACCOUNTS,),
    "BatchGetItem": (ACCOUNTS,),
    "UpdateItem": (ACCOUNTS, REQUEST_MARKERS),
}
# The scheduled sweeper (functions/streams/sweep_pending.py): finds the balances that wait in the sparse
# unsettled-balances index (never the table), then settles each exactly as the stream's settlement does. An index
# pattern (`index/<name>`) is granted on that index's ARN alone, without dynamodb:LeadingKeys (it names no table
# partition).
UNSETTLED_BALANCES = f"{INDEX_PREFIX}{UNSETTLED_INDEX}"
SWEEPER_TABLE_ACCESS: TableAccess = {"Query": (UNSETTLED_BALANCES,), **SETTLEMENT_TABLE_ACCESS}

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
