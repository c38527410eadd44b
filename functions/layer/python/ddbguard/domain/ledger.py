"""A ledger per account: open it, deposit, withdraw. Every guard lives in the write itself.

Opening is one transaction: a ConditionCheck that the account exists and is the caller's, and a
versioned create of the balance item. Deposits and withdrawals are money movements
(`ddbguard.guards.money`): the balance update is conditioned on the ledger existing, being the
caller's and (for a withdrawal) holding the funds, and a refusal is explained from the item the
failed write returned. Holds live in `ddbguard.domain.holds`, the statement in `ddbguard.domain.statements`.
"""

from __future__ import annotations

from ddbguard.domain.projections import public_balance, public_entry
from ddbguard.domain.views import BalanceView, EntryView
from ddbguard.errors import AlreadyExists, NotFound
from ddbguard.guards import money, replays, versioning
from ddbguard.guards.money import BalanceChange
from ddbguard.guards.ownership import owned_by
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store import keys, writes
from ddbguard.store.attribute_names import (
    ACCOUNT_ID,
    AVAILABLE_CENTS,
    CLEARED_CENTS,
    CREATED_AT,
    HOLD_CENTS,
    KIND,
    OWNER_SUB,
    PENDING,
    UPDATED_AT,
    VERSION,
)
from ddbguard.store.ids import now_iso
from ddbguard.store.items import BalanceItem
from ddbguard.store.plan import PlanCancelled, TransactionPlan

__all__ = ["deposit", "new_balance_item", "open_ledger", "withdraw"]


def new_balance_item(account_id: str, owner_sub: str, now: str) -> BalanceItem:
    """A freshly opened ledger's balance item, at the version a versioned create writes."""
    return {
        **keys.balance_key(account_id),
        KIND: "balance",
        ACCOUNT_ID: account_id,
        OWNER_SUB: owner_sub,
        CLEARED_CENTS: 0,
        HOLD_CENTS: 0,
        AVAILABLE_CENTS: 0,
        PENDING: {},
        VERSION: versioning.FIRST_VERSION,
        CREATED_AT: now,
        UPDATED_AT: now,
    }


def open_ledger(account_id: str, caller_sub: str, identity: RequestIdentity | None = None) -> BalanceView:
    """Create the account's balance item at version 0; returns the public balance.

    404 account_not_found when the account is absent or not the caller's (decided by the
    ConditionCheck inside the transaction), 409 already_exists when the ledger is open.
    """
    item: BalanceItem = {**new_balance_item(account_id, caller_sub, now_iso()), **replays.request_stamp(identity)}
    plan = (
        TransactionPlan()
        .add("account", writes.condition_check(keys.account_key(account_id), owned_by(caller_sub)))
        .add("balance", versioning.create_action(item))
    )
    try:
        _, reply = replays.commit_once(plan, identity, public_balance(item))
    except PlanCancelled as cancelled:
        if cancelled.failed("account"):
            raise NotFound("account_not_found", f"No account {account_id}.") from None
        if cancelled.failed("balance"):
            raise AlreadyExists(f"The ledger of account {account_id} is already open.") from None
        raise
    return reply


def deposit(account_id: str, caller_sub: str, amount_cents: int, identity: RequestIdentity) -> EntryView:
    """Add money to the caller's ledger; returns the new entry."""
    change = BalanceChange(
        account_id=account_id,
        entry_type="deposit",
        amount_cents=amount_cents,
        cleared_delta=amount_cents,
        owner_sub=caller_sub,
    )
    return public_entry(money.move_money([change], request=identity, result=None).entries[0])


def withdraw(account_id: str, caller_sub: str, amount_cents: int, identity: RequestIdentity) -> EntryView:
    """Take money out, only if `availableCents >= amount` when the write lands; returns the new entry."""
    change = BalanceChange(
        account_id=account_id,
        entry_type="withdrawal",
        amount_cents=amount_cents,
        cleared_delta=-amount_cents,
        owner_sub=caller_sub,
        require_funds=True,
    )
    return public_entry(money.move_money([change], request=identity, result=None).entries[0])
