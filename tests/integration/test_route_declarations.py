"""The route table's table-access declarations (what infra/ grants) agree with the code that makes the calls."""

from __future__ import annotations

from routes import ROUTES, table_patterns


def test_key_patterns_match_the_layer_key_builders() -> None:
    from ddbguard.store import keys

    assert f"{keys.ACCOUNT_PREFIX}*" == table_patterns.ACCOUNTS
    assert f"{keys.ORDER_PREFIX}*" == table_patterns.ORDERS
    assert f"{keys.REQUEST_PREFIX}*" == table_patterns.REQUEST_MARKERS
    assert f"{keys.LOCK_PREFIX}EMAIL#*" == table_patterns.EMAIL_LOCKS
    assert f"{keys.LOCK_PREFIX}HANDLE#*" == table_patterns.USERNAME_LOCKS
    assert keys.lock_keys("EMAIL", "a@b.io")[0]["PK"].startswith(table_patterns.EMAIL_LOCKS[:-1])
    assert keys.order_key("alice", "o-1")["PK"].startswith(table_patterns.ORDERS[:-1])
    assert keys.owner_index_partition("alice").startswith(table_patterns.OWNER_INDEX[:-1])


def test_idempotency_keeps_no_records_of_its_own(dynamodb_local) -> None:
    """The Powertools layer of every keyed route is the in-transaction one: no access beyond the operation's."""
    import importlib

    from ddbguard_api.http.idempotency import InTransactionPersistenceLayer

    for route in ROUTES:
        endpoint = importlib.import_module(route.handler).endpoint
        if route.idempotency == "none":
            assert endpoint.idempotency is None
            continue
        assert isinstance(endpoint.idempotency.persistence, InTransactionPersistenceLayer)
        reached = {p for patterns in route.table_access.values() for p in patterns}
        # Markers, or (a single-item update) the request stamped on the item it updates.
        assert "REQ#*" in reached or set(route.table_access) == {"UpdateItem"}, route.operation
