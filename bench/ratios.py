"""Section 3: handler vs bare boto3, HTTP throughput, the lock audit at 100,000 items (cold init: bench/cold.py).

Handler vs bare: each handler invocation's DynamoDB calls are recorded as sent (botocore
`provide-client-params` on ddbguard's client) and replayed, right after, by a plain boto3 client
against a copy of the table that went through the same writes, so the bare side makes exactly the
same calls with the same outcomes (a refusal stays a refusal). Only `handler(event, context)` is
timed: the event is built before the clock starts.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from local.paths import ROOT

# Both sides start from an idle DynamoDB Local: timed right after the other, a call would pay for the work
# Local still does for the previous one.
IDLE_S = 0.01
BARE_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2, read_timeout=5, max_pool_connections=64
)


def bare_client(endpoint: str) -> Any:
    return boto3.session.Session().client("dynamodb", endpoint_url=endpoint, config=BARE_CONFIG)


@contextmanager
def recording(client: Any) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    calls: list[tuple[str, dict[str, Any]]] = []

    def remember(params: dict[str, Any], model: Any, **_: object) -> None:
        calls.append((model.name, copy.deepcopy(params)))

    client.meta.events.register("provide-client-params.dynamodb.*", remember, unique_id="bench-recorder")
    try:
        yield calls
    finally:
        client.meta.events.unregister("provide-client-params.dynamodb.*", unique_id="bench-recorder")


def _retarget(params: dict[str, Any], table: str) -> dict[str, Any]:
    params = copy.deepcopy(params)
    if "TableName" in params:
        params["TableName"] = table
    for action in params.get("TransactItems", []):
        for body in action.values():
            body["TableName"] = table
    if "RequestItems" in params:
        (body,) = params["RequestItems"].values()  # ddbguard's batches name one table
        params["RequestItems"] = {table: body}
    return params


def _snake(operation: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()


def replay(client: Any, calls: list[tuple[str, dict[str, Any]]], table: str) -> None:
    for operation, params in calls:
        try:
            getattr(client, _snake(operation))(**_retarget(params, table))
        except ClientError as error:  # a refusal replays as a refusal
            if error.response["Error"]["Code"] not in {
                "ConditionalCheckFailedException",
                "TransactionCanceledException",
            }:
                raise


def copy_table(client: Any, source: str, target: str) -> int:
    """Every item of `source` into `target` (Scan + BatchWriteItem)."""
    count, start = 0, dict[str, Any]()
    while True:
        page = client.scan(TableName=source, ConsistentRead=True, **start)
        for i in range(0, len(page["Items"]), 25):
            batch = [{"PutRequest": {"Item": item}} for item in page["Items"][i : i + 25]]
            pending = {target: batch}
            while pending:
                pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        count += len(page["Items"])
        if "LastEvaluatedKey" not in page:
            return count
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


@dataclass
class RatioRow:
    name: str
    samples: int
    handler_p50: float
    bare_p50: float
    target: float
    calls: str

    @property
    def ratio(self) -> float:
        return self.handler_p50 / self.bare_p50

    @property
    def verdict(self) -> str:
        return "ok" if self.ratio <= self.target else f"MISSED (target <= {self.target:.2f}x)"


class HandlerBench:
    """Times prepared invocations of the real handlers and their bare replays, interleaved."""

    def __init__(
        self, ddb_client: Any, raw: Any, bare: Any, table: str, bare_table: str, settle_calls: Callable[[], list]
    ) -> None:
        self.client, self.raw, self.bare, self.table, self.bare_table = ddb_client, raw, bare, table, bare_table
        self.settle_calls = settle_calls  # settles the stream; returns the settlement's calls, replayed untimed

    def event(
        self, method: str, path: str, sub: str, body: Any = None, key: str | None = None, if_match: int | None = None
    ):
        from local.apigw_events import build_event
        from local.lambda_context import LambdaContext
        from local.server import find_route
        from local.tokens import claims_from_authorization, make_token

        route, parameters, _ = find_route(method, path)
        headers = [("Authorization", f"Bearer {make_token(sub, None)}")]
        data = json.dumps(body).encode() if body is not None else b""
        if data:
            headers.append(("Content-Type", "application/json"))
        if key:
            headers.append(("Idempotency-Key", key))
        if if_match is not None:
            headers.append(("If-Match", f'"{if_match}"'))
        event = build_event(
            method=method,
            resource=route.path,
            raw_path=path,
            headers=headers,
            body=data,
            path_parameters=parameters,
            claims=claims_from_authorization(headers[0][1]),
        )
        # One invocation at a time here: the handler module itself is its one execution environment.
        handler = importlib.import_module(route.handler).handler
        return handler, event, LambdaContext(function_name=f"ddbguard-{route.operation}")

    def measure(
        self, name: str, make: Callable[[int], tuple], n: int, target: float, after: Callable | None = None
    ) -> RatioRow:
        copy_table(self.raw, self.table, self.bare_table)
        handler_ms, bare_ms, sequence = [], [], ""
        warmup = 5
        for i in range(warmup + n):
            handler, event, context = make(i)
            time.sleep(IDLE_S)
            with recording(self.client) as calls:
                start = time.perf_counter()
                response = handler(event, context)
                handler_elapsed = time.perf_counter() - start
            time.sleep(IDLE_S)
            start = time.perf_counter()
            replay(self.bare, calls, self.bare_table)
            bare_elapsed = time.perf_counter() - start
            if after:
                after(response)
            if i >= warmup:
                handler_ms.append(handler_elapsed * 1000)
                bare_ms.append(bare_elapsed * 1000)
                sequence = " + ".join(op for op, _ in calls)
            if i % 10 == 9:
                replay(self.raw, self.settle_calls(), self.bare_table)
        return RatioRow(name, n, statistics.median(handler_ms), statistics.median(bare_ms), target, sequence)


# --- HTTP throughput ---------------------------------------------------------------------------


def start_server(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.http_server"], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    return process, url


def throughput(clients: int, ops: int, request: Callable[[int], object]) -> float:
    """Requests per second with `clients` threads doing `ops` requests in all."""
    counter = iter(range(ops))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                index = next(counter, None)
            if index is None:
                return
            request(index)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        for future in [pool.submit(worker) for _ in range(clients)]:
            future.result()
    return ops / (time.perf_counter() - start)


# --- lock audit --------------------------------------------------------------------------------

_AUDIT = r"""
import json, resource, time


