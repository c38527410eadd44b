"""Cost against size: what the background jobs and a movement cost as the table and a ledger's backlog grow.

Counted from what the code sends to DynamoDB, not timed: read units from the `ConsumedCapacity` DynamoDB Local
returns for each Query and Scan (`ReturnConsumedCapacity=TOTAL` added by a botocore hook on ddbguard's own client),
with DynamoDB's minimum of half a unit per eventually consistent request applied on top (DynamoDB Local reports 0
for a request that reads nothing); write units by DynamoDB's item-size rules from the items a movement wrote
(bench/capacity.py). Tables of 10,000 and 100,000 items are seeded for real; what changes at 1,000,000 follows
from which requests depend on the table's size (the Scan) and which do not (the index Query).
"""

from __future__ import annotations

import os
import statistics
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bench.capacity import WriteUnits, item_size
from bench.counter import counting
from local.api_client import ApiClient
from local.table import UNSETTLED_INDEX_ATTRIBUTES, UNSETTLED_INDEX_SPEC

_HOOK = "bench-growth-capacity"
# The minimum DynamoDB bills an eventually consistent read request, whatever it returns.
MIN_EVENTUAL_READ = 0.5
WAITING_BALANCES = 10


@dataclass
class ReadUnits:
    requests: int = 0
    reported: float = 0.0  # as DynamoDB Local returned them
    billed: float = 0.0  # with the per-request minimum
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


@contextmanager
def read_units(client: Any, operations: tuple[str, ...] = ("Query", "Scan")) -> Iterator[ReadUnits]:
    """Read units of every `operations` call `client` makes inside the block."""
    units = ReadUnits()

    def ask(params: dict[str, Any], **_: object) -> None:
        params["ReturnConsumedCapacity"] = "TOTAL"

    def add(parsed: dict[str, Any], **_: object) -> None:
        consumed = float((parsed.get("ConsumedCapacity") or {}).get("CapacityUnits", 0.0))
        with units._lock:
            units.requests += 1
            units.reported += consumed
            units.billed += max(MIN_EVENTUAL_READ, consumed)

    events = client.meta.events
    for operation in operations:
        events.register(f"provide-client-params.dynamodb.{operation}", ask, unique_id=f"{_HOOK}-ask-{operation}")
        events.register(f"after-call.dynamodb.{operation}", add, unique_id=f"{_HOOK}-add-{operation}")
    try:
        yield units
    finally:
        for operation in operations:
            events.unregister(f"provide-client-params.dynamodb.{operation}", unique_id=f"{_HOOK}-ask-{operation}")
            events.unregister(f"after-call.dynamodb.{operation}", unique_id=f"{_HOOK}-add-{operation}")


# --- tables of a given size -------------------------------------------------------------------------------------


def sized_table(raw: Any, table: str) -> None:
    """The table's keys and the unsettled-balances index, without a stream (DynamoDB Local slows down badly seeding
    100,000 items into a streamed table; nothing here reads the stream)."""
    raw.create_table(
        TableName=table,
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            *UNSETTLED_INDEX_ATTRIBUTES,
        ],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[UNSETTLED_INDEX_SPEC],
        BillingMode="PAY_PER_REQUEST",
    )


def seed(raw: Any, table: str, templates: list[dict[str, Any]], count: int, threads: int = 8) -> None:
    """`count` items cloned from the real ones in `templates` (round robin), each under a new partition key."""

    def write(start: int) -> None:
        items = []
        for index in range(start, min(start + 250, count)):
            template = templates[index % len(templates)]
            items.append({**template, "PK": {"S": f"{template['PK']['S']}-{index:07d}"}})
        for i in range(0, len(items), 25):
            pending = {table: [{"PutRequest": {"Item": item}} for item in items[i : i + 25]]}
            while pending:
                pending = raw.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(write, range(0, count, 250)))


@contextmanager
def using_table(table: str) -> Iterator[None]:
    """ddbguard's code reads TABLE_NAME at call time: point it at `table` for the block."""
    before = os.environ["TABLE_NAME"]
    os.environ["TABLE_NAME"] = table
    try:
        yield
    finally:
        os.environ["TABLE_NAME"] = before


# --- bytes each thing keeps ------------------------------------------------------------------------------------

# DynamoDB bills storage per item as its attribute names and values plus 100 bytes of index overhead.
ITEM_OVERHEAD = 100


