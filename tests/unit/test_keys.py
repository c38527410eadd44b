"""Every key builder spells the documented formats (docs/data-model.md); the others use their own prefixes."""

from __future__ import annotations

from ddbguard.store import keys


def test_account_profile():
    assert keys.account_key("a1") == {"PK": "ACCT#a1", "SK": "PROFILE"}
    assert keys.account_partition("a1") == "ACCT#a1"


def test_unique_locks():
    """A value's locks are spelled from its readings: most values read only as themselves."""
    assert keys.lock_keys("EMAIL", "ada@example.com") == ({"PK": "UNIQ#EMAIL#ada@example.com", "SK": "LOCK"},)
    assert keys.lock_keys("HANDLE", "ada_l") == ({"PK": "UNIQ#HANDLE#ada_l", "SK": "LOCK"},)


def test_ledger_balance_and_entries_share_the_account_partition():
    assert keys.balance_key("a1") == {"PK": "ACCT#a1", "SK": "BALANCE"}
    assert keys.entry_key("a1", "01HZX") == {"PK": "ACCT#a1", "SK": "TXN#01HZX"}
    assert keys.balance_key("a1")["PK"] == keys.entry_key("a1", "x")["PK"] == keys.account_key("a1")["PK"]


def test_order():
    # Per owner (docs/decisions/028-order-ids-are-per-owner.md): ORDER#<owner tag>#<orderId>, the tag a fixed-length
    # digest of the sub.
    import hashlib

    key = keys.order_key("alice", "o1")
    # The stored format, pinned: the tag is the same digest orders always had.
    tag = hashlib.sha256(b"order-owner\x1falice").hexdigest()[:32]
    assert (
        key
        == {"PK": f"ORDER#{tag}#o1", "SK": "ORDER"}
        == {"PK": f"ORDER#{keys.owner_tag('order', 'alice')}#o1", "SK": "ORDER"}
    )
    assert len(keys.owner_tag("order", "alice")) == 32
    assert keys.owner_tag("order", "bob") != keys.owner_tag("order", "alice") != keys.owner_tag("product", "alice")


def test_holds_live_in_the_account_partition_under_their_prefix():
    assert keys.hold_key("a1", "h1") == {"PK": "ACCT#a1", "SK": "HOLD#h1"}
    assert keys.HOLD_PREFIX == "HOLD#"


def test_request_markers_have_their_own_partition():
    assert keys.request_marker_key("abc123") == {"PK": "REQ#abc123", "SK": "MARKER"}


def test_prefixes_never_collide():
    """An entry, a hold and the balance of one account can never share a sort key."""
    sorts = {
        keys.balance_key("a")["SK"],
        keys.account_key("a")["SK"],
        keys.entry_key("a", "x")["SK"],
        keys.hold_key("a", "x")["SK"],
    }
    assert len(sorts) == 4
    partitions = {
        keys.ACCOUNT_PREFIX,
        keys.ORDER_PREFIX,
        keys.LOCK_PREFIX,
        keys.REQUEST_PREFIX,
    }
    assert len(partitions) == 4
    assert not any(a != b and a.startswith(b) for a in partitions for b in partitions)


def test_keys_are_exactly_pk_and_sk():
    for key in (
        keys.account_key("a"),
        *keys.lock_keys("EMAIL", "v"),
        keys.balance_key("a"),
        keys.entry_key("a", "e"),
        keys.hold_key("a", "h"),
        keys.order_key("alice", "o"),
        keys.request_marker_key("d"),
    ):
        assert set(key) == {"PK", "SK"} and all(isinstance(v, str) for v in key.values())


def test_a_lock_key_is_spelled_from_how_the_value_reads():
    assert keys.lock_keys("EMAIL", "\u0430lice@ex\u0430mple.com") == keys.lock_keys("EMAIL", "alice@example.com")
    assert keys.lock_keys("EMAIL", "m\u00fcller@example.com")[0]["PK"] == "UNIQ#EMAIL#m\u00fcller@example.com"
    assert keys.lock_keys("EMAIL", "al1ce@x.io") == keys.lock_keys("EMAIL", "alice@x.io")  # 1, I and l look alike


def test_keys_are_taken_apart_where_they_are_built():
    assert keys.account_id_of(keys.account_partition("a1")) == "a1"
    assert keys.account_id_of("ORDER#x") is None
    assert keys.entry_id_of(keys.entry_key("a1", "01HZX")["SK"]) == "01HZX"
    assert keys.entry_id_of("BALANCE") is None
    (key,) = keys.lock_keys("EMAIL", "a#b@example.com")
    lock = key["PK"]
    assert keys.lock_parts(lock) == ("EMAIL", "a#b@example.com")
    assert keys.lock_key_of_partition(lock) == key
    assert keys.is_lock_key(lock, "LOCK") and not keys.is_lock_key(lock, "PROFILE")
    assert keys.lock_partition_pattern("EMAIL") == "UNIQ#EMAIL#*"


def test_an_owner_index_sort_key_is_recognised_by_its_shape():
    sort = keys.owner_index_key("alice", "2026-12-04T06:30:39.300Z", "a1")["SK"]
    assert keys.is_owner_index_sort(sort)
    assert not keys.is_owner_index_sort("ACCT#not-a-time#a1")
    assert not keys.is_owner_index_sort(sort, prefix="TEAM#")
    assert not keys.is_owner_index_sort("TXN#2026-12-04T06:30:39.300Z#a1")