def memory_mb(field):
    # VmHWM / VmRSS of this process image: getrusage's ru_maxrss carries the parent's size across exec.
    try:
        for line in open("/proc/self/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


import sys
from ddbguard.domain.audit_scan import audit_in_parallel
before = memory_mb("VmRSS")
start = time.perf_counter()
report = audit_in_parallel(int(sys.argv[1]))
elapsed = time.perf_counter() - start
peak = memory_mb("VmHWM")
print(json.dumps({"seconds": elapsed, "rss_before_mb": before, "peak_rss_mb": peak,
    "locks": report.locks_scanned, "accounts": report.accounts_scanned, "findings": len(report.findings)}))
"""


def run_audit(env: dict[str, str], *, segments: int = 1) -> dict[str, Any]:
    command = [sys.executable, "-c", _AUDIT, str(segments)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def plain_table(client: Any, table: str) -> None:
    """The table's key schema without a stream: DynamoDB Local slows down badly seeding 100,000 items into a
    streamed table (each write also stores a stream record), and the audit does not read the stream."""
    from ddbguard.store.attribute_names import KEY_ATTRIBUTES

    partition, sort = KEY_ATTRIBUTES
    client.create_table(
        TableName=table,
        AttributeDefinitions=[
            {"AttributeName": partition, "AttributeType": "S"},
            {"AttributeName": sort, "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": partition, "KeyType": "HASH"}, {"AttributeName": sort, "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
    )


def seed_accounts(raw: Any, table: str, templates: list[dict[str, Any]], accounts: int, threads: int = 8) -> int:
    """`accounts` copies of one real account and its locks (`templates`), new id and values each."""
    account, *locks = templates
    account_pk = account["PK"]["S"]
    email, username = account["email"]["S"], account["username"]["S"]

    def clone(index: int) -> list[dict[str, Any]]:
        text = json.dumps([account, *locks])
        text = text.replace(account_pk, f"ACCT#audit{index:07d}")
        text = text.replace(email, f"a{index:07d}@audit.example").replace(username, f"a{index:07d}")
        return json.loads(text)

    def write(start: int) -> int:
        items = [item for index in range(start, min(start + 8, accounts)) for item in clone(index)]
        for i in range(0, len(items), 25):
            pending = {table: [{"PutRequest": {"Item": item}} for item in items[i : i + 25]]}
            while pending:
                pending = raw.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        return len(items)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return sum(pool.map(write, range(0, accounts, 8)))


def environment(endpoint: str, table: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"TABLE_NAME": table, "AWS_ENDPOINT_URL_DYNAMODB": endpoint})
    return env
