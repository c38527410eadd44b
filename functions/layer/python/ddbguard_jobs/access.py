"""What the background jobs may do to the table: the lock audit, the stream's settlement and the sweeper.

Action -> partition-key patterns, as a route's access (`ddbguard.guards.entity_access`): the product's infra/ and
`ddbguard_cdk` grant each job exactly this, each action limited by `dynamodb:LeadingKeys` where it names a partition.
"""

from __future__ import annotations

from collections.abc import Sequence

from ddbguard.guards.entity import Entity
from ddbguard.guards.entity_access import INDEX_PREFIX, REQUEST_MARKERS
from ddbguard.store.attribute_names import UNSETTLED_INDEX
from ddbguard.store.keys import ACCOUNT_PREFIX

__all__ = ["AUDIT_CHECKPOINTS", "SETTLEMENT_ACCESS", "SWEEPER_ACCESS", "UNSETTLED_BALANCES", "audit_access"]

AUDIT_CHECKPOINTS = "AUDIT#*"  # the lock audit's checkpoints (ddbguard/store/audit_checkpoints.py)
# The ledger's balances, entries and holds share their account's partition (`ACCT#<accountId>`).
_LEDGERS = f"{ACCOUNT_PREFIX}*"


def audit_access(entities: Sequence[Entity]) -> dict[str, tuple[str, ...]]:
    """The lock audit over every entity of `entities` with unique fields. Scan is the only way to see every lock;
    dynamodb:LeadingKeys cannot narrow a Scan (it names no partition), so it is granted unconditioned."""
    audited = tuple(entity for entity in entities if entity.unique)
    items = tuple(entity.partition_pattern for entity in audited)
    locks = tuple(pattern for entity in audited for pattern in entity.lock_patterns)
    return {
        "Scan": (),
        # Each Scan page's locks' owners and its items' locks, read by key: memory stays flat. Its own checkpoints
        # are kept and read back by key too (the state machine carries their tokens, never a lock's key).
        "BatchGetItem": (*items, *locks),
        "GetItem": (*items, *locks, AUDIT_CHECKPOINTS),
        "ConditionCheckItem": items,
        "PutItem": (*locks, AUDIT_CHECKPOINTS),
        "DeleteItem": locks,
    }


# The stream's settlement (ddbguard_jobs/settle_entries.py): reads a balance's `pending` map, its entries' request
# digests, copies each value onto its entry and request marker, drops it from `pending`.
SETTLEMENT_ACCESS: dict[str, tuple[str, ...]] = {
    "GetItem": (_LEDGERS,),
    "BatchGetItem": (_LEDGERS,),
    "UpdateItem": (_LEDGERS, REQUEST_MARKERS),
}
# The sweeper (ddbguard_jobs/sweep_pending.py): finds the balances that wait in the sparse unsettled-balances index
# (never the table), then settles each exactly as the stream's settlement does. An index pattern (`index/<name>`) is
# granted on that index's ARN alone, without dynamodb:LeadingKeys (it names no table partition).
UNSETTLED_BALANCES = f"{INDEX_PREFIX}{UNSETTLED_INDEX}"
SWEEPER_ACCESS: dict[str, tuple[str, ...]] = {"Query": (UNSETTLED_BALANCES,), **SETTLEMENT_ACCESS}
