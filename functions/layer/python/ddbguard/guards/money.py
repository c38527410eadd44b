"""Money movements: guarded balance changes, their ledger entries and a request marker, in one transaction.

The guard lives in the write: a debit's balance update is conditioned on the ledger existing,
belonging to the caller and holding the funds; a refusal is explained from the failed write's
ALL_OLD item, without a second read. The request marker (`ddbguard.guards.replays`, key derived
from caller + route + Idempotency-Key, `attribute_not_exists`) is the movement's idempotency
record: it holds the entries and the reply, and a retry fails at it and answers from it.

`availableCentsAfter`: a transaction cannot return values, and pinning the balance version
would make racing writers retry. So the balance update records the exact new available amount
under `pending.<entryId>` (update operands are pre-update values), and the reply reads it back
with one projected read after the commit. Copying it onto the entry and the marker, and dropping
it from `pending`, happens off the critical path (`ddbguard.guards.settlement`, run by the
table's stream); until then the statement and replays read `pending`. A balance whose `pending` is non-empty
is also in the sparse unsettled-balances index (`UNSETTLED_INDEX`), which is what the sweeper reads.
"""

from __future__ import annotations

from typing import Any, Generic, NamedTuple, TypeVar

from boto3.dynamodb.conditions import Attr, ConditionBase

import ddbguard.limits as limits  # read at call time: the bound can be lowered (tests)
from ddbguard.errors import Busy, DomainError, InsufficientFunds, NotFound, SettlementBehind
from ddbguard.guards import replays
from ddbguard.guards.ownership import is_visible
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.observability import MetricName, count
from ddbguard.records import Record
from ddbguard.store import keys, reads, writes
from ddbguard.store.attribute_names import (
    ACCOUNT_ID,
    AFTER,
    AMOUNT_CENTS,
    AVAILABLE_CENTS,
    AVAILABLE_CENTS_AFTER,
    CLEARED_CENTS,
    CREATED_AT,
    ENTRIES,
    ENTRY_ID,
    HOLD_CENTS,
    OWNER_SUB,
    PENDING,
    PK,
    REQUEST_DIGEST,
    TYPE,
    UNSETTLED_SHARD,
    UNSETTLED_SINCE,
    UPDATED_AT,
    VERSION,
)
from ddbguard.store.ids import now_iso, time_sortable_id
from ddbguard.store.items import Entry, EntryDetails, EntryItem, RequestMarker
from ddbguard.store.plan import PlanCancelled, TransactionPlan
from ddbguard.store.shapes import Action, Item

__all__ = [
    "BalanceChange",
    "ExtraGuardFailed",
    "MovementResult",
    "Outcome",
    "balance_guard",
    "explain_refusal",
    "ledger_not_found",
    "move_money",
    "replay",
    "unsettled_bound",
    "with_available_after",
]


class BalanceChange(Record):
    """One side of a movement: how one ledger's balance changes and the entry that records it."""

    __slots__ = (
        "account_id",
        "amount_cents",
        "cleared_delta",
        "details",
        "entry_type",
        "hold_delta",
        "incoming",
        "owner_sub",
        "require_funds",
        "side_field",
    )

    def __init__(
        self,
        *,
        account_id: str,
        entry_type: str,
        amount_cents: int,
        cleared_delta: int,
        hold_delta: int = 0,
        owner_sub: str | None = None,
        require_funds: bool = False,
        side_field: str | None = None,
        details: EntryDetails | None = None,
        incoming: bool = False,
    ) -> None:
        self.account_id = account_id
        self.entry_type = entry_type
        self.amount_cents = amount_cents
        self.cleared_delta = cleared_delta
        self.hold_delta = hold_delta
        self.owner_sub = owner_sub  # the ledger must belong to this caller; None: any open ledger
        self.require_funds = require_funds  # availableCents >= amount_cents, checked in the write
        self.side_field = side_field  # the request field naming this side, for refusals
        self.details: EntryDetails = details or EntryDetails()  # only ever read (`**details`)
        # Money from someone else: it may take only the incoming part of the unsettled bound.
        self.incoming = incoming

    @property
    def available_delta(self) -> int:
        return self.cleared_delta - self.hold_delta


# What a movement hands back besides its entries (a hold's id and status, a transfer's sides, a paid order),
# kept in its request marker for a retry.
Outcome = TypeVar("Outcome")


