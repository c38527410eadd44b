"""Money movements: guarded balance changes, their ledger entries and a request marker, in one transaction.

The guard lives in the write: a debit's balance update is conditioned on the ledger existing,
belonging to the caller and holding the funds; a refusal is explained from the failed write's
ALL_OLD item, without a second read. The request marker (key derived from caller + route +
Idempotency-Key, `attribute_not_exists`) makes a replay detectable forever: the marker's
returned item points at the first result.

`availableCentsAfter`: a transaction cannot return values, and pinning the balance version
would make racing writers retry. So the balance update records the exact new available amount
under `pending.<entryId>` (update operands are pre-update values), and once the transaction has
committed it is copied onto the entry and dropped from `pending`. A crash in between loses
nothing: the statement reads `pending` for any entry not yet settled.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard import keys, replays, transactions
from ddbguard.errors import DomainError, IdempotencyKeyReused, InsufficientFunds, NotFound
from ddbguard.ids import now_iso, time_sortable_id
from ddbguard.observability import MetricName, count
from ddbguard.request_identity import RequestIdentity
from ddbguard.schema import PARTITION_KEY

CLEARED = "clearedCents"
HELD = "holdCents"
AVAILABLE = "availableCents"
PENDING = "pending"
OWNER = "ownerSub"


@dataclass(frozen=True)
class BalanceChange:
    """One side of a movement: how one ledger's balance changes and the entry that records it."""

    account_id: str
    entry_type: str
    amount_cents: int
    cleared_delta: int
    hold_delta: int = 0
    owner_sub: str | None = None  # the ledger must belong to this caller; None: any open ledger
    require_funds: bool = False  # availableCents >= amount_cents, checked in the write
    side_field: str | None = None  # the request field naming this side, for refusals
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def available_delta(self) -> int:
        return self.cleared_delta - self.hold_delta


@dataclass(frozen=True)
class MovementResult:
    entries: list[dict[str, Any]]
    replayed: bool
    result: dict[str, Any] | None = None


class ExtraGuardFailed(Exception):
    """One of the caller's extra actions (a hold, an order) refused; `item` is its ALL_OLD item."""

    def __init__(self, index: int, item: dict[str, Any] | None):
        super().__init__(f"extra action {index} refused")
        self.index = index
        self.item = item


def balance_guard(change: BalanceChange) -> ConditionBase:
    condition = Attr(PARTITION_KEY).exists()
    if change.owner_sub is not None:
        condition &= Attr(OWNER).eq(change.owner_sub)
    if change.require_funds:
        condition &= Attr(AVAILABLE).gte(change.amount_cents)
    return condition


def explain_refusal(change: BalanceChange, item: dict[str, Any] | None) -> DomainError:
    """Why a balance guard failed, from the item the failed write returned."""
    if item is None or (change.owner_sub is not None and item.get(OWNER) != change.owner_sub):
        # Not yours answers exactly like absent: existence is not disclosed.
        return NotFound("ledger_not_found", f"No open ledger for account {change.account_id}.", field=change.side_field)
    if change.require_funds and int(item.get(AVAILABLE, 0)) < change.amount_cents:
        count(MetricName.INSUFFICIENT_FUNDS)
        return InsufficientFunds(int(item.get(AVAILABLE, 0)), change.amount_cents, field=change.side_field)
    raise RuntimeError(f"balance guard of {change.account_id} failed for no known reason: {item!r}")


def _balance_update(change: BalanceChange, entry_id: str, now: str) -> dict:
    return transactions.update(
        keys.balance_key(change.account_id),
        set_values={"updatedAt": now},
        increments={
            CLEARED: change.cleared_delta,
            HELD: change.hold_delta,
            AVAILABLE: change.available_delta,
            "version": 1,
        },
        derived={(PENDING, entry_id): (AVAILABLE, change.available_delta)},
        condition=balance_guard(change),
    )


def _entry(change: BalanceChange, entry_id: str, now: str) -> dict[str, Any]:
    return {
        "entryId": entry_id,
        "accountId": change.account_id,
        "type": change.entry_type,
        "amountCents": change.amount_cents,
        "createdAt": now,
        **change.details,
    }


def _marker(request: RequestIdentity, entries: list[dict[str, Any]], result: dict[str, Any] | None, now: str) -> dict:
    item = {
        **keys.request_marker_key(request.digest),
        "kind": "request",
        "route": request.route,
        "callerSub": request.caller,
        "fingerprint": request.fingerprint,
        "entries": [{"accountId": e["accountId"], "entryId": e["entryId"]} for e in entries],
        "createdAt": now,
    }
    if result is not None:
        item["result"] = result
    return transactions.put(item, Attr(PARTITION_KEY).not_exists())


