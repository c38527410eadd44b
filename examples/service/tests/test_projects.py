"""The projects API through its own handler, on DynamoDB Local, with ddbguard from the installed wheel: uniqueness,
versioned writes, keyed idempotency, refusals as problem+json, a real race for one slug and the lock audit."""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

from ddbguard.errors import UniqueViolation
from ddbguard.guards import entity_operations
from ddbguard.store.keys import lock_keys
from service import api
from service.project import PROJECT


def call(method: str, path: str, *, sub: str = "alice", body: Any = None, **headers: str) -> dict[str, Any]:
    """One API Gateway (REST) proxy event through the handler, as the stack's `{proxy+}` resource sends it; the answer
    with its JSON body decoded."""
    resource = "/{proxy+}"
    event = {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": {"Content-Type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}},
        "multiValueHeaders": {},
        "queryStringParameters": None,
        "pathParameters": {"proxy": path.lstrip("/")},
        "requestContext": {
            "resourcePath": resource,
            "httpMethod": method,
            "requestId": str(uuid.uuid4()),
            "stage": "v1",
            "authorizer": {"claims": {"sub": sub}},
        },
        "body": None if body is None else json.dumps(body),
        "isBase64Encoded": False,
    }
    answer = api.handler(event, None)  # type: ignore[arg-type]
    headers_out = {name: values[-1] for name, values in (answer.get("multiValueHeaders") or {}).items()}
    headers_out.update(answer.get("headers") or {})
    return {"status": answer["statusCode"], "headers": headers_out, "body": json.loads(answer["body"] or "null")}


def new_slug() -> str:
    return f"p-{uuid.uuid4().hex[:12]}"


def test_a_project_is_created_read_updated_and_deleted_at_its_versions():
    slug = new_slug()
    created = call("POST", "/projects", body={"slug": f"  {slug.upper()} ", "name": "Apollo"})
    assert created["status"] == 201 and created["headers"]["ETag"] == '"0"'
    project = created["body"]
    assert project["slug"] == slug and project["version"] == 0
    path = f"/projects/{project['projectId']}"
    assert created["headers"]["Location"] == path
    assert call("GET", path)["body"] == project
    updated = call("PATCH", path, body={"name": "Apollo 11"}, If_Match='"0"')
    assert updated["status"] == 200 and updated["body"]["version"] == 1 and updated["headers"]["ETag"] == '"1"'
    stale = call("PATCH", path, body={"name": "lost update"}, If_Match='"0"')
    assert stale["status"] == 412 and stale["body"]["code"] == "version_conflict"
    assert stale["headers"]["ETag"] == '"1"' and stale["headers"]["Content-Type"] == "application/problem+json"
    assert call("PATCH", path, body={"name": "no version"})["status"] == 428
    assert call("DELETE", path, If_Match='"0"')["status"] == 412
    assert call("DELETE", path, If_Match='"1"')["status"] == 204
    gone = call("GET", path)
    assert gone["status"] == 404 and gone["body"]["code"] == "project_not_found"


def test_a_taken_slug_is_refused_in_any_case_and_freed_by_a_change_or_a_delete():
    slug, other = new_slug(), new_slug()
    first = call("POST", "/projects", body={"slug": slug, "name": "First"})["body"]
    taken = call("POST", "/projects", sub="bob", body={"slug": slug.upper(), "name": "Second"})
    assert taken["status"] == 409 and taken["body"]["code"] == "unique_violation"
    assert [error["field"] for error in taken["body"]["errors"]] == ["slug"]
    path = f"/projects/{first['projectId']}"
    assert call("PATCH", path, body={"slug": other}, If_Match='"0"')["status"] == 200
    assert call("POST", "/projects", sub="bob", body={"slug": slug, "name": "Second"})["status"] == 201
    assert call("DELETE", path, If_Match='"1"')["status"] == 204
    assert call("POST", "/projects", sub="carol", body={"slug": other, "name": "Third"})["status"] == 201