class MovementResult(NamedTuple, Generic[Outcome]):
    entries: list[Entry]
    replayed: bool
    result: Outcome


class ExtraGuardFailed(Exception):
    """One of the caller's extra actions (a hold, an order) refused; `item` is its ALL_OLD item."""

    def __init__(self, index: int, item: Item | None):
        super().__init__(f"extra action {index} refused")
        self.index = index
        self.item = item


def balance_guard(change: BalanceChange) -> ConditionBase:
    condition: ConditionBase = Attr(PK).exists()
    if change.owner_sub is not None:
        condition &= Attr(OWNER_SUB).eq(change.owner_sub)
    if change.require_funds:
        condition &= Attr(AVAILABLE_CENTS).gte(change.amount_cents)
    # Bounded `pending`: refused here, not by the 400 KB item limit (a ValidationError no retry can cure).
    return condition & Attr(PENDING).size().lt(unsettled_bound(change))


def unsettled_bound(change: BalanceChange) -> int:
    """How many unsettled values the balance may carry for this change to go: all of the bound for the owner's
    own movements, its incoming part for money from someone else."""
    return limits.MAX_INCOMING_PENDING_ENTRIES if change.incoming else limits.MAX_PENDING_ENTRIES


def ledger_not_found(account_id: str, side_field: str | None = None) -> NotFound:
    return NotFound("ledger_not_found", f"No open ledger for account {account_id}.", field=side_field)


def explain_refusal(change: BalanceChange, item: Item | None) -> DomainError | SettlementBehind:
    """Why a balance guard failed, from the item the failed write returned."""
    if item is None or (change.owner_sub is not None and not is_visible(item, change.owner_sub)):
        return ledger_not_found(change.account_id, change.side_field)  # not yours answers like absent
    if change.require_funds and int(item.get(AVAILABLE_CENTS, 0)) < change.amount_cents:
        count(MetricName.INSUFFICIENT_FUNDS)
        return InsufficientFunds(int(item.get(AVAILABLE_CENTS, 0)), change.amount_cents, field=change.side_field)
    if len(item.get(PENDING) or {}) >= unsettled_bound(change):
        count(MetricName.SETTLEMENT_BEHIND)
        return SettlementBehind(change.account_id, field=change.side_field)
    raise RuntimeError(f"balance guard of {change.account_id} failed for no known reason: {item!r}")


def _balance_update(change: BalanceChange, entry_id: str, now: str) -> Action:
    return writes.update(
        keys.balance_key(change.account_id),
        set_values={UPDATED_AT: now},
        increments={
            CLEARED_CENTS: change.cleared_delta,
            HOLD_CENTS: change.hold_delta,
            AVAILABLE_CENTS: change.available_delta,
            VERSION: 1,
        },
        derived={(PENDING, entry_id): (AVAILABLE_CENTS, change.available_delta)},
        # Into the unsettled-balances index when the balance starts waiting: set once, so a movement on a balance
        # that already waits changes no index key and writes nothing to the index.
        set_if_absent={UNSETTLED_SHARD: keys.unsettled_shard(change.account_id), UNSETTLED_SINCE: entry_id},
        condition=balance_guard(change),
    )


def _entry(change: BalanceChange, entry_id: str, now: str) -> Entry:
    return {
        ENTRY_ID: entry_id,
        ACCOUNT_ID: change.account_id,
        TYPE: change.entry_type,
        AMOUNT_CENTS: change.amount_cents,
        CREATED_AT: now,
        **change.details,
    }


