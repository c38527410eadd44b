"""Racing money movements through the real handlers on DynamoDB Local: the guards hold under load."""

from __future__ import annotations

import os
import random
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tests.support import settlement
from tests.support.ledger_invariants import assert_ledger_invariants, check_balance_values
from tests.support.ledger_seed import open_funded_ledger
from tests.support.table_reads import plain

# The bank test's operation count; the benchmark runs more with DDBGUARD_BANK_OPS.
BANK_OPS = int(os.environ.get("DDBGUARD_BANK_OPS", "2000"))
BANK_ACCOUNTS = 8
BANK_WORKERS = 16
INITIAL_CENTS = 10_000


@dataclass
class Flows:
    """Deposits and withdrawals started (sent) and committed (answered 201), in cents."""

    deposits_started: int = 0
    deposits_committed: int = 0
    withdrawals_started: int = 0
    withdrawals_committed: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def bounds(self) -> tuple[int, int]:
        with self.lock:
            return self.deposits_committed, self.withdrawals_committed

    def started(self) -> tuple[int, int]:
        with self.lock:
            return self.deposits_started, self.withdrawals_started


def _read_balances(raw_client, account_ids: list[str]) -> list[dict]:
    table = os.environ["TABLE_NAME"]
    items = [
        {"Get": {"TableName": table, "Key": {"PK": {"S": f"ACCT#{a}"}, "SK": {"S": "BALANCE"}}}} for a in account_ids
    ]
    while True:
        try:
            response = raw_client.transact_get_items(TransactItems=items)
        except raw_client.exceptions.TransactionCanceledException:
            continue  # a write in flight on one of the items: read again
        return [plain(r["Item"]) or {} for r in response["Responses"]]


def test_bank_total_is_conserved_under_random_concurrent_movements(api, raw_client, uid):
    owners = [f"alice-{uid}", f"bob-{uid}"]
    owner_of = {}
    for index in range(BANK_ACCOUNTS):
        sub = owners[index % 2]
        owner_of[open_funded_ledger(api, raw_client, sub, deposit=INITIAL_CENTS)] = sub
    accounts = list(owner_of)
    initial_total = INITIAL_CENTS * BANK_ACCOUNTS
    flows = Flows()
    stop = threading.Event()
    reads: list[int] = []
    read_failures: list[str] = []

    def reader() -> None:
        try:
            read_until_stopped()
        except Exception as error:  # a dead reader must fail the test, not go quiet
            read_failures.append(repr(error))

    def read_until_stopped() -> None:
        while not stop.is_set():
            committed_deposits, committed_withdrawals = flows.bounds()
            balances = _read_balances(raw_client, accounts)
            started_deposits, started_withdrawals = flows.started()
            total = sum(b["clearedCents"] for b in balances)
            try:
                for balance in balances:
                    check_balance_values(balance)
                assert sum(b["availableCents"] + b["holdCents"] for b in balances) == total
                low = initial_total + committed_deposits - started_withdrawals
                high = initial_total + started_deposits - committed_withdrawals
                assert low <= total <= high, (low, total, high)
            except AssertionError as failure:
                read_failures.append(repr(failure))
            reads.append(total)

    def operate(seed: int) -> list[tuple[str, int, str | None]]:
        rng = random.Random(seed)
        outcomes = []
        for _ in range(BANK_OPS // BANK_WORKERS + (1 if seed < BANK_OPS % BANK_WORKERS else 0)):
            kind = rng.choices(["transfer", "deposit", "withdrawal"], weights=[6, 2, 2])[0]
            account = rng.choice(accounts)
            amount = rng.randint(1, 3_000)
            key = str(uuid.uuid4())
            if kind == "transfer":
                target = rng.choice([a for a in accounts if a != account])
                body = {"fromAccountId": account, "toAccountId": target, "amountCents": amount}
                reply = api.post("/transfers", body, sub=owner_of[account], idempotency_key=key)
            else:
                route = "deposits" if kind == "deposit" else "withdrawals"
                with flows.lock:
                    if kind == "deposit":
                        flows.deposits_started += amount
                    else:
                        flows.withdrawals_started += amount
                reply = api.post(
                    f"/accounts/{account}/ledger/{route}",
                    {"amountCents": amount},
                    sub=owner_of[account],
                    idempotency_key=key,
                )
                if reply.status == 201:
                    with flows.lock:
                        if kind == "deposit":
                            flows.deposits_committed += amount
                        else:
                            flows.withdrawals_committed += amount
            outcomes.append((kind, reply.status, reply.code))
        return outcomes

    def settle_meanwhile() -> None:
        # As deployed (and under `make run`): the stream's settlement follows the movements, it does not wait.
        while not stop.wait(0.05):
            settlement.settle_all()

    reading = threading.Thread(target=reader, daemon=True)
    settling = threading.Thread(target=settle_meanwhile, daemon=True)
    began = time.monotonic()
    reading.start()
    settling.start()
    with ThreadPoolExecutor(max_workers=BANK_WORKERS) as pool:
        outcomes = [o for batch in pool.map(operate, range(BANK_WORKERS)) for o in batch]
    elapsed = time.monotonic() - began
    stop.set()
    reading.join(timeout=120)
    settling.join(timeout=60)

    assert len(outcomes) == BANK_OPS
    allowed = {("deposit", 201, None), ("withdrawal", 201, None), ("withdrawal", 409, "insufficient_funds")}
    allowed |= {("transfer", 201, None), ("transfer", 409, "insufficient_funds")}
    # A ledger whose settlement is behind by its bound refuses before writing anything (a loaded machine can
    # slow the local settlement that much); a refusal moves no money, so the totals below still hold.
    allowed |= {(kind, 503, "settlement_behind") for kind in ("deposit", "withdrawal", "transfer")}
    assert set(outcomes) <= allowed, set(outcomes) - allowed
    assert read_failures == []
    assert len(reads) >= 10
    snapshots = [assert_ledger_invariants(raw_client, a) for a in accounts]
    assert all(s.balance["pending"] == {} for s in snapshots)
    final_total = sum(s.cleared for s in snapshots)
    assert final_total == initial_total + flows.deposits_committed - flows.withdrawals_committed
    sent = sorted((e["transferId"], e["amountCents"]) for s in snapshots for e in s.entries_of("transfer_out"))
    received = sorted((e["transferId"], e["amountCents"]) for s in snapshots for e in s.entries_of("transfer_in"))
    assert sent == received and len(sent) == sum(1 for o in outcomes if o[:2] == ("transfer", 201))
    print(
        f"\nbank: {BANK_OPS} ops in {elapsed:.1f} s ({BANK_OPS / elapsed:.0f} ops/s), {len(reads)} consistent reads, "
        f"{len(sent)} transfers"
    )
