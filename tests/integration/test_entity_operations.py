"""guards/entity_operations.py: create, get, versioned update and delete for any declared entity.

An entity declared here, in the test file, gets the guards with no other edit, against DynamoDB Local.

`GADGET` is owner-scoped and versioned, with one case-insensitive unique code (`sku`). Through the generic
operations it is created, read, updated and deleted with every guarantee the built-in entities have; real
threads race its unique value and its version; the lock audit finds and repairs an orphan lock of its kind.
An account delete racing deposits never loses money (the delete's `checks`).
"""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from ddbguard.domain import lock_audit
from ddbguard.domain.normalize import CODE
from ddbguard.errors import DomainError, InvalidInput, InvalidTransition, NotFound, UniqueViolation, VersionConflict
from ddbguard.guards import entity_operations as operations
from ddbguard.guards.entity import OWNER_SCOPED_IDS, Entity
from ddbguard.guards.fields import choice, text, unique
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store import keys
from tests.integration.test_money import _entries
from tests.support.ledger_seed import open_funded_ledger
from tests.support.private_table import private_table
from tests.support.table_reads import raw_item

# GADGET#<owner tag>#<gadgetId> / GADGET, 404 gadget_not_found: the kind's defaults.
GADGET = Entity(
    "gadget",
    ids=OWNER_SCOPED_IDS,
    fields={"sku": unique(CODE, "g-1", lock="GADGET_SKU"), "name": text("A gadget", required=False)},
)
RACERS = 20


@pytest.fixture
def table(dynamodb_local, raw_client, monkeypatch, uid):
    """A table of its own: the lock audit scans all of it."""
    yield from private_table(raw_client, monkeypatch, f"ddbguard-gadgets-{uid}")


def sku_locks(raw_client, table: str) -> dict[str, str]:
    """Every GADGET_SKU lock in the table: the value it was taken for (its key is how the value reads: `widget-1`
    is keyed `wldget-l`; a lock put by hand without one, its key's text) -> owner."""
    items = raw_client.scan(TableName=table, ConsistentRead=True)["Items"]
    prefix = "UNIQ#GADGET_SKU#"
    return {
        i.get("value", {}).get("S", i["PK"]["S"][len(prefix) :]): i["owner"]["S"]
        for i in items
        if i["PK"]["S"].startswith(prefix)
    }


def race(count: int, attempt) -> list[object]:
    start = threading.Barrier(count)

    def run(n: int) -> object:
        start.wait()
        try:
            return attempt(n)
        except DomainError as refused:
            return refused

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


def test_create_get_update_delete_through_the_generic_operations(table, raw_client, uid):
    created = operations.create(GADGET, "alice", {"sku": "  Widget-1 ", "name": "Widget"})
    gadget_id = created["gadgetId"]
    assert (created["sku"], created["name"], created["version"]) == ("widget-1", "Widget", 0)
    assert operations.get(GADGET, gadget_id, "alice") == created
    owner = GADGET.partition(gadget_id, "alice")
    assert sku_locks(raw_client, table) == {"widget-1": owner}

    with pytest.raises(NotFound) as absent:  # not yours answers like absent
        operations.get(GADGET, gadget_id, "bob")
    assert absent.value.code == "gadget_not_found"
    with pytest.raises(UniqueViolation) as taken:
        operations.create(GADGET, "bob", {"sku": "WIDGET-1", "name": "Copy"})
    assert taken.value.fields == ["sku"]

    renamed = operations.update(GADGET, gadget_id, "alice", 0, {"name": "Gizmo", "sku": None})
    assert (renamed["name"], renamed["version"]) == ("Gizmo", 1)
    with pytest.raises(VersionConflict) as stale:  # 412 with the item as it is now
        operations.update(GADGET, gadget_id, "alice", 0, {"sku": "widget-2"})
    assert stale.value.current == renamed
    key = RequestIdentity(caller="alice", route="PATCH /gadgets/{gadgetId}", key=f"k-{uid}", fingerprint="fp")
    moved = operations.update(GADGET, gadget_id, "alice", 1, {"sku": "Widget-2"}, identity=key)
    assert operations.update(GADGET, gadget_id, "alice", 1, {"sku": "Widget-2"}, identity=key) == moved  # a replay
    assert (moved["sku"], moved["version"]) == ("widget-2", 2)
    assert sku_locks(raw_client, table) == {"widget-2": owner}  # the old value's lock went in the same write
    with pytest.raises(NotFound):
        operations.delete(GADGET, gadget_id, "bob", 2)

    operations.delete(GADGET, gadget_id, "alice", 2)
    assert sku_locks(raw_client, table) == {}
    with pytest.raises(NotFound):
        operations.get(GADGET, gadget_id, "alice")