def move_money(
    changes: list[BalanceChange],
    *,
    request: RequestIdentity,
    extra_actions: list[Action] | None = None,
    result: Outcome,
    with_entries: bool = True,
) -> MovementResult[Outcome]:
    """Apply all balance changes, their entries, the marker and `extra_actions` atomically.

    Refusal order: a replay (marker present) first, then the caller's extra guards (raised as
    ExtraGuardFailed for the caller to explain), then the balances (NotFound / InsufficientFunds).
    `result` is stored in the marker and handed back verbatim on a replay. Two calls on success
    (the transaction and the read of `availableCentsAfter`; one when the reply shows no entry,
    `with_entries=False`), one on a refusal or a settled replay.
    """
    extra_actions = extra_actions or []
    now = now_iso()
    entries = [_entry(change, time_sortable_id(), now) for change in changes]
    marker = replays.marker_put(request, result, entries=entries)
    plan = TransactionPlan().add(replays.MARKER, marker)
    for index, (change, entry) in enumerate(zip(changes, entries, strict=True)):
        plan = plan.add(f"balance:{index}", _balance_update(change, entry[ENTRY_ID], now))
    for index, entry in enumerate(entries):
        stored_entry: EntryItem = {
            **keys.entry_key(entry[ACCOUNT_ID], entry[ENTRY_ID]),
            **entry,
            REQUEST_DIGEST: request.digest,
        }
        plan = plan.add(f"entry:{index}", writes.put(stored_entry, Attr(PK).not_exists()))
    for index, action in enumerate(extra_actions):
        plan = plan.add(f"extra:{index}", action)
    try:
        plan.commit()
    except PlanCancelled as cancelled:
        if cancelled.failed(replays.MARKER):
            first = reads.as_kind(RequestMarker, cancelled.item(replays.MARKER))
            return replay(first, request, with_entries=with_entries)
        for index in range(len(extra_actions)):
            if cancelled.failed(f"extra:{index}"):
                raise ExtraGuardFailed(index, cancelled.item(f"extra:{index}")) from None
        for index, change in enumerate(changes):
            if cancelled.failed(f"balance:{index}"):
                raise explain_refusal(change, cancelled.item(f"balance:{index}")) from None
        raise
    if not with_entries:
        return MovementResult(entries, replayed=False, result=result)
    try:
        settled = with_available_after(entries)
    except Busy:
        # Committed, but the read-back failed: the client's retry with its key answers from the marker.
        raise Busy("the movement was written; its reply could not be read back", outcome_unknown=True) from None
    return MovementResult(settled, replayed=False, result=result)


def replay(marker: RequestMarker | None, request: RequestIdentity, *, with_entries: bool = True) -> MovementResult[Any]:
    """The first result of a request whose marker exists, from the marker (and `pending` while unsettled). Its
    outcome is what the first attempt stored (`Any`: read back from the table; the caller knows its shape)."""
    result = replays.first_response(marker, request)
    assert marker is not None  # first_response refuses a missing marker
    settled = marker.get(AFTER) or {}
    entries: list[Entry] = []
    for entry in marker.get(ENTRIES, []):
        after = settled.get(entry[ENTRY_ID])
        entries.append(entry if after is None else {**entry, AVAILABLE_CENTS_AFTER: after})
    return MovementResult(with_available_after(entries) if with_entries else entries, replayed=True, result=result)


def with_available_after(entries: list[Entry]) -> list[Entry]:
    """The entries with their exact `availableCentsAfter`: from `pending` on their balances (one read
    for all of them), or from the entry itself where the settlement already moved it there."""
    unsettled = [e for e in entries if AVAILABLE_CENTS_AFTER not in e]
    if not unsettled:
        return entries
    balances = {keys.balance_key(e[ACCOUNT_ID])[PK]: keys.balance_key(e[ACCOUNT_ID]) for e in unsettled}
    paths = ((PK,), *((PENDING, e[ENTRY_ID]) for e in unsettled))
    if len(balances) == 1:
        found = [reads.get_item(next(iter(balances.values())), attributes=paths) or {}]
    else:
        found = reads.get_items(list(balances.values()), attributes=paths)
    after = {entry_id: value for item in found for entry_id, value in (item.get(PENDING) or {}).items()}
    settled = [e for e in unsettled if e[ENTRY_ID] not in after]
    if settled:  # settled meanwhile: the value now lives on the entry (read the same way, one call)
        entry_keys = [keys.entry_key(e[ACCOUNT_ID], e[ENTRY_ID]) for e in settled]
        stored = (
            [reads.get_item(entry_keys[0]) or {}]
            if len(balances) == 1 and len(settled) == 1
            else reads.get_items(entry_keys)
        )
        after.update({item[ENTRY_ID]: item.get(AVAILABLE_CENTS_AFTER) for item in stored if ENTRY_ID in item})
    return [
        entry if AVAILABLE_CENTS_AFTER in entry else {**entry, AVAILABLE_CENTS_AFTER: after.get(entry[ENTRY_ID])}
        for entry in entries
    ]
