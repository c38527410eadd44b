"""Section 2: races, measured (not asserted): many callers at once on one email, one balance, one version.

ddbguard's callers are forked processes (one Lambda environment each: a handler module serves one
invocation at a time), released together by a barrier; the naive and PynamoDB callers are threads
released by a barrier. Every figure is read back from the table afterwards.
"""

from __future__ import annotations

import multiprocessing
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from local.api_client import ApiClient


@dataclass
class RaceRow:
    race: str
    implementation: str
    callers: int
    told_success: int
    measured: str  # what the table shows afterwards
    violations: int  # accounts beyond 1 / overdrawn cents / lost updates

    @property
    def verdict(self) -> str:
        return "ok" if self.violations == 0 else "BROKEN"


def in_processes(count: int, request: Callable[[int], Any]) -> list[Any]:
    """`request(i)` in `count` forked processes at once; their answers, in order."""
    from ddbguard.store.client import client

    context = multiprocessing.get_context("fork")
    barrier, answers = context.Barrier(count), context.Queue()
    client().close()  # no open connection is inherited: each child opens its own

    def child(index: int) -> None:
        barrier.wait()
        answers.put((index, request(index)))

    processes = [context.Process(target=child, args=(i,)) for i in range(count)]
    for process in processes:
        process.start()
    results = dict(answers.get(timeout=300) for _ in processes)
    for process in processes:
        process.join(timeout=60)
    return [results[i] for i in range(count)]


def in_threads(count: int, request: Callable[[int], Any]) -> list[Any]:
    barrier = threading.Barrier(count)

    def call(index: int) -> Any:
        barrier.wait()
        return request(index)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(call, range(count)))


def _scan(client: Any, table: str) -> list[dict[str, Any]]:
    items, start = list[dict[str, Any]](), dict[str, Any]()
    while True:
        page = client.scan(TableName=table, ConsistentRead=True, **start)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


def _uniqueness_row(implementation: str, callers: int, told: int, items: list[dict[str, Any]], email: str) -> RaceRow:
    """Accounts holding `email`, and locks (EMAIL#/HANDLE#) whose owner lacks their value."""
    accounts = {i["PK"]["S"]: i for i in items if i["SK"]["S"] == "A"}
    holders = [a for a in accounts.values() if a.get("email", {}).get("S") == email]
    orphans = 0
    for lock in (i for i in items if i["SK"]["S"] == "LOCK"):
        field, value = (
            ("email", lock["PK"]["S"][6:])
            if lock["PK"]["S"].startswith("EMAIL#")
            else ("username", lock["PK"]["S"][7:])
        )
        owner = accounts.get(lock["owner"]["S"])
        orphans += owner is None or owner.get(field, {}).get("S") != value
    lockless = sum(
        1
        for a in holders
        if not any(i["PK"]["S"] == f"EMAIL#{email}" and i["owner"]["S"] == a["PK"]["S"] for i in items)
    )
    measured = (
        f"{len(holders)} accounts hold the email; {orphans} orphan locks; {lockless} accounts without their email lock"
    )
    return RaceRow(
        "32 same-email sign-ups", implementation, callers, told, measured, max(0, len(holders) - 1) + orphans + lockless
    )


def _money_row(implementation: str, callers: int, told: int, funds: int, amount: int, final: int) -> RaceRow:
    paid_out = told * amount
    overdrawn = max(0, paid_out - funds)
    drift = (funds - paid_out) - final  # money paid out that the balance does not show (a lost decrement)
    measured = (
        f"{told} x {amount} paid out of {funds}; balance now {final}; overdrawn by {overdrawn}; balance off by {drift}"
    )
    return RaceRow(
        f"{callers} withdrawals against funds for {funds // amount}",
        implementation,
        callers,
        told,
        measured,
        overdrawn + abs(drift),
    )


def _version_row(implementation: str, callers: int, told: int, final_version: int, base: int) -> RaceRow:
    lost = max(0, told - 1)
    moved = final_version - base
    measured = f"{told} told 'updated' at one version; version now {final_version} (+{moved}); {lost} lost updates"
    return RaceRow(f"{callers} same-version order updates", implementation, callers, told, measured, lost)


