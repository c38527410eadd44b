"""Transfers: money leaves one ledger and arrives in another in one transaction, or not at all.

The source side is guarded by owner and funds, the destination by existence (anyone's open
ledger may receive), by its account not closing (a ConditionCheck on the account, 409
account_closing) and by the incoming part of its unsettled bound (503 settlement_behind naming
toAccountId: the rest of the bound is the owner's, so no stranger can lock an owner out). Both
balance updates, both entries (`transfer_out`, `transfer_in`, each naming its counterparty and
the transfer), the check and the request marker are one `money.move_money` transaction; a
refusal names its side in `errors[0].field` from the cancellation reason's position. A closing
recipient is told first, whatever else is wrong.

Reply: the caller's `transfer_out` entry plus `transferId`, `fromAccountId` and `toAccountId`.
The receiving side's entry is not shown: its `availableCentsAfter` is the recipient's business.
"""

from __future__ import annotations

from boto3.dynamodb.conditions import Attr

from ddbguard.domain.projections import public_entry
from ddbguard.domain.views import EntryView, TransferOutcome
from ddbguard.errors import AccountClosing, FieldError, InvalidInput
from ddbguard.guards import money
from ddbguard.guards.money import BalanceChange
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store import keys, writes
from ddbguard.store.attribute_names import ACCOUNT_ID, CLOSING, COUNTERPARTY_ACCOUNT_ID, TRANSFER_ID

__all__ = ["FROM_FIELD", "TO_FIELD", "create_transfer"]

FROM_FIELD = "fromAccountId"
TO_FIELD = "toAccountId"


def create_transfer(
    from_account_id: str, to_account_id: str, amount_cents: int, caller_sub: str, identity: RequestIdentity
) -> EntryView:
    if from_account_id == to_account_id:
        message = "A transfer needs two different accounts."
        raise InvalidInput(message, errors=[FieldError(TO_FIELD, "same_account", message)])
    transfer_id = identity.derived_id("transfer")
    outgoing = BalanceChange(
        account_id=from_account_id,
        entry_type="transfer_out",
        amount_cents=amount_cents,
        cleared_delta=-amount_cents,
        owner_sub=caller_sub,
        require_funds=True,
        side_field=FROM_FIELD,
        details={TRANSFER_ID: transfer_id, COUNTERPARTY_ACCOUNT_ID: to_account_id},
    )
    incoming = BalanceChange(
        account_id=to_account_id,
        entry_type="transfer_in",
        amount_cents=amount_cents,
        cleared_delta=amount_cents,
        side_field=TO_FIELD,
        details={TRANSFER_ID: transfer_id, COUNTERPARTY_ACCOUNT_ID: from_account_id},
        incoming=True,
    )
    # The recipient's account is not closing (an absent one passes: its absent ledger answers for it).
    recipient_open = writes.condition_check(
        keys.account_key(to_account_id), Attr(CLOSING).not_exists() | Attr(CLOSING).eq(False)
    )
    try:
        moved = money.move_money(
            [outgoing, incoming],
            request=identity,
            extra_actions=[recipient_open],
            result=TransferOutcome(transferId=transfer_id, fromAccountId=from_account_id, toAccountId=to_account_id),
        )
    except money.ExtraGuardFailed:
        raise AccountClosing(to_account_id, TO_FIELD) from None
    sent = next(e for e in moved.entries if e[ACCOUNT_ID] == from_account_id)
    return {**public_entry(sent), **moved.result}
