"""The lock audit repairs every entity the route table declares with unique fields, not only accounts: on a table of
its own, one item of the entity loses its locks and another loses its item (its locks orphaned); the audit finds
both, repairs both, and a second audit is clean. So a resource added by docs/extending.md has its audit grants
(functions/routes/job_access.py) used by a test, with no test of its own written for it (tests/test_table_access.py
judges them over the whole suite); tests/integration/test_lock_audit.py holds the account cases in detail.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import routes
from ddbguard.domain import lock_audit
from ddbguard.domain.lock_audit import MISSING_LOCK, ORPHAN_LOCK
from ddbguard.guards import entity_operations
from ddbguard.guards.entity import Entity
from local.route_stories import fresh_body
from tests.support.audit_calls import file_under_the_audit_function
from tests.support.private_table import private_table

AUDITED = [
    e
    for e in lock_audit.audited_entities(routes.ENTITIES)
    if any(r.generic and r.entity is e and r.method == "POST" for r in routes.ROUTES)
]


def _create_route(entity: Entity) -> routes.Route:
    (route,) = [r for r in routes.ROUTES if r.generic and r.entity is entity and r.method == "POST"]
    return route


def _created(entity: Entity, sub: str, tag: str) -> dict[str, Any]:
    """An item as the entity's create route makes it from a fresh body (a client-chosen id goes in as the id)."""
    body = dict(fresh_body(_create_route(entity), tag) or {})
    item_id = body.pop(entity.id_field, None)
    return dict(entity_operations.create(entity, sub, body, item_id=None if item_id is None else str(item_id)))


@pytest.fixture(autouse=True)
def _audit_calls_count_against_the_audit_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit's calls are filed under the audit Lambda's grant (tests/test_table_access.py); the seeding is not."""
    file_under_the_audit_function(monkeypatch)


@pytest.fixture
def audit_table(dynamodb_local: Any, raw_client: Any, monkeypatch: pytest.MonkeyPatch, uid: str) -> Iterator[str]:
    yield from private_table(raw_client, monkeypatch, f"ddbguard-audit-entity-{uid}")


def _locks_of(raw_client: Any, table: str, owner: str) -> list[dict[str, Any]]:
    items = raw_client.scan(TableName=table, ConsistentRead=True)["Items"]
    return [item for item in items if item.get("owner", {}).get("S") == owner and item["SK"]["S"] == "LOCK"]


def test_the_product_declares_such_entities() -> None:
    assert "account" in {entity.kind for entity in AUDITED}  # not vacuous: accounts are audited this way


@pytest.mark.parametrize("entity", AUDITED, ids=lambda entity: entity.kind)
def test_the_audit_finds_and_repairs_missing_and_orphaned_locks(
    audit_table: str, raw_client: Any, uid: str, entity: Entity
) -> None:
    sub = f"audit-{uid}"
    kept, lost = (_created(entity, sub, f"{tag}{uid}") for tag in ("k", "l"))
    kept_owner = entity.partition(str(kept[entity.id_field]), sub)
    lost_owner = entity.partition(str(lost[entity.id_field]), sub)
    kept_locks, lost_locks = (
        _locks_of(raw_client, audit_table, kept_owner),
        _locks_of(raw_client, audit_table, lost_owner),
    )
    assert len(kept_locks) >= len(entity.unique) and len(lost_locks) >= len(entity.unique)
    for lock in kept_locks:  # the item stays; its locks vanish
        raw_client.delete_item(TableName=audit_table, Key={"PK": lock["PK"], "SK": lock["SK"]})
    lost_key = entity.key(str(lost[entity.id_field]), sub)  # the item vanishes; its locks stay
    raw_client.delete_item(TableName=audit_table, Key={name: {"S": str(value)} for name, value in lost_key.items()})

    found = lock_audit.audit_locks(repair=True, entities=[entity])

    problems = [finding.problem for finding in found.findings]
    assert sorted(problems) == sorted([MISSING_LOCK] * len(entity.unique) + [ORPHAN_LOCK] * len(lost_locks))
    assert all(finding.repaired for finding in found.findings)
    assert {lock["PK"]["S"] for lock in _locks_of(raw_client, audit_table, kept_owner)} == {
        lock["PK"]["S"] for lock in kept_locks
    }
    assert _locks_of(raw_client, audit_table, lost_owner) == []
    again = lock_audit.audit_locks(entities=[entity])
    assert again.findings == [] and again.clean