def ddbguard_races(api: ApiClient, raw: Any, table: str, signups: int, withdrawals: int, updates: int) -> list[RaceRow]:
    from ddbguard.domain.lock_audit import audit_locks

    rows = []
    tag = uuid.uuid4().hex[:10]
    email = f"{tag}@race.example"
    answers = in_processes(
        signups,
        lambda i: (
            api.post(
                "/accounts",
                {"email": email, "username": f"r{tag}{i}"},
                sub=f"racer{i}",
                idempotency_key=f"race-{tag}-{i}",
            ).status
        ),
    )
    told = answers.count(201)
    report = audit_locks()
    broken = [f for f in report.findings if f.problem != "missing_value"]
    holders = sum(1 for i in _scan(raw, table) if i["SK"]["S"] == "PROFILE" and i.get("email", {}).get("S") == email)
    measured = (
        f"{holders} accounts hold the email; lock audit: {len(broken)} findings (orphan / missing / held by other)"
    )
    rows.append(
        RaceRow(
            f"{signups} same-email sign-ups", "ddbguard", signups, told, measured, max(0, holders - 1) + len(broken)
        )
    )

    funds_for, amount = withdrawals // 2, 10
    funds = funds_for * amount
    account = api.post("/accounts", {"email": f"m{tag}@race.example", "username": f"m{tag}"}, sub="racer").json[
        "accountId"
    ]
    api.post(f"/accounts/{account}/ledger", sub="racer")
    api.post(f"/accounts/{account}/ledger/deposits", {"amountCents": funds}, sub="racer", idempotency_key=f"fund-{tag}")
    answers = in_processes(
        withdrawals,
        lambda i: (
            api.post(
                f"/accounts/{account}/ledger/withdrawals",
                {"amountCents": amount},
                sub="racer",
                idempotency_key=f"w-{tag}-{i}",
            ).status
        ),
    )
    statement = api.get(f"/accounts/{account}/ledger", sub="racer").json
    rows.append(_money_row("ddbguard", withdrawals, answers.count(201), funds, amount, int(_available(statement))))

    body = {"accountId": account, "items": [{"sku": "BOOK-1", "quantity": 1, "unitPriceCents": 100}]}
    order = api.post("/orders", body, sub="racer", idempotency_key=f"o-{tag}").json["orderId"]
    answers = in_processes(
        updates,
        lambda i: (
            api.patch(
                f"/orders/{order}", {"status": "CANCELLED"}, sub="racer", if_match=0, idempotency_key=f"u-{tag}-{i}"
            ).status
        ),
    )
    version = api.get(f"/orders/{order}", sub="racer").json["version"]
    rows.append(_version_row("ddbguard", updates, answers.count(200), int(version), 0))
    return rows


def _available(statement: dict[str, Any]) -> Any:
    for holder in (statement, statement.get("balance") or {}):
        if "availableCents" in holder:
            return holder["availableCents"]
    raise KeyError(f"no availableCents in the statement: {sorted(statement)}")


def alternative_races(
    name: str, service: Any, raw: Any, table: str, signups: int, withdrawals: int, updates: int
) -> list[RaceRow]:
    tag = uuid.uuid4().hex[:10]
    email = f"{tag}@race.example"
    answers = in_threads(signups, lambda i: service.sign_up(email, f"r{tag}{i}", None))
    rows = [_uniqueness_row(name, signups, sum(a.ok for a in answers), _scan(raw, table), email)]
    rows[0].race = f"{signups} same-email sign-ups"

    funds_for, amount = withdrawals // 2, 10
    account = f"ACCT#{uuid.uuid4()}"
    service.open_balance(account, funds_for * amount)
    answers = in_threads(withdrawals, lambda i: service.withdraw(account, amount, f"w-{tag}-{i}"))
    final = raw.get_item(TableName=table, Key={"PK": {"S": account}, "SK": {"S": "BALANCE"}}, ConsistentRead=True)[
        "Item"
    ]
    rows.append(
        _money_row(name, withdrawals, sum(a.ok for a in answers), funds_for * amount, amount, int(final["cents"]["N"]))
    )

    order = f"ORDER#{uuid.uuid4()}"
    base = service.create_order(order)
    answers = in_threads(updates, lambda i: service.update_order(order, base, f"writer-{i}", f"u-{tag}-{i}"))
    final = raw.get_item(TableName=table, Key={"PK": {"S": order}, "SK": {"S": "ORDER"}}, ConsistentRead=True)["Item"]
    rows.append(_version_row(name, updates, sum(a.ok for a in answers), int(final["version"]["N"]), base))
    return rows
