"""Ledgers: one per account, money that never goes negative, holds settled once, transfers all or nothing.

- `availableCents = clearedCents - holdCents >= 0` at every moment; a movement that would break it is refused
  (409 `insufficient_funds`, with what was available and what was asked).
- Only the owner moves money out of or within a ledger; anyone may transfer into an open one, unless its account
  is closing (409 `account_closing`, said to the sender).
- Every movement waits for the settlement until it has run. A ledger holds at most `bound` waiting movements
  (`Bounds.unsettled`; then 503 `settlement_behind`, nothing written); incoming transfers may take only
  `Bounds.incoming` of them, so the rest is always the owner's.
- A hold moves money from available to held; capturing takes it out, releasing gives it back, once
  (409 `hold_settled` after).
- Money movements need an Idempotency-Key (400 without), kept for good.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.model.keys import keyed
from tests.model.world import Answer, Hold, KeyScope, Ledger, World, refused

FROM_FIELD, TO_FIELD = "fromAccountId", "toAccountId"


@dataclass(frozen=True)
class Bounds:
    """How many movements a ledger's balance may carry unsettled, and how many of them incoming transfers may."""

    unsettled: int
    incoming: int


def _ledger_not_found(*side: str) -> Answer:
    return refused(404, "ledger_not_found", *side)


def open_ledger(world: World, caller: str, account_id: str, *, scope: KeyScope | None, request: Any) -> Answer:
    def decide() -> Answer:
        if world.account_of(caller, account_id) is None:
            return refused(404, "account_not_found")
        if account_id in world.ledgers:
            return refused(409, "already_exists")
        world.ledgers[account_id] = Ledger(caller)
        return Answer(201, fields={"accountId": account_id, **world.ledgers[account_id].public()})

    return keyed(world, scope, request, decide)


def statement(world: World, caller: str, account_id: str) -> Answer:
    ledger = world.ledger_of(caller, account_id)
    if ledger is None:
        return _ledger_not_found()
    return Answer(200, fields=ledger.public())


def apply_movement(world: World, account_id: str, cleared: int, held: int) -> Ledger:
    ledger = world.ledgers[account_id]
    ledger.cleared += cleared
    ledger.held += held
    ledger.version += 1
    if world.settlement_paused:
        ledger.unsettled += 1
    world.entries[account_id] += 1
    return ledger


def side_refusal(
    ledger: Ledger | None, amount: int, bound: int, *, needs_funds: bool, side: tuple[str, ...] = ()
) -> Answer | None:
    """Why one side of a movement is refused, in the order the guard explains it; None: it may go."""
    if ledger is None:
        return _ledger_not_found(*side)
    if needs_funds and ledger.available < amount:
        return refused(409, "insufficient_funds", *side, availableCents=ledger.available, requestedCents=amount)
    if ledger.unsettled >= bound:
        return refused(503, "settlement_behind", *side)
    return None


# kind -> (cleared change, held change) per cent, and whether the available money must cover it.
MOVES = {"deposit": (1, 0, False), "withdrawal": (-1, 0, True), "hold": (0, 1, True)}


def move(
    world: World,
    bounds: Bounds,
    caller: str,
    account_id: str,
    kind: str,
    amount: int,
    *,
    scope: KeyScope,
    request: Any,
    assigned_hold: str | None = None,
) -> Answer:
    cleared, held, needs_funds = MOVES[kind]

    def decide() -> Answer:
        ledger = world.ledger_of(caller, account_id)
        refusal = side_refusal(ledger, amount, bounds.unsettled, needs_funds=needs_funds)
        if refusal is not None:
            return refusal
        if kind == "hold" and assigned_hold is None:
            return Answer(201, fields={"holdStatus": "OPEN"})  # the API placed no hold: the comparison says so
        ledger = apply_movement(world, account_id, cleared * amount, held * amount)
        fields: dict[str, Any] = {"type": kind, "amountCents": amount, "availableCentsAfter": ledger.available}
        if assigned_hold is not None:
            assert assigned_hold not in world.holds, f"hold id {assigned_hold} names two holds"
            world.holds[assigned_hold] = Hold(account_id, caller, amount)
            fields.update(holdId=assigned_hold, holdStatus="OPEN")
        return Answer(201, fields=fields)

    return keyed(world, scope, request, decide, kept_for_good=True)


def settle_hold(
    world: World,
    bounds: Bounds,
    caller: str,
    account_id: str,
    hold_id: str,
    outcome: str,
    *,
    scope: KeyScope,
    request: Any,
) -> Answer:
    """`outcome`: CAPTURED (the held money leaves) or RELEASED (it returns to available)."""

    def decide() -> Answer:
        hold = world.holds.get(hold_id)
        if hold is None or hold.owner != caller or hold.account_id != account_id:
            return refused(404, "hold_not_found")
        if hold.status != "OPEN":
            return refused(409, "hold_settled", holdStatus=hold.status)
        refusal = side_refusal(world.ledger_of(caller, account_id), hold.amount, bounds.unsettled, needs_funds=False)
        if refusal is not None:
            return refusal
        captured = outcome == "CAPTURED"
        ledger = apply_movement(world, account_id, -hold.amount if captured else 0, -hold.amount)
        hold.status = outcome
        entry_type = "capture" if captured else "release"
        fields = {"type": entry_type, "holdId": hold_id, "holdStatus": outcome, "availableCentsAfter": ledger.available}
        return Answer(200, fields=fields)

    return keyed(world, scope, request, decide, kept_for_good=True)


def transfer(
    world: World,
    bounds: Bounds,
    caller: str,
    from_id: str,
    to_id: str,
    amount: int,
    *,
    scope: KeyScope,
    request: Any,
) -> Answer:
    if from_id == to_id:
        return refused(422, "validation_failed", TO_FIELD)

    def decide() -> Answer:
        recipient = world.accounts.get(to_id)
        if recipient is not None and recipient.closing:
            return refused(409, "account_closing", TO_FIELD)
        sender = world.ledger_of(caller, from_id)
        refusal = side_refusal(sender, amount, bounds.unsettled, needs_funds=True, side=(FROM_FIELD,))
        if refusal is None:
            recipient_ledger = world.ledger_of(None, to_id)
            refusal = side_refusal(recipient_ledger, amount, bounds.incoming, needs_funds=False, side=(TO_FIELD,))
        if refusal is not None:
            return refusal
        sent = apply_movement(world, from_id, -amount, 0)
        apply_movement(world, to_id, amount, 0)
        fields = {
            "type": "transfer_out",
            "amountCents": amount,
            FROM_FIELD: from_id,
            TO_FIELD: to_id,
            "availableCentsAfter": sent.available,
        }
        return Answer(201, fields=fields)

    return keyed(world, scope, request, decide, kept_for_good=True)
