"""Holds: money moved from available to held, then captured (it leaves) or released (it returns), once.

A hold is its own item, `ACCT#<accountId>` / `HOLD#<holdId>`:
`{kind: "hold", holdId, accountId, ownerSub, amountCents, status: OPEN|CAPTURED|RELEASED,
createdAt, updatedAt, createdByRequest, settledByRequest?}`. It is written or settled in the same
transaction as the balance change and its entry (a `money.move_money` extra action), so the
balance's `holdCents` always equals the sum of the OPEN holds. Settling is guarded by
`status = OPEN`: a second capture or release fails in the write, and the hold's returned item
says why (absent -> 404 hold_not_found, already settled -> 409 hold_settled).

Replies: placing answers the hold entry plus `holdId` and `holdStatus: "OPEN"`; capture and
release answer their entry (type capture / release, with `holdId`) plus the hold's new
`holdStatus` (CAPTURED / RELEASED).
"""

from __future__ import annotations

from boto3.dynamodb.conditions import Attr

from ddbguard.domain.projections import public_entry
from ddbguard.domain.views import EntryView, HoldOutcome
from ddbguard.errors import AlreadyExists, HoldSettled, NotFound
from ddbguard.guards import money, replays
from ddbguard.guards.money import BalanceChange, ExtraGuardFailed
from ddbguard.guards.ownership import is_visible, owned_by, visible_or_refuse
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store import keys, writes
from ddbguard.store.attribute_names import (
    ACCOUNT_ID,
    AMOUNT_CENTS,
    CREATED_AT,
    HOLD_ID,
    KIND,
    OWNER_SUB,
    PK,
    SETTLED_BY_REQUEST,
    STATUS,
    UPDATED_AT,
)
from ddbguard.store.ids import now_iso
from ddbguard.store.items import Entry, HoldItem

__all__ = ["CAPTURED", "OPEN", "RELEASED", "capture_hold", "place_hold", "release_hold"]

OPEN = "OPEN"
CAPTURED = "CAPTURED"
RELEASED = "RELEASED"


def _hold_not_found(hold_id: str) -> NotFound:
    return NotFound("hold_not_found", f"No hold {hold_id} on this ledger.")


def _reply(entry: Entry, outcome: HoldOutcome) -> EntryView:
    return {**public_entry(entry), **outcome}


def place_hold(account_id: str, caller_sub: str, amount_cents: int, identity: RequestIdentity) -> EntryView:
    """Move `amount_cents` from available to held, if available when the write lands."""
    hold_id = identity.derived_id("hold")
    now = now_iso()
    hold: HoldItem = {
        **keys.hold_key(account_id, hold_id),
        KIND: "hold",
        HOLD_ID: hold_id,
        ACCOUNT_ID: account_id,
        OWNER_SUB: caller_sub,
        AMOUNT_CENTS: amount_cents,
        STATUS: OPEN,
        CREATED_AT: now,
        UPDATED_AT: now,
        **replays.request_stamp(identity),
    }
    change = BalanceChange(
        account_id=account_id,
        entry_type="hold",
        amount_cents=amount_cents,
        cleared_delta=0,
        hold_delta=amount_cents,
        owner_sub=caller_sub,
        require_funds=True,
        details={HOLD_ID: hold_id},
    )
    try:
        moved = money.move_money(
            [change],
            request=identity,
            extra_actions=[writes.put(hold, Attr(PK).not_exists())],
            result=HoldOutcome(holdId=hold_id, holdStatus=OPEN),
        )
    except ExtraGuardFailed:
        # The hold id is derived from this request, and its marker (written with the hold) answers
        # every retry of it first; a hold already there is one this transaction cannot own.
        raise AlreadyExists(f"Hold {hold_id} already exists.") from None
    return _reply(moved.entries[0], moved.result)


def capture_hold(account_id: str, hold_id: str, caller_sub: str, identity: RequestIdentity) -> EntryView:
    """The held money leaves the account, once."""
    return _settle(account_id, hold_id, caller_sub, identity, CAPTURED)


def release_hold(account_id: str, hold_id: str, caller_sub: str, identity: RequestIdentity) -> EntryView:
    """The held money returns to available, once."""
    return _settle(account_id, hold_id, caller_sub, identity, RELEASED)


def _settle(account_id: str, hold_id: str, caller_sub: str, identity: RequestIdentity, outcome: str) -> EntryView:
    # The amount lives on the hold; reading it is not a guard (the write re-checks everything).
    hold_key = keys.hold_key(account_id, hold_id)
    stored, marker = replays.read_with_marker(hold_key, identity, HoldItem)
    if marker is not None:  # this request settled it before: its first answer, from that one read
        replayed: money.MovementResult[HoldOutcome] = money.replay(marker, identity)
        return _reply(replayed.entries[0], replayed.result)
    hold = visible_or_refuse(stored, caller_sub, lambda: _hold_not_found(hold_id))
    amount = int(hold[AMOUNT_CENTS])
    # A settled hold still goes through the write: a retry of the request that settled it is
    # recognised by its marker and answered with the first result, anything else is refused there.
    capture = outcome == CAPTURED
    change = BalanceChange(
        account_id=account_id,
        entry_type="capture" if capture else "release",
        amount_cents=amount,
        cleared_delta=-amount if capture else 0,
        hold_delta=-amount,
        owner_sub=caller_sub,
        details={HOLD_ID: hold_id},
    )
    settle = writes.update(
        hold_key,
        set_values={STATUS: outcome, UPDATED_AT: now_iso(), SETTLED_BY_REQUEST: identity.digest},
        condition=owned_by(caller_sub) & Attr(STATUS).eq(OPEN) & Attr(AMOUNT_CENTS).eq(amount),
    )
    try:
        moved = money.move_money(
            [change], request=identity, extra_actions=[settle], result=HoldOutcome(holdId=hold_id, holdStatus=outcome)
        )
    except ExtraGuardFailed as refused:
        if not is_visible(refused.item, caller_sub):
            raise _hold_not_found(hold_id) from None
        raise HoldSettled(hold_id, str((refused.item or {}).get(STATUS))) from None
    return _reply(moved.entries[0], moved.result)
