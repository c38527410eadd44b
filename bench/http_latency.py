"""p50 / p99 latency per route through the local server's HTTP, one client, warm execution environments.

Each route's requests are sent one after another on one keep-alive connection; the first few (which may
start the function's environment, a cold start) are not timed. Every request is a new one (a new
Idempotency-Key, new ids), so no answer comes from an idempotency record.
"""

from __future__ import annotations

import http.client
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

WARM_UP = 3


@dataclass(frozen=True)
class Latency:
    route: str
    n: int
    p50_ms: float
    p99_ms: float


class HttpClient:
    def __init__(self, url: str, token: str):
        address = urlsplit(url)
        self._connection = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port, timeout=60)
        self._token = token

    def send(self, method: str, path: str, body: Any = None, *, key: bool = False) -> tuple[int, Any]:
        headers = {"Authorization": self._token}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        self._connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = self._connection.getresponse()
        data = response.read()
        assert response.status < 500, (method, path, response.status, data)
        return response.status, json.loads(data) if data else None


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _timed(route: str, n: int, send: Callable[[int], object]) -> Latency:
    for i in range(WARM_UP):
        send(-1 - i)
    times = []
    for i in range(n):
        start = time.perf_counter()
        send(i)
        times.append((time.perf_counter() - start) * 1000)
    return Latency(route, n, _percentile(times, 0.5), _percentile(times, 0.99))


def route_latencies(url: str, token: str, n: int) -> list[Latency]:
    client = HttpClient(url, token)
    tag = uuid.uuid4().hex[:8]

    def account(i: int) -> str:
        body = {"email": f"lat-{tag}-{i}-{uuid.uuid4().hex[:6]}@bench.example", "username": f"l{uuid.uuid4().hex[:12]}"}
        status, created = client.send("POST", "/accounts", body)
        assert status == 201, created
        return created["accountId"]

    main, other = account(10**6), account(10**6 + 1)
    for ledger in (main, other):
        client.send("POST", f"/accounts/{ledger}/ledger")
    client.send("POST", f"/accounts/{main}/ledger/deposits", {"amountCents": 10**10}, key=True)
    ledger = f"/accounts/{main}/ledger"
    holds: list[str] = []
    orders: list[str] = []

    def hold(i: int) -> None:
        _status, placed = client.send("POST", f"{ledger}/holds", {"amountCents": 1}, key=True)
        holds.append(placed["holdId"])

    def order(i: int) -> None:
        lines = [{"sku": "BENCH-1", "quantity": 1, "unitPriceCents": 1}]
        _status, placed = client.send("POST", "/orders", {"accountId": main, "items": lines})
        orders.append(placed["orderId"])

    rows = [
        _timed("GET /health", n, lambda i: client.send("GET", "/health")),
        _timed("POST /accounts", n, account),
        _timed("GET /accounts/{accountId}", n, lambda i: client.send("GET", f"/accounts/{main}")),
        _timed(
            "POST .../ledger/deposits",
            n,
            lambda i: client.send("POST", f"{ledger}/deposits", {"amountCents": 1}, key=True),
        ),
        _timed(
            "POST .../ledger/withdrawals",
            n,
            lambda i: client.send("POST", f"{ledger}/withdrawals", {"amountCents": 1}, key=True),
        ),
        _timed("POST .../ledger/holds", n, hold),
        _timed(
            "POST .../holds/{holdId}/capture",
            n,
            lambda i: client.send("POST", f"{ledger}/holds/{holds.pop()}/capture", key=True),
        ),
        _timed(
            "POST /transfers",
            n,
            lambda i: client.send(
                "POST", "/transfers", {"fromAccountId": main, "toAccountId": other, "amountCents": 1}, key=True
            ),
        ),
        _timed("GET .../ledger (statement)", n, lambda i: client.send("GET", f"{ledger}?limit=20")),
        _timed("POST /orders", n, order),
        _timed("POST /orders/{orderId}/pay", n, lambda i: client.send("POST", f"/orders/{orders.pop()}/pay", key=True)),
    ]
    return rows
