"""Every grant a generic resource's routes hold is needed, shown on each resource the route table declares with a
generic create, update and delete: its keyed and unkeyed paths, a change of each unique field (a lock swap), and
both deletes. tests/test_table_access.py judges the grants over the whole suite; this test makes the calls a
resource added by docs/extending.md needs there, with no test of its own written for it.
"""

from __future__ import annotations

import uuid

import pytest

import routes
from ddbguard.guards.entity import Entity
from local.api_client import ApiClient
from local.route_stories import fresh_body, fresh_value, sample_body


def _crud(entity: Entity) -> dict[str, routes.Route]:
    return {r.method: r for r in routes.ROUTES if r.generic and r.entity is entity}


CRUD_ENTITIES = [e for e in routes.ENTITIES if {"POST", "PATCH", "DELETE"} <= set(_crud(e))]


def _key() -> str:
    return f"grants-{uuid.uuid4()}"


def test_the_product_declares_such_a_resource() -> None:
    assert "account" in {entity.kind for entity in CRUD_ENTITIES}  # not vacuous: accounts are served this way


@pytest.mark.parametrize("entity", CRUD_ENTITIES, ids=lambda entity: entity.kind)
def test_each_path_of_the_generic_routes_runs(api: ApiClient, uid: str, entity: Entity) -> None:
    sub, crud = f"grants-{uid}", _crud(entity)
    create, update, delete = crud["POST"], crud["PATCH"], crud["DELETE"]

    def created(tag: str) -> str:
        answer = api.post(create.path, fresh_body(create, tag), sub=sub, idempotency_key=_key())
        assert answer.status == 201, answer.json
        return str(answer.json[entity.id_field])

    def at(item_id: str, route: routes.Route) -> str:
        return route.path.replace(f"{{{entity.id_field}}}", item_id)

    item = created(uid)
    if "GET" in crud:
        assert api.get(at(item, crud["GET"]), sub=sub).status == 200
    plain = api.patch(at(item, update), sample_body(update), sub=sub, if_match=0)  # unkeyed, no unique value
    assert plain.status == 200, plain.json
    version = 1
    updatable = [(u.field, entity.fields[u.field]) for u in entity.unique if entity.fields[u.field].updatable]
    for number, (name, spec) in enumerate(updatable):  # unkeyed, then keyed: each lock swapped both ways
        for key in (None, _key()):
            value = fresh_value(name, spec, f"{uid[:6]}{number}{0 if key is None else 1}{uid[6:]}")
            moved = api.patch(at(item, update), {name: value}, sub=sub, if_match=version, idempotency_key=key)
            assert moved.status == 200, (name, moved.json)
            version += 1
    assert api.delete(at(item, delete), sub=sub, if_match=version).status == 204  # unkeyed
    other = created(uid[::-1])
    assert api.delete(at(other, delete), sub=sub, if_match=0, idempotency_key=_key()).status == 204  # keyed
