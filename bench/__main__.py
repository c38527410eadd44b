"""Run every benchmark against a private in-memory DynamoDB Local and print one table."""

from __future__ import annotations

import argparse
import contextlib
import io
import resource
import statistics
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from local.api_client import ApiClient
from local.dynamodb_local import DynamoDBLocal, local_client
from local.runtime_env import configure
from local.scenarios import create_account, open_funded_ledger
from local.table import ensure_table

TABLE = "ddbguard-bench"


def _timed(fn: Callable[[], object], n: int) -> list[float]:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _row(name: str, samples: list[float], note: str = "") -> tuple:
    ordered = sorted(samples)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return (name, len(samples), statistics.median(ordered), p95, 1000 / statistics.mean(ordered), note)


def _throughput(name: str, fn: Callable[[int], object], threads: int, ops: int, note: str = "") -> tuple:
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(fn, range(ops)))
    elapsed = time.perf_counter() - start
    return (name, ops, None, None, ops / elapsed, note)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=200, help="requests per latency scenario")
    args = parser.parse_args()
    n = args.n
    # Handlers print EMF metric lines to stdout (that is how Lambda ships them); keep the table readable.
    with DynamoDBLocal() as database, contextlib.redirect_stdout(io.StringIO()):
        configure(database.endpoint, TABLE)
        ensure_table(local_client(database.endpoint), TABLE)
        api = ApiClient()
        rows = []
        account = create_account(api, "bench")
        rows.append(_row("GET account (1 GetItem)", _timed(lambda: api.get(f"/accounts/{account}", sub="bench"), n)))
        rows.append(
            _row(
                "POST account (3-put transaction)",
                _timed(lambda: create_account(api, "bench"), n),
            )
        )
        ledger = open_funded_ledger(api, "bench", 10**11)

        def deposit(key: str | None = None):
            return api.post(
                f"/accounts/{ledger}/ledger/deposits",
                {"amountCents": 1},
                sub="bench",
                idempotency_key=key or str(uuid.uuid4()),
            )

        rows.append(_row("deposit (marker+balance+entry tx, settle)", _timed(deposit, n)))
        fixed = str(uuid.uuid4())
        deposit(fixed)
        rows.append(_row("deposit replay (Powertools record hit)", _timed(lambda: deposit(fixed), n)))
        poor = open_funded_ledger(api, "bench", 0)
        rows.append(
            _row(
                "withdraw refused (1 failed write)",
                _timed(
                    lambda: api.post(
                        f"/accounts/{poor}/ledger/withdrawals",
                        {"amountCents": 5},
                        sub="bench",
                        idempotency_key=str(uuid.uuid4()),
                    ),
                    n,
                ),
            )
        )
        versions = {"v": 0}

        def patch(with_key: bool):
            reply = api.patch(
                f"/accounts/{account}",
                {"displayName": f"n{versions['v']}"},
                sub="bench",
                if_match=versions["v"],
                idempotency_key=str(uuid.uuid4()) if with_key else None,
            )
            versions["v"] = reply.json["version"]

        plain = _timed(lambda: patch(False), n)
        keyed = _timed(lambda: patch(True), n)
        rows.append(_row("PATCH account, no Idempotency-Key", plain))
        ratio = statistics.median(keyed) / statistics.median(plain)
        rows.append(_row("PATCH account, with Idempotency-Key", keyed, f"x{ratio:.2f} of no key"))

        hot = _throughput("deposits, 32 threads, 1 hot ledger", lambda i: deposit(), 32, 4 * n)
        ledgers = [open_funded_ledger(api, "bench", 0) for _ in range(32)]

        def spread(i: int):
            return api.post(
                f"/accounts/{ledgers[i % 32]}/ledger/deposits",
                {"amountCents": 1},
                sub="bench",
                idempotency_key=str(uuid.uuid4()),
            )

        cold = _throughput("deposits, 32 threads, 32 ledgers", spread, 32, 4 * n)
        rows.append(hot)
        rows.append((*cold[:5], f"hot ledger x{hot[4] / cold[4]:.2f} of spread"))
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(f"\nddbguard benchmarks on DynamoDB Local (n={n}; one run; ratios are the portable numbers)\n")
    print(f"| {'scenario':<44} | {'n':>5} | {'p50 ms':>7} | {'p95 ms':>7} | {'ops/s':>7} | note")
    print(f"|{'-' * 46}|{'-' * 7}|{'-' * 9}|{'-' * 9}|{'-' * 9}|------")
    for name, count, p50, p95, ops, note in rows:
        p50s = f"{p50:7.1f}" if p50 is not None else "      -"
        p95s = f"{p95:7.1f}" if p95 is not None else "      -"
        print(f"| {name:<44} | {count:>5} | {p50s} | {p95s} | {ops:7.0f} | {note}")
    print(f"\npeak RSS of the benchmark process (handlers in-process): {rss_mb:.0f} MB")


if __name__ == "__main__":
    main()
