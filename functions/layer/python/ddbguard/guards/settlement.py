"""Settlement: move an entry's exact `availableCentsAfter` from its balance's `pending` map onto the entry.

Off the critical path: the table's stream delivers every new entry to `settle_new_entry` (a Lambda
in the cloud, a poller under `make run` and the tests). Each step is a conditional single write
that holds only while it still has something to do, in an order that is safe to interrupt and to
repeat: the entry first, then the request marker, then the `pending` value is dropped. Run late,
twice or after a crash, it changes nothing that is already right; until it has run, the statement
and replays read `pending`.
"""

from __future__ import annotations

from contextlib import suppress

from boto3.dynamodb.conditions import Attr

from ddbguard.store import keys, reads, writes
from ddbguard.store.schema import AVAILABLE_AFTER, PARTITION_KEY, PENDING, REQUEST_DIGEST, SORT_KEY
from ddbguard.store.shapes import Item


def settle_entry(account_id: str, entry_id: str, request_digest: str | None = None) -> bool:
    """Settle one entry; False when there was nothing left to settle (already done, or no balance)."""
    balance_key = keys.balance_key(account_id)
    # Only the one map entry: `pending` may hold many in-flight movements of a busy ledger.
    balance = reads.get_item(balance_key, attributes=((PENDING, entry_id),)) or {}
    after = (balance.get(PENDING) or {}).get(entry_id)
    if after is None:
        return False
    with suppress(writes.ConditionFailed):  # already on the entry
        writes.conditional_update(
            keys.entry_key(account_id, entry_id),
            set_values={AVAILABLE_AFTER: after},
            condition=Attr(PARTITION_KEY).exists() & Attr(AVAILABLE_AFTER).not_exists(),
            return_values="NONE",
        )
    if request_digest is not None:
        with suppress(writes.ConditionFailed):  # a marker of an older format, or none
            writes.conditional_update(
                keys.request_marker_key(request_digest),
                set_paths={("after", entry_id): after},
                condition=Attr(PARTITION_KEY).exists() & Attr("after").exists(),
                return_values="NONE",
            )
    # Guarded: UpdateItem upserts, and an emptied ledger may be deleted (with its account) meanwhile.
    with suppress(writes.ConditionFailed):
        writes.conditional_update(
            balance_key, remove=((PENDING, entry_id),), condition=Attr(PARTITION_KEY).exists(), return_values="NONE"
        )
    return True


def settle_new_entry(key: Item) -> bool:
    """A stream record's keys: settle the item if it is a ledger entry that still lacks its value."""
    partition, sort = str(key.get(PARTITION_KEY, "")), str(key.get(SORT_KEY, ""))
    if not sort.startswith(keys.ENTRY_PREFIX) or not partition.startswith(keys.ACCOUNT_PREFIX):
        return False
    account_id, entry_id = partition[len(keys.ACCOUNT_PREFIX) :], sort[len(keys.ENTRY_PREFIX) :]
    entry = reads.get_item(keys.entry_key(account_id, entry_id), attributes=((AVAILABLE_AFTER,), (REQUEST_DIGEST,)))
    if entry is None or AVAILABLE_AFTER in entry:
        return False  # gone, or settled already
    return settle_entry(account_id, entry_id, entry.get(REQUEST_DIGEST))
