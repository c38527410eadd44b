"""A ledger per account: open it, deposit, withdraw. Every guard lives in the write itself.

Opening is one transaction: a ConditionCheck that the account exists and is the caller's, and a
versioned create of the balance item. Deposits and withdrawals are money movements
(`ddbguard.movements`): the balance update is conditioned on the ledger existing, being the
caller's and (for a withdrawal) holding the funds, and a refusal is explained from the item the
failed write returned. Holds live in `ddbguard.holds`, the statement in `ddbguard.statements`.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import Attr

from ddbguard import keys, movements, replays, transactions, versioning
from ddbguard.errors import AlreadyExists, NotFound
from ddbguard.ids import now_iso
from ddbguard.movements import BalanceChange
from ddbguard.request_identity import RequestIdentity
from ddbguard.schema import PARTITION_KEY

CREATED_BY_REQUEST = "createdByRequest"
_ACCOUNT_CHECK, _BALANCE_CREATE = 0, 1


def ledger_location(account_id: str) -> str:
    return f"/accounts/{account_id}/ledger"


def public_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as clients see it (no keys)."""
    return {k: v for k, v in entry.items() if k not in ("PK", "SK")}


def open_ledger(account_id: str, caller_sub: str, identity: RequestIdentity | None = None) -> dict[str, Any]:
    """Create the account's balance item at version 0; returns the public balance.

    404 account_not_found when the account is absent or not the caller's (decided by the
    ConditionCheck inside the transaction), 409 already_exists when the ledger is open.
    """
    item = movements.new_balance_item(account_id, caller_sub, now_iso())
    if identity is not None:
        item[CREATED_BY_REQUEST] = identity.digest
    actions = [
        transactions.condition_check(
            keys.account_key(account_id), Attr(PARTITION_KEY).exists() & Attr(movements.OWNER).eq(caller_sub)
        ),
        versioning.create_action(item),
    ]
    try:
        transactions.transact_write(actions, token=identity.transaction_token if identity else None)
    except transactions.TransactionCancelled as cancelled:
        if cancelled.failed(_ACCOUNT_CHECK):
            raise NotFound("account_not_found", f"No account {account_id}.") from None
        if cancelled.failed(_BALANCE_CREATE):
            existing = cancelled.item(_BALANCE_CREATE) or {}
            if identity is not None and existing.get(CREATED_BY_REQUEST) == identity.digest:
                replays.mark_replayed()
                return movements.public_balance(existing)  # a retry of the request that opened it
            raise AlreadyExists(f"The ledger of account {account_id} is already open.") from None
        raise
    return movements.public_balance({**item, versioning.VERSION: 0})


def deposit(account_id: str, caller_sub: str, amount_cents: int, identity: RequestIdentity) -> dict[str, Any]:
    """Add money to the caller's ledger; returns the new entry."""
    change = BalanceChange(account_id, "deposit", amount_cents, cleared_delta=amount_cents, owner_sub=caller_sub)
    return public_entry(movements.move_money([change], request=identity).entries[0])


def withdraw(account_id: str, caller_sub: str, amount_cents: int, identity: RequestIdentity) -> dict[str, Any]:
    """Take money out, only if `availableCents >= amount` when the write lands; returns the new entry."""
    change = BalanceChange(
        account_id,
        "withdrawal",
        amount_cents,
        cleared_delta=-amount_cents,
        owner_sub=caller_sub,
        require_funds=True,
    )
    return public_entry(movements.move_money([change], request=identity).entries[0])
