"""The invariants of a whole table, read straight from it (never through ddbguard), against the model's world.

- every lock has exactly one live owner, whose current value is keyed to it, and no owner lacks its locks;
- every balance: `availableCents = clearedCents - holdCents >= 0`, `holdCents >= 0`, and once settled it equals its
  entries (cleared) and its open holds (held);
- each Idempotency-Key had at most one effect: the entries of a request are one movement's, and no request
  created two items of a kind;
- no id names two lives: the live accounts and orders are exactly the model's, and the entries under an account id
  are exactly those written while it lived (a deleted account's stay, and nothing joins them);
- the items agree with the model: versions, values, statuses, balances, holds.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from ddbguard.store import keys
from tests.model.keys import KEY_LIFETIME_S
from tests.model.world import World
from tests.support.ledger_invariants import CLEARED_SIGN, HELD_SIGN, check_balance_values
from tests.support.table_reads import plain

Item = dict[str, Any]
# Signs of the entry types an order's money adds to the ledger's own (`CLEARED_SIGN`).
ENTRY_SIGNS = {**CLEARED_SIGN, "refund": 1}
UNIQUE_LOCKS = {"email": "EMAIL", "username": "HANDLE"}


def scan_all(raw_client: Any, table: str) -> list[Item]:
    items: list[Item] = []
    request: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = raw_client.scan(**request)
        items += [item for raw in page.get("Items", []) if (item := plain(raw)) is not None]
        if "LastEvaluatedKey" not in page:
            return items
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def check_table(items: list[Item], world: World, *, settled: bool) -> None:
    partitions: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        partitions[item["PK"]].append(item)
    accounts = {i["accountId"]: i for i in items if i["SK"] == "PROFILE" and i.get("kind") == "account"}
    _check_accounts(accounts, world)
    _check_locks([i for i in items if keys.is_lock_key(i["PK"], i["SK"])], accounts)
    _check_ledgers(partitions, world, settled=settled)
    _check_orders([i for i in items if i["SK"] == "ORDER" and i.get("kind") == "order"], world)
    _check_one_effect_per_key(items, world)


def _check_accounts(accounts: dict[str, Item], world: World) -> None:
    assert set(accounts) == set(world.accounts), f"live accounts {sorted(accounts)} != model {sorted(world.accounts)}"
    assert not set(accounts) & world.deleted_accounts, "a deleted account lives again"
    for account_id, item in accounts.items():
        model = world.accounts[account_id]
        stored = {
            "ownerSub": item.get("ownerSub"),
            "email": item.get("email"),
            "username": item.get("username"),
            "displayName": item.get("displayName"),
            "closing": bool(item.get("closing", False)),
            "version": item.get("version"),
        }
        expected = {
            "ownerSub": model.owner,
            "email": model.email.stored,
            "username": model.username.stored,
            "displayName": model.display_name,
            "closing": model.closing,
            "version": model.version,
        }
        assert stored == expected, f"account {account_id}: table {stored} != model {expected}"


def _check_locks(locks: list[Item], accounts: dict[str, Item]) -> None:
    """Each live account holds exactly the locks of its values' readings (`keys.lock_keys`: one or more per value),
    and every lock is one of its owner's."""
    held: dict[str, set[str]] = {account_id: set() for account_id in accounts}
    for lock in locks:
        kind = keys.lock_parts(lock["PK"])[0]
        owner = str(lock.get("owner", "")).removeprefix(keys.ACCOUNT_PREFIX)
        assert owner in accounts, f"lock {lock['PK']} has no live owner ({lock.get('owner')})"
        field = next(name for name, lock_kind in UNIQUE_LOCKS.items() if lock_kind == kind)
        current = {key["PK"] for key in keys.lock_keys(kind, accounts[owner][field])}
        assert lock["PK"] in current, f"lock {lock['PK']} is not one of its owner's current {field} keys {current}"
        held[owner].add(lock["PK"])
    for account_id, account in accounts.items():
        expected = {key["PK"] for field, kind in UNIQUE_LOCKS.items() for key in keys.lock_keys(kind, account[field])}
        assert held[account_id] == expected, f"account {account_id} holds {held[account_id]}, not {expected}"