def test_a_keyed_create_sent_again_answers_its_first_response_and_a_reused_key_is_refused():
    key, body = str(uuid.uuid4()), {"slug": new_slug(), "name": "Keyed"}
    first = call("POST", "/projects", body=body, Idempotency_Key=key)
    again = call("POST", "/projects", body=body, Idempotency_Key=key)
    assert first["status"] == again["status"] == 201 and again["body"] == first["body"]
    assert again["headers"]["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first["headers"]
    reused = call("POST", "/projects", body={**body, "name": "Another"}, Idempotency_Key=key)
    assert reused["status"] == 422 and reused["body"]["code"] == "idempotency_key_reused"
    path = f"/projects/{first['body']['projectId']}"
    update = {"name": "Keyed, renamed"}
    changed = call("PATCH", path, body=update, If_Match='"0"', Idempotency_Key=key + "-patch")
    replayed = call("PATCH", path, body=update, If_Match='"0"', Idempotency_Key=key + "-patch")
    assert changed["body"]["version"] == 1 and replayed["body"] == changed["body"]
    assert replayed["headers"]["Idempotent-Replayed"] == "true"


def test_bad_input_is_a_clear_4xx_and_writes_nothing():
    slug = new_slug()
    missing = call("POST", "/projects", body={"slug": slug})
    assert missing["status"] == 422 and [e["field"] for e in missing["body"]["errors"]] == ["name"]
    invalid = call("POST", "/projects", body={"slug": "x!", "name": "Bad slug"})
    assert invalid["status"] == 422 and invalid["body"]["errors"][0]["field"] == "slug"
    assert call("POST", "/projects", body=["not", "an", "object"])["status"] == 422
    assert call("PATCH", "/projects/any", body={"name": "x"}, If_Match="not-an-etag")["status"] == 400
    # Nothing was written: the slug is still free.
    assert call("POST", "/projects", body={"slug": slug, "name": "Now valid"})["status"] == 201


def test_twenty_callers_racing_for_one_slug_leave_exactly_one_project(raw_client):
    """Real threads, one write each, released together: DynamoDB's transaction decides, one wins."""
    slug, callers = new_slug(), 20
    start = threading.Barrier(callers)
    outcomes: list[object] = [None] * callers

    def claim(index: int) -> None:
        start.wait()
        try:
            outcomes[index] = entity_operations.create(PROJECT, f"racer-{index}", {"slug": slug, "name": "Racer"})
        except UniqueViolation as refused:
            outcomes[index] = refused

    threads = [threading.Thread(target=claim, args=(index,)) for index in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [outcome for outcome in outcomes if isinstance(outcome, dict)]
    refusals = [outcome for outcome in outcomes if isinstance(outcome, UniqueViolation)]
    assert len(winners) == 1 and len(refusals) == callers - 1
    assert all(refusal.fields == ["slug"] for refusal in refusals)
    for key in lock_keys("SLUG", slug):  # each lock of the value, held by the winner alone
        lock = raw_client.get_item(TableName="projects-test", Key=_wire(key), ConsistentRead=True)
        assert lock["Item"]["owner"]["S"] == f"PROJECT#{winners[0]['projectId']}"


def _wire(key: dict[str, str]) -> dict[str, dict[str, str]]:
    return {name: {"S": value} for name, value in key.items()}


class _Context:
    """What the audit worker reads of Lambda's context."""

    function_name = "projects-audit-locks"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:projects-audit-locks"
    aws_request_id = "audit-step"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 300_000


def test_the_lock_audit_from_the_wheel_repairs_an_orphaned_slug_lock(raw_client):
    """The worker GuardedTable deploys (ddbguard_jobs, DDBGUARD_ENTITY_MODULES=service.project) finds a lock whose
    project never existed and deletes it, so the slug is free again."""
    from ddbguard_jobs import audit_locks

    slug = new_slug()
    (key,) = lock_keys("SLUG", slug)
    orphan = {**_wire(key), "kind": {"S": "lock"}, "owner": {"S": "PROJECT#never-created"}}
    raw_client.put_item(TableName="projects-test", Item={**orphan, "field": {"S": "slug"}, "value": {"S": slug}})
    step = audit_locks.handler({"segment": 0, "totalSegments": 1, "checkpoint": None}, _Context())
    assert step["done"] is True and step["findings"] >= 1
    assert "Item" not in raw_client.get_item(TableName="projects-test", Key=_wire(key), ConsistentRead=True)
    assert call("POST", "/projects", body={"slug": slug, "name": "Freed"})["status"] == 201