def test_twenty_creates_of_one_value_one_winner_and_nineteen_409s_naming_the_field(table, raw_client, uid):
    spellings = ["Gear-7", "gear-7", "GEAR-7", " gear-7 "]
    outcomes = race(
        RACERS, lambda n: operations.create(GADGET, f"owner-{n}", {"sku": spellings[n % 4], "name": f"g{n}"})
    )
    winners = [o for o in outcomes if isinstance(o, dict)]
    losers = [o for o in outcomes if isinstance(o, UniqueViolation)]
    assert len(winners) == 1 and len(losers) == RACERS - 1, outcomes
    assert all(loser.fields == ["sku"] for loser in losers)
    winner = winners[0]
    owner_sub = next(f"owner-{n}" for n, o in enumerate(outcomes) if o is winner)
    assert sku_locks(raw_client, table) == {"gear-7": GADGET.partition(winner["gadgetId"], owner_sub)}


def test_twenty_swaps_at_one_etag_one_winner_and_the_locks_stay_consistent(table, raw_client, uid):
    gadget = operations.create(GADGET, "alice", {"sku": "start", "name": "Racer"})
    gadget_id = gadget["gadgetId"]
    outcomes = race(RACERS, lambda n: operations.update(GADGET, gadget_id, "alice", 0, {"sku": f"next-{n}"}))
    winners = [o for o in outcomes if isinstance(o, dict)]
    assert len(winners) == 1, outcomes
    assert all(isinstance(o, VersionConflict) for o in outcomes if o is not winners[0])
    stored = operations.get(GADGET, gadget_id, "alice")
    assert stored == winners[0] and stored["version"] == 1
    # Exactly the winner's value is locked, by the gadget: no lock of a loser's value, none of the old one.
    assert sku_locks(raw_client, table) == {stored["sku"]: GADGET.partition(gadget_id, "alice")}
    assert lock_audit.audit_locks(entities=[GADGET]).findings == []


def test_the_lock_audit_finds_and_repairs_an_orphan_lock_of_its_kind(table, raw_client, uid):
    healthy = operations.create(GADGET, "alice", {"sku": "kept", "name": "Kept"})
    ghost_owner = GADGET.partition("ghost", "alice")
    raw_client.put_item(
        TableName=table,
        Item={"PK": {"S": "UNIQ#GADGET_SKU#orphan"}, "SK": {"S": "LOCK"}, "owner": {"S": ghost_owner}},
    )
    # No entity list given: the audit checks every declared entity, this one included.
    found = lock_audit.audit_locks()
    assert [(f.problem, f.entity, f.field, f.value) for f in found.findings] == [
        (lock_audit.ORPHAN_LOCK, "gadget", "sku", "orphan")
    ]
    assert found.scanned_by_kind == {"gadget": 1}
    repaired = lock_audit.audit_locks(repair=True)
    assert repaired.clean and all(f.repaired for f in repaired.findings)
    assert sku_locks(raw_client, table) == {"kept": GADGET.partition(healthy["gadgetId"], "alice")}

    # And a missing one is put back, owned by the gadget.
    raw_client.delete_item(TableName=table, Key={"PK": {"S": "UNIQ#GADGET_SKU#kept"}, "SK": {"S": "LOCK"}})
    restored = lock_audit.audit_locks(repair=True)
    assert [(f.problem, f.field, f.repaired) for f in restored.findings] == [(lock_audit.MISSING_LOCK, "sku", True)]
    assert sku_locks(raw_client, table) == {"kept": GADGET.partition(healthy["gadgetId"], "alice")}