def _check_ledgers(partitions: dict[str, list[Item]], world: World, *, settled: bool) -> None:
    balances = {
        pk.removeprefix(keys.ACCOUNT_PREFIX): item
        for pk, items in partitions.items()
        for item in items
        if item["SK"] == "BALANCE"
    }
    assert set(balances) == set(world.ledgers), f"balances {sorted(balances)} != model {sorted(world.ledgers)}"
    entry_counts = {
        pk.removeprefix(keys.ACCOUNT_PREFIX): sum(1 for i in items if i["SK"].startswith(keys.ENTRY_PREFIX))
        for pk, items in partitions.items()
        if pk.startswith(keys.ACCOUNT_PREFIX)
    }
    for account_id, written in world.entries.items():
        assert entry_counts.get(account_id, 0) == written, f"{account_id}: {entry_counts.get(account_id)} entries"
    assert sum(entry_counts.values()) == sum(world.entries.values()), "entries under an id the model never wrote to"
    for account_id, balance in balances.items():
        check_balance_values(balance)
        model = world.ledgers[account_id]
        table = (balance["clearedCents"], balance["holdCents"], balance["version"])
        assert table == (model.cleared, model.held, model.version), f"ledger {account_id}: {table} != {model}"
        assert len(balance.get("pending") or {}) == (0 if settled else model.unsettled), balance
        items = partitions[f"{keys.ACCOUNT_PREFIX}{account_id}"]
        entries = [i for i in items if i["SK"].startswith(keys.ENTRY_PREFIX)]
        holds = [i for i in items if i["SK"].startswith(keys.HOLD_PREFIX)]
        if settled:
            assert balance["clearedCents"] == sum(ENTRY_SIGNS[e["type"]] * e["amountCents"] for e in entries)
            assert balance["holdCents"] == sum(HELD_SIGN.get(e["type"], 0) * e["amountCents"] for e in entries)
            assert all(e.get("availableCentsAfter") is not None for e in entries), "an entry left unsettled"
        assert balance["holdCents"] == sum(h["amountCents"] for h in holds if h["status"] == "OPEN")
    for hold_id, hold in world.holds.items():
        stored = next(
            (
                i
                for i in partitions[f"{keys.ACCOUNT_PREFIX}{hold.account_id}"]
                if i.get("holdId") == hold_id and i["SK"].startswith(keys.HOLD_PREFIX)
            ),
            None,
        )
        assert stored is not None and (stored["status"], stored["amountCents"]) == (hold.status, hold.amount), hold_id


def _check_orders(orders: list[Item], world: World) -> None:
    stored = {(i["ownerSub"], i["orderId"]): (i["status"], i["version"], i["totalCents"]) for i in orders}
    expected = {key: (o.status, o.version, o.total) for key, o in world.orders.items()}
    assert stored == expected, f"orders {stored} != model {expected}"


def _check_one_effect_per_key(items: list[Item], world: World) -> None:
    movements: dict[str, set[str]] = defaultdict(set)
    for item in items:
        if item["SK"].startswith(keys.ENTRY_PREFIX) and item.get("requestDigest"):
            movements[item["requestDigest"]].add(item["createdAt"])
    repeated = {digest: times for digest, times in movements.items() if len(times) > 1}
    assert not repeated, f"a key moved money more than once: {repeated}"
    # A key that is not a money movement's lives 24 hours, then is a new key: it may create once per lifetime
    # (the create's own id stays taken, so a keyed create's second item is another resource, such as an order
    # with the id the body names).
    lifetimes = 1 + int(world.now_s // KEY_LIFETIME_S)
    created = Counter((i["createdByRequest"], i.get("kind")) for i in items if i.get("createdByRequest"))
    assert all(n <= lifetimes for n in created.values()), f"a key created twice in one lifetime: {created}"
