"""Settlement: move a balance's `pending` values (each entry's exact `availableCentsAfter`) onto the entries.

Off the critical path: the table's stream names the balances that took new entries (a Lambda in the cloud, a
poller under `make run` and the tests), and the sweeper names every balance whose `pending` grew old
(`ddbguard.domain.settlement_sweep`). Per balance, not per entry: one read of its `pending` map, then for each
chunk of up to 99 entries one BatchGetItem of the entries (their request digests), one transaction completing
their request markers, and one transaction writing the values onto the entries while removing them from `pending`
(the balance plus the 99 entries, all or nothing). Run late, twice, concurrently or after a crash, it writes
the same values again and removes keys already gone: nothing that is already right changes. Until it has run,
the statement and replays read `pending`. A balance it empties leaves the sparse unsettled-balances index (one
conditional UpdateItem).
"""

from __future__ import annotations

import contextlib
import time
from typing import NamedTuple

from boto3.dynamodb.conditions import Attr

from ddbguard.store import keys, reads, writes
from ddbguard.store.attribute_names import (
    AFTER,
    AVAILABLE_CENTS_AFTER,
    PENDING,
    PK,
    REQUEST_DIGEST,
    SK,
    UNSETTLED_SHARD,
    UNSETTLED_SINCE,
)
from ddbguard.store.ids import time_of_sortable_id
from ddbguard.store.shapes import Action, Item

__all__ = ["ENTRIES_PER_TRANSACTION", "Settled", "account_of_new_entry", "pending_age_s", "settle_balance"]

# A transaction holds at most 100 actions: the balance and 99 entries.
ENTRIES_PER_TRANSACTION = 99


class Settled(NamedTuple):
    """What one settlement of a balance did."""

    entries: int  # values moved onto their entries
    oldest_age_s: float  # age of the oldest value found in `pending` (0 when there was none)


def pending_age_s(pending: Item, now_s: float | None = None) -> float:
    """How long the oldest value of a `pending` map has waited (entry ids are ULIDs: they carry their time)."""
    if not pending:
        return 0.0
    now = time.time() if now_s is None else now_s
    return max(0.0, now - min(time_of_sortable_id(entry_id) for entry_id in pending))


def settle_balance(account_id: str) -> Settled:
    """Settle every value in the balance's `pending`; (0, 0) when there is none or no balance."""
    balance = reads.get_item(keys.balance_key(account_id), attributes=((PK,), (PENDING,), (UNSETTLED_SINCE,))) or {}
    pending: Item = balance.get(PENDING) or {}
    age = pending_age_s(pending)
    ordered = sorted(pending.items())
    for start in range(0, len(ordered), ENTRIES_PER_TRANSACTION):
        _settle_chunk(account_id, dict(ordered[start : start + ENTRIES_PER_TRANSACTION]))
    if UNSETTLED_SINCE in balance:
        _update_unsettled_index(account_id)
    return Settled(entries=len(ordered), oldest_age_s=age)


def _update_unsettled_index(account_id: str) -> None:
    """Out of the unsettled-balances index once `pending` is empty; while values still wait (new ones came
    meanwhile), its sort key moves up to the oldest of them, so the index never tells an age that is not real.

    Conditions decide against movements racing in: a movement that lands first keeps `pending` non-empty (no
    removal), one that lands after finds the attributes gone and sets them again itself. The oldest id comes from
    the failed write's ALL_OLD item; values only leave `pending` or join it newer, so it is never too young.
    """
    key = keys.balance_key(account_id)
    emptied = Attr(PENDING).not_exists() | Attr(PENDING).size().eq(0)
    try:
        writes.conditional_update(
            key,
            remove=(UNSETTLED_SHARD, UNSETTLED_SINCE),
            condition=Attr(UNSETTLED_SINCE).exists() & emptied,
            return_values="NONE",
        )
        return
    except writes.ConditionFailed as failed:
        item = failed.item or {}
    waiting: Item = item.get(PENDING) or {}
    if UNSETTLED_SINCE not in item or not waiting or min(waiting) == item[UNSETTLED_SINCE]:
        return
    # Emptied meanwhile (the condition fails): the settlement that emptied it takes it out of the index.
    with contextlib.suppress(writes.ConditionFailed):
        writes.conditional_update(
            key,
            set_values={UNSETTLED_SINCE: min(waiting)},
            condition=Attr(UNSETTLED_SINCE).exists() & Attr(PENDING).size().gt(0),
            return_values="NONE",
        )


def _settle_chunk(account_id: str, values: dict[str, int]) -> None:
    entries = reads.get_items(
        [keys.entry_key(account_id, entry_id) for entry_id in values],
        attributes=((SK,), (REQUEST_DIGEST,)),
    )
    digests = {
        entry_id: str(item[REQUEST_DIGEST])
        for item in entries
        if item.get(REQUEST_DIGEST) and (entry_id := keys.entry_id_of(str(item[SK]))) is not None
    }
    # Markers first: were the process to die after the entries, a replay would still find its value.
    _complete_markers([(digest, entry_id, values[entry_id]) for entry_id, digest in digests.items()])
    entry_updates = [
        writes.update(
            keys.entry_key(account_id, entry_id),
            set_values={AVAILABLE_CENTS_AFTER: value},
            condition=Attr(PK).exists(),  # UpdateItem upserts: never create an entry
        )
        for entry_id, value in values.items()
    ]
    # Guarded: an emptied ledger may be deleted (with its account) meanwhile; its entries stay and are settled.
    balance_update = writes.update(
        keys.balance_key(account_id),
        remove=tuple((PENDING, entry_id) for entry_id in values),
        condition=Attr(PK).exists(),
    )
    try:
        writes.transact_write([balance_update, *entry_updates])
    except writes.TransactionCancelled as cancelled:
        if not cancelled.failed(0):
            raise
        writes.transact_write(entry_updates)  # the balance is gone: nothing left to remove from


def _complete_markers(completions: list[tuple[str, str, int]]) -> None:
    """`after.<entryId>` on each request marker; a marker of an older format (no `after`) or none is left alone."""
    actions: list[Action] = [
        writes.update(
            keys.request_marker_key(digest),
            set_paths={(AFTER, entry_id): value},
            condition=Attr(PK).exists() & Attr(AFTER).exists(),
        )
        for digest, entry_id, value in completions
    ]
    if not actions:
        return
    try:
        writes.transact_write(actions)
    except writes.TransactionCancelled as cancelled:
        remaining = [action for index, action in enumerate(actions) if not cancelled.failed(index)]
        if remaining:
            writes.transact_write(remaining)


def account_of_new_entry(key: Item) -> str | None:
    """The account of a stream record's keys when they are a ledger entry's, else None."""
    partition, sort = str(key.get(PK, "")), str(key.get(SK, ""))
    return keys.account_id_of(partition) if keys.entry_id_of(sort) is not None else None
