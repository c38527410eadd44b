"""`ddbguard_api.resolver.Guard` on Powertools' APIGatewayRestResolver, against DynamoDB Local: a team's own routes
get ddbguard's answers (problem+json refusals, If-Match, keyed replays, body checks). examples/service/ runs the
same from the installed wheel (`make example`)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from ddbguard.guards import entity_operations as operations
from ddbguard_api.resolver import Guard
from examples.teams.team import TEAM

app = APIGatewayRestResolver()
guard = Guard(app)


@app.post("/teams")
def create_team() -> Response[str]:
    values = guard.create_values(TEAM)
    item_id = values.pop(TEAM.id_field, None)
    item = operations.create(TEAM, guard.caller(), values, item_id=item_id, identity=guard.identity())  # type: ignore[arg-type]
    return guard.created(item, f"/teams/{item[TEAM.id_field]}")


@app.patch("/teams/<team_id>")
def update_team(team_id: str) -> Response[str]:
    values, version = guard.update_values(TEAM), guard.expected_version()
    return guard.ok(operations.update(TEAM, team_id, guard.caller(), version, values, identity=guard.identity()))


def call(method: str, path: str, *, sub: str | None = "alice", body: Any = None, **headers: str) -> dict[str, Any]:
    event = {
        "resource": "/{proxy+}",
        "path": path,
        "httpMethod": method,
        "headers": {"Content-Type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}},
        "multiValueHeaders": {},
        "pathParameters": {"proxy": path.lstrip("/")},
        "requestContext": {
            "resourcePath": "/{proxy+}",
            "httpMethod": method,
            "requestId": str(uuid.uuid4()),
            "stage": "v1",
            "authorizer": {"claims": {"sub": sub}} if sub else {},
        },
        "body": None if body is None else json.dumps(body),
        "isBase64Encoded": False,
    }
    answer = app.resolve(event, None)  # type: ignore[arg-type]
    out = {name: values[-1] for name, values in (answer.get("multiValueHeaders") or {}).items()}
    out.update(answer.get("headers") or {})
    return {"status": answer["statusCode"], "headers": out, "body": json.loads(answer["body"] or "null")}


def _team() -> dict[str, Any]:
    return {"slug": f"t-{uuid.uuid4().hex[:10]}", "name": "Resolver team", "seats": 3}


def test_a_keyed_create_answers_once_and_a_replay_says_so(dynamodb_local):
    key, body = str(uuid.uuid4()), _team()
    first = call("POST", "/teams", body=body, Idempotency_Key=key)
    again = call("POST", "/teams", body=body, Idempotency_Key=key)
    assert first["status"] == again["status"] == 201 and first["headers"]["ETag"] == '"0"'
    assert again["body"] == first["body"] and again["headers"]["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first["headers"]
    reused = call("POST", "/teams", body={**body, "seats": 4}, Idempotency_Key=key)
    assert reused["status"] == 422 and reused["body"]["code"] == "idempotency_key_reused"


def test_refusals_are_problem_documents_with_their_status(dynamodb_local):
    body = _team()
    team = call("POST", "/teams", body=body)["body"]
    path = f"/teams/{team['teamId']}"
    taken = call("POST", "/teams", sub="bob", body={**body, "slug": body["slug"].upper()})
    assert taken["status"] == 409 and [e["field"] for e in taken["body"]["errors"]] == ["slug"]
    assert taken["headers"]["Content-Type"] == "application/problem+json"
    assert call("PATCH", path, body={"seats": 4})["status"] == 428
    assert call("PATCH", path, body={"seats": 4}, If_Match='"0"')["headers"]["ETag"] == '"1"'
    stale = call("PATCH", path, body={"seats": 5}, If_Match='"0"')
    assert stale["status"] == 412 and stale["headers"]["ETag"] == '"1"' and stale["body"]["code"] == "version_conflict"
    invalid = call("PATCH", path, body={"seats": "many"}, If_Match='"1"')
    assert invalid["status"] == 422 and invalid["body"]["errors"][0]["field"] == "seats"
    assert call("PATCH", path, body={"seats": 4}, If_Match="nope")["status"] == 400
    assert call("POST", "/teams", sub=None, body=_team())["status"] == 401
