"""The ledger's invariants, checked by reading the table directly (never through ddbguard).

- `availableCents == clearedCents - holdCents >= 0` and `holdCents >= 0`;
- cleared equals the signed sum of its entries (deposit, transfer_in +; withdrawal, transfer_out,
  capture -; hold and release leave cleared alone);
- held equals the signed sum of hold entries (hold +; capture, release -) and the sum of OPEN holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.support import settlement
from tests.support.table_reads import raw_collection, raw_item

CLEARED_SIGN = {
    "deposit": 1,
    "transfer_in": 1,
    "withdrawal": -1,
    "transfer_out": -1,
    "capture": -1,
    "hold": 0,
    "release": 0,
}
HELD_SIGN = {"hold": 1, "capture": -1, "release": -1}


@dataclass
class LedgerSnapshot:
    balance: dict[str, Any] | None
    entries: list[dict[str, Any]] = field(default_factory=list)
    holds: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cleared(self) -> int:
        return self.balance["clearedCents"]

    @property
    def held(self) -> int:
        return self.balance["holdCents"]

    @property
    def available(self) -> int:
        return self.balance["availableCents"]

    @property
    def version(self) -> int:
        return self.balance["version"]

    def entries_of(self, entry_type: str) -> list[dict[str, Any]]:
        return [e for e in self.entries if e["type"] == entry_type]


def read_ledger(raw_client, account_id: str) -> LedgerSnapshot:
    partition = f"ACCT#{account_id}"
    balance = raw_item(raw_client, {"PK": partition, "SK": "BALANCE"})
    return LedgerSnapshot(
        balance, raw_collection(raw_client, partition, "TXN#"), raw_collection(raw_client, partition, "HOLD#")
    )


def check_balance_values(balance: dict[str, Any]) -> None:
    """The invariant any single reading of a balance item must satisfy."""
    cleared, held, available = balance["clearedCents"], balance["holdCents"], balance["availableCents"]
    assert held >= 0, balance
    assert available == cleared - held, balance
    assert available >= 0, balance
    assert cleared >= 0, balance


def assert_ledger_invariants(raw_client, account_id: str) -> LedgerSnapshot:
    """Check every invariant of one ledger at rest (the stream's settlement run first); returns what was read."""
    settlement.settle_all()
    snapshot = read_ledger(raw_client, account_id)
    assert snapshot.balance is not None, f"no balance item for {account_id}"
    check_balance_values(snapshot.balance)
    assert snapshot.cleared == sum(CLEARED_SIGN[e["type"]] * e["amountCents"] for e in snapshot.entries), snapshot
    assert snapshot.held == sum(HELD_SIGN.get(e["type"], 0) * e["amountCents"] for e in snapshot.entries), snapshot
    assert snapshot.held == sum(h["amountCents"] for h in snapshot.holds if h["status"] == "OPEN"), snapshot
    assert all(e["accountId"] == account_id and e["amountCents"] > 0 for e in snapshot.entries), snapshot
    assert all(e.get("availableCentsAfter") is not None for e in snapshot.entries), "an entry left unsettled"
    assert snapshot.balance.get("pending") in ({}, None), "settled values left in pending"
    return snapshot


def balance_of(snapshot: LedgerSnapshot) -> tuple[int, int, int]:
    """(cleared, held, available) of a snapshot."""
    return snapshot.cleared, snapshot.held, snapshot.available