def move_money(
    changes: list[BalanceChange],
    *,
    request: RequestIdentity,
    extra_actions: list[dict] | None = None,
    result: dict[str, Any] | None = None,
) -> MovementResult:
    """Apply all balance changes, their entries, the marker and `extra_actions` atomically.

    Refusal order: a replay (marker present) first, then the caller's extra guards (raised as
    ExtraGuardFailed for the caller to explain), then the balances (NotFound / InsufficientFunds).
    `result` is stored in the marker and handed back verbatim on a replay.
    """
    extra_actions = extra_actions or []
    now = now_iso()
    entries = [_entry(change, time_sortable_id(), now) for change in changes]
    actions = [_marker(request, entries, result, now)]
    actions += [_balance_update(c, e["entryId"], now) for c, e in zip(changes, entries, strict=True)]
    actions += [
        transactions.put({**keys.entry_key(e["accountId"], e["entryId"]), **e}, Attr(PARTITION_KEY).not_exists())
        for e in entries
    ]
    extra_offset = len(actions)
    actions += extra_actions
    try:
        transactions.transact_write(actions, token=request.transaction_token)
    except transactions.TransactionCancelled as cancelled:
        if cancelled.failed(0):
            return replay(cancelled.item(0), request)
        for index in range(len(extra_actions)):
            if cancelled.failed(extra_offset + index):
                raise ExtraGuardFailed(index, cancelled.item(extra_offset + index)) from None
        for index, change in enumerate(changes):
            if cancelled.failed(1 + index):
                raise explain_refusal(change, cancelled.item(1 + index)) from None
        raise
    return MovementResult([settle_entry(e) for e in entries], replayed=False, result=result)


def replay(marker: dict[str, Any] | None, request: RequestIdentity) -> MovementResult:
    """The first result of a request whose marker exists."""
    if marker is None or marker.get("fingerprint") != request.fingerprint:
        raise IdempotencyKeyReused()
    count(MetricName.REPLAY)
    replays.mark_replayed()
    entries = []
    for ref in marker.get("entries", []):
        stored = transactions.get_item(keys.entry_key(ref["accountId"], ref["entryId"]))
        if stored is not None:
            entries.append(settle_entry(_public_entry(stored)))
    return MovementResult(entries, replayed=True, result=marker.get("result"))


def _public_entry(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in ("PK", "SK")}


def settle_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """Copy the exact availableCentsAfter from the balance's `pending` map onto the entry, then drop it."""
    if "availableCentsAfter" in entry:
        return entry
    entry_id, account_id = entry["entryId"], entry["accountId"]
    balance_key = keys.balance_key(account_id)
    # Only the one map entry: `pending` may hold many in-flight movements of a busy ledger.
    balance = transactions.get_item(balance_key, attributes=((PENDING, entry_id),)) or {}
    after = (balance.get(PENDING) or {}).get(entry_id)
    if after is None:  # settled by an earlier attempt of this request
        stored = transactions.get_item(keys.entry_key(account_id, entry_id)) or {}
        return {**entry, "availableCentsAfter": stored.get("availableCentsAfter")}
    transactions.conditional_update(
        keys.entry_key(account_id, entry_id),
        set_values={"availableCentsAfter": after},
        condition=Attr(PARTITION_KEY).exists(),
        return_values="NONE",
    )
    # Guarded: UpdateItem upserts, and an emptied ledger may be deleted (with its account) meanwhile.
    with suppress(transactions.ConditionFailed):
        transactions.conditional_update(
            balance_key, remove=((PENDING, entry_id),), condition=Attr(PARTITION_KEY).exists(), return_values="NONE"
        )
    return {**entry, "availableCentsAfter": after}


def new_balance_item(account_id: str, owner_sub: str, now: str) -> dict[str, Any]:
    """A freshly opened ledger's balance item (version 0 is added by the versioned create)."""
    return {
        **keys.balance_key(account_id),
        "kind": "balance",
        "accountId": account_id,
        OWNER: owner_sub,
        CLEARED: 0,
        HELD: 0,
        AVAILABLE: 0,
        PENDING: {},
        "createdAt": now,
        "updatedAt": now,
    }


def public_balance(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "accountId": item["accountId"],
        CLEARED: int(item[CLEARED]),
        HELD: int(item[HELD]),
        AVAILABLE: int(item[AVAILABLE]),
        "version": int(item["version"]),
        "createdAt": item.get("createdAt"),
        "updatedAt": item.get("updatedAt"),
    }
