"""Settlement throughput of one hot ledger: how fast its entries settle beside how fast it takes movements.

A ledger's entries share its partition key, so they reach the stream on one shard, in order: however many
shards the table has, one ledger's settlement is one sequence. Deposits are sent to one ledger from many threads
with the settlement paused, in rounds of the ledger's bound of unsettled values, then the stream's settlement
(the same handler and event shape as the cloud's event source mapping, through `local.stream_settler`) is timed
settling each round.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ddbguard import limits
from local.api_client import ApiClient
from local.scenarios import fund_ledger
from local.stream_settler import StreamSettler


@dataclass(frozen=True)
class HotLedger:
    movements: int
    movements_per_s: float
    settled: int
    settlements_per_s: float
    pending_after: int


def _open_account(api: ApiClient, sub: str) -> str:
    tag = uuid.uuid4().hex[:12]
    reply = api.post("/accounts", {"email": f"hot.{tag}@example.com", "username": f"hot_{tag}"}, sub=sub)
    assert reply.status == 201, reply.json
    return str(reply.json["accountId"])


def hot_ledger(api: ApiClient, raw: Any, table: str, settler: StreamSettler, movements: int, workers: int) -> HotLedger:
    sub = f"hot-{uuid.uuid4().hex[:8]}"
    account_id = fund_ledger(api, sub, _open_account(api, sub))
    settler.drain()

    def deposit(index: int) -> int:
        reply = api.post(
            f"/accounts/{account_id}/ledger/deposits",
            {"amountCents": 1 + index % 100},
            sub=sub,
            idempotency_key=f"hot-{uuid.uuid4()}",
        )
        return reply.status

    # In rounds of as many movements as a ledger lets wait (its bound of unsettled values), each settled whole.
    accepted_s = settled_s = 0.0
    settled = 0
    for start in range(0, movements, limits.MAX_PENDING_ENTRIES):
        batch = range(start, min(start + limits.MAX_PENDING_ENTRIES, movements))
        began = time.perf_counter()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            statuses = list(pool.map(deposit, batch))
        accepted_s += time.perf_counter() - began
        assert statuses == [201] * len(batch), {s: statuses.count(s) for s in set(statuses)}
        began = time.perf_counter()
        settled += settler.drain()
        settled_s += time.perf_counter() - began
    balance = raw.get_item(
        TableName=table, Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "BALANCE"}}, ConsistentRead=True
    )["Item"]
    return HotLedger(
        movements=movements,
        movements_per_s=movements / accepted_s,
        settled=settled,
        settlements_per_s=settled / settled_s if settled_s else float("inf"),
        pending_after=len(balance["pending"]["M"]),
    )