@dataclass(frozen=True)
class StoredBytes:
    what: str
    items: list[str]  # item kinds, by key prefix
    raw_bytes: int
    billed_bytes: int  # with the per-item overhead


def stored_bytes(what: str, items: list[dict[str, Any]]) -> StoredBytes:
    kinds = sorted(f"{item['PK']['S'].split('#', 1)[0]}#/{item['SK']['S'].split('#', 1)[0]}" for item in items)
    raw = sum(item_size(item) for item in items)
    return StoredBytes(what, kinds, raw, raw + ITEM_OVERHEAD * len(items))


# --- the sweeper ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepCost:
    items: int
    waiting: int
    index_requests: int
    index_units: float
    scan_requests: int
    scan_units: float


def sweeper_cost(ddb: Any, raw: Any, table: str, items: int) -> SweepCost:
    """What one sweep reads (its index Query, all it does until a balance is old enough to settle), beside what
    the former sweeper's filtered, consistent Scan of the whole table read, on a table of `items` items."""
    from boto3.dynamodb.conditions import Attr

    from ddbguard.domain import settlement_sweep
    from ddbguard.store import reads

    with using_table(table):
        with read_units(ddb) as index:
            waiting = sum(1 for _ in settlement_sweep.unsettled_balances())
        with read_units(ddb) as scan:
            unsettled = Attr("SK").eq("BALANCE") & Attr("pending").size().gt(0)
            scanned = sum(len(page) for page in reads.scan_pages(unsettled))
    assert scanned == waiting, (scanned, waiting)
    return SweepCost(items, waiting, index.requests, index.billed, scan.requests, scan.billed)


# --- a movement against the backlog ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BacklogCost:
    pending: int
    balance_bytes: int
    write_units: float
    status: int


def movement_costs(
    api: ApiClient, ddb: Any, raw: Any, table: str, bound: int, opened: Callable[[str], str]
) -> tuple[list[BacklogCost], float]:
    """One ledger's deposits with its settlement stalled, from an empty `pending` to the bound and one past it:
    the write units of each (rows at a few backlogs), and the accepted rate near the bound over an idle ledger's
    in the same moments (movements interleaved with a twin ledger that is settled after each one)."""
    from ddbguard.guards.settlement import settle_balance

    sub = f"growth-{uuid.uuid4().hex[:8]}"
    growing, twin = opened(sub), opened(sub)
    units = WriteUnits(raw)
    shown = {0, bound // 4, bound // 2, bound - 1, bound}
    rows: list[BacklogCost] = []
    growing_s: list[float] = []
    twin_s: list[float] = []

    def deposit(account_id: str) -> tuple[Any, float, Any]:
        with counting(ddb) as tally:
            began = time.perf_counter()
            reply = api.post(
                f"/accounts/{account_id}/ledger/deposits",
                {"amountCents": 100_000_000_000},
                sub=sub,
                idempotency_key=str(uuid.uuid4()),
            )
            return reply, time.perf_counter() - began, tally

    for pending in range(bound + 1):
        balance = raw.get_item(
            TableName=table, Key={"PK": {"S": f"ACCT#{growing}"}, "SK": {"S": "BALANCE"}}, ConsistentRead=True
        )["Item"]
        reply, seconds, tally = deposit(growing)
        if pending in shown:
            rows.append(BacklogCost(pending, item_size(balance), units.of(tally), reply.status))
        twin_reply, twin_seconds, _ = deposit(twin)
        assert twin_reply.status == 201, twin_reply.json
        settle_balance(twin)  # the twin never waits
        if pending >= bound - bound // 4 and pending < bound:  # the last quarter before the bound
            growing_s.append(seconds)
            twin_s.append(twin_seconds)
    rate_ratio = statistics.median(twin_s) / statistics.median(growing_s)
    return rows, rate_ratio


# --- the audit per segment ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditCost:
    items: int
    segments: int
    steps: int
    pages_per_segment: float
    units_per_segment: float
    covered: bool


def audit_cost(ddb: Any, table: str, items: int, segments: int) -> AuditCost:
    from local import audit_run

    with using_table(table), read_units(ddb, ("Scan",)) as scan:
        run = audit_run.run_audit(segments)
    pages = sum(int(result.get("pages", 0)) for segment in run.segments for result in segment.results)
    return AuditCost(
        items,
        segments,
        sum(segment.steps for segment in run.segments),
        pages / segments,
        scan.billed / segments,
        bool(run.summary["wholeTableCovered"]),
    )