def test_a_change_of_nothing_and_an_unacceptable_code_are_refused_and_write_nothing(table, raw_client):
    created = operations.create(GADGET, "alice", {"sku": "still", "name": "Still"})
    with pytest.raises(InvalidInput) as nothing:
        operations.update(GADGET, created["gadgetId"], "alice", 0, {"sku": None, "name": None})
    assert [error.field for error in nothing.value.errors] == ["body"]
    with pytest.raises(InvalidInput) as unacceptable:  # the kind checks the value, not the field's name
        operations.create(GADGET, "alice", {"sku": "no spaces here", "name": "Bad"})
    assert [(error.field, error.code) for error in unacceptable.value.errors] == [("sku", "invalid_format")]
    assert operations.get(GADGET, created["gadgetId"], "alice") == created
    assert sku_locks(raw_client, table) == {"still": GADGET.partition(created["gadgetId"], "alice")}


def test_delete_racing_deposits_never_loses_money(api, raw_client):
    for _ in range(5):
        account = open_funded_ledger(api, raw_client, "alice", 0)

        def deposit(_: int, account: str = account):
            return api.post(
                f"/accounts/{account}/ledger/deposits", {"amountCents": 10}, idempotency_key=str(uuid.uuid4())
            )

        with ThreadPoolExecutor(max_workers=9) as pool:
            deposits = [pool.submit(deposit, i) for i in range(8)]
            deleting = pool.submit(api.delete, f"/accounts/{account}", if_match=0)
            replies = [d.result() for d in deposits]
            deleted = deleting.result()
        committed = [r for r in replies if r.status == 201]
        assert {r.status for r in replies} <= {201, 404}
        balance = raw_item(raw_client, keys.balance_key(account))
        if deleted.status == 204:
            # The account went first: no deposit can have landed, and no ghost balance item remains.
            assert committed == [] and balance is None
            assert raw_item(raw_client, keys.account_key(account)) is None
        else:
            assert (deleted.status, deleted.code) == (409, "balance_not_zero")
            assert balance["clearedCents"] == 10 * len(committed) and committed
        assert sum(e["amountCents"] for e in _entries(raw_client, account) if e["type"] == "deposit") == 10 * len(
            committed
        )


# A status the domain guards with `only_in`: an update only while OPEN or HELD, a delete only while OPEN.
CRATE = Entity(
    "crate",
    ids=OWNER_SCOPED_IDS,
    fields={"label": text("A crate"), "state": choice(("OPEN", "HELD", "SHUT"), default="OPEN")},
)


def test_a_status_rule_holds_in_the_writes_own_condition_and_its_refusal_names_the_move(table) -> None:
    crate_id = str(operations.create(CRATE, "alice", {"label": "One", "state": "SHUT"})["crateId"])

    def update_rules(expected: int) -> operations.Rules:
        return operations.only_in(CRATE, "state", ("OPEN", "HELD"), crate_id, expected, "HELD")

    with pytest.raises(InvalidTransition) as refused:
        operations.update(CRATE, crate_id, "alice", 0, {"state": "HELD"}, **update_rules(0))
    assert refused.value.extra == {"currentStatus": "SHUT", "requestedStatus": "HELD"}
    assert refused.value.current is not None and refused.value.current["version"] == 0  # the item as it was
    with pytest.raises(VersionConflict):  # a stale version is 412, whatever the status
        operations.update(CRATE, crate_id, "alice", 5, {"state": "HELD"}, **update_rules(5))
    with pytest.raises(InvalidTransition):
        operations.delete(
            CRATE, crate_id, "alice", 0, **operations.only_in(CRATE, "state", ("OPEN",), crate_id, 0, "DELETED")
        )
    assert operations.get(CRATE, crate_id, "alice")["state"] == "SHUT"  # nothing written

    open_id = str(operations.create(CRATE, "alice", {"label": "Two", "state": "OPEN"})["crateId"])
    operations.delete(
        CRATE, open_id, "alice", 0, **operations.only_in(CRATE, "state", ("OPEN",), open_id, 0, "DELETED")
    )
    with pytest.raises(NotFound):
        operations.get(CRATE, open_id, "alice")


def test_a_status_rule_needs_an_allowed_value() -> None:
    with pytest.raises(ValueError, match="empty IN"):
        operations.only_in(CRATE, "state", (), "c-1", 0, None)
