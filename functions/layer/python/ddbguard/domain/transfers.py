"""Transfers: money leaves one ledger and arrives in another in one transaction, or not at all.

The source side is guarded by owner and funds, the destination only by existence (anyone's
open ledger may receive). Both balance updates, both entries (`transfer_out`, `transfer_in`,
each naming its counterparty and the transfer) and the request marker are one
`money.move_money` transaction; a refusal names its side in `errors[0].field` from the
cancellation reason's position.

Reply: the caller's `transfer_out` entry plus `transferId`, `fromAccountId` and `toAccountId`.
The receiving side's entry is not shown: its `availableCentsAfter` is the recipient's business.
"""

from __future__ import annotations

from ddbguard.domain.projections import public_entry
from ddbguard.domain.views import EntryView, TransferOutcome
from ddbguard.errors import FieldError, InvalidInput
from ddbguard.guards import money
from ddbguard.guards.money import BalanceChange
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store.schema import ACCOUNT_ID, COUNTERPARTY_ACCOUNT_ID, TRANSFER_ID

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
        from_account_id,
        "transfer_out",
        amount_cents,
        cleared_delta=-amount_cents,
        owner_sub=caller_sub,
        require_funds=True,
        side_field=FROM_FIELD,
        details={TRANSFER_ID: transfer_id, COUNTERPARTY_ACCOUNT_ID: to_account_id},
    )
    incoming = BalanceChange(
        to_account_id,
        "transfer_in",
        amount_cents,
        cleared_delta=amount_cents,
        side_field=TO_FIELD,
        details={TRANSFER_ID: transfer_id, COUNTERPARTY_ACCOUNT_ID: from_account_id},
    )
    moved = money.move_money(
        [outgoing, incoming],
        request=identity,
        result=TransferOutcome(transferId=transfer_id, fromAccountId=from_account_id, toAccountId=to_account_id),
    )
    sent = next(e for e in moved.entries if e[ACCOUNT_ID] == from_account_id)
    return {**public_entry(sent), **moved.result}
