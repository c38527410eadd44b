"""The guide's worked example (examples/teams), declared here beside the product's routes, gets every check.

`TEAM_ROUTES` joins the route table for this module only. Then, with no other edit: the route facts, the OpenAPI
document (refusals, constraints, examples), the slug's rule, the sample events in walk-through order (twice, with
the reset between), the ownership matrix, the table access each function needs, a 20-way race for one slug over
HTTP, schemathesis with every check and phase, and the lock audit finding a planted orphan slug lock.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

import routes
from ddbguard.domain import lock_audit
from ddbguard.errors import InvalidInput
from examples.teams.routes import TEAM_ROUTES
from examples.teams.team import TEAM
from local import audit_locks as audit_command
from local import route_stories, schemathesis_config, walkthrough_reset
from local.api_models import request_model
from local.events import sample_event
from local.in_process import InProcessEnvironments, new_environment
from local.invocation import running
from local.lambda_context import LambdaContext
from local.openapi import build_document
from local.server import LocalApiServer
from local.tokens import make_token
from tests.support.declared_beside import declared_beside
from tests.support.private_table import private_table
from tests.support.table_access import SESSION_LOG, ungranted_calls
from tests.unit import test_route_facts

RACERS = 20
SCHEMATHESIS_EXAMPLES = 3  # as tests/api/test_schemathesis_cli.py runs the product's in make test
TEAM_FUNCTIONS = {route.operation for route in TEAM_ROUTES}


@pytest.fixture(scope="module", autouse=True)
def beside_the_product() -> Iterator[tuple[routes.Route, ...]]:
    """The product's routes and the team's, as if the team were declared in functions/routes/ and regenerated."""
    with declared_beside(TEAM_ROUTES, (TEAM,)):
        yield routes.ROUTES
        # The session's least-privilege check judges the product's functions; the team's are judged here.
        for function in TEAM_FUNCTIONS:
            SESSION_LOG.observed.pop(function, None)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return build_document()


def by_method(method: str) -> routes.Route:
    return next(route for route in TEAM_ROUTES if route.method == method)


def invoke(route: routes.Route, event: dict[str, Any]) -> dict[str, Any]:
    """On a fresh environment each time, as after `make run` restarts: no warm replay cache."""
    with running(route.operation):
        return new_environment(route.handler)(event, LambdaContext(function_name=f"ddbguard-{route.operation}"))


# --- declarations ---------------------------------------------------------------------------------


def test_the_route_facts_hold_for_the_team_routes_too() -> None:
    test_route_facts.test_every_route_states_its_facts()
    create, get, update, delete = (by_method(m) for m in ("POST", "GET", "PATCH", "DELETE"))
    assert [r.key for r in TEAM_ROUTES] == ["POST /teams", "GET /teams/{teamId}", "PATCH /teams/{teamId}",
                                            "DELETE /teams/{teamId}"]  # fmt: skip
    assert (create.status, create.location, create.body, create.response) == (
        201,
        "/teams/{teamId}",
        "CreateTeam",
        "Team",
    )
    assert create.problems[409] == ("unique_violation", "already_exists")
    assert update.problems[409] == ("unique_violation",) and update.body == "UpdateTeam" and update.if_match
    assert (delete.status, delete.response, delete.if_match) == (204, None, True)
    assert get.not_found_code("teamId") == "team_not_found"
    assert create.table_access == {"PutItem": ("TEAM#*", "UNIQ#SLUG#*", "REQ#*")}
    audited = {e.kind for e in routes.ENTITIES if e.unique}
    assert "team" in audited


def test_openapi_lists_each_methods_refusals_and_the_declared_constraints(document: dict[str, Any]) -> None:
    create = document["paths"]["/teams"]["post"]
    assert create["tags"] == ["teams"] and create["summary"] == "Create a team, its slug unique"
    assert (
        "unique_violation"
        in create["responses"]["409"]["content"]["application/problem+json"]["schema"]["properties"]["code"]["enum"]
    )
    update = document["paths"]["/teams/{teamId}"]["patch"]
    assert {"409", "412", "422", "428"} <= set(update["responses"])
    schemas = document["components"]["schemas"]
    slug = schemas["CreateTeam"]["properties"]["slug"]
    assert (slug["pattern"], slug["minLength"], slug["maxLength"]) == ("^[A-Za-z0-9-]{3,40}$", 3, 40)
    seats = schemas["CreateTeam"]["properties"]["seats"]
    assert (seats["minimum"], seats["maximum"]) == (1, 500)
    assert set(schemas["CreateTeam"]["required"]) == {"slug", "name", "seats"}
    assert "required" not in schemas["UpdateTeam"] and len(schemas["UpdateTeam"]["anyOf"]) == 3
    assert set(schemas["Team"]["required"]) == set(TEAM.public)
    for name in ("CreateTeam", "UpdateTeam"):  # every example is admitted by the document and the service
        for example in schemas[name]["examples"]:
            validator = jsonschema.Draft202012Validator({**schemas[name], "components": document["components"]})
            assert validator.is_valid(example), (name, example)
            request_model(name).model_validate(example)
    assert not jsonschema.Draft202012Validator(
        {**schemas["UpdateTeam"], "components": document["components"]}
    ).is_valid({})


@pytest.mark.parametrize(
    "value", ["abc", "core-team", "Core-Team", "a" * 40, "ab", "a" * 41, "a_b", "a.b", "a!b", "---", "a" * 300]
)
def test_an_ascii_slug_is_admitted_by_the_document_exactly_when_the_service_accepts_it(
    document: dict[str, Any], value: str
) -> None:
    schema = document["components"]["schemas"]["CreateTeam"]["properties"]["slug"]
    assert jsonschema.Draft202012Validator(schema).is_valid(value) == _service_accepts_slug(value), value


@pytest.mark.parametrize("spelling", [" core-team ", "\uff23ore-team", "stra\u00dfe"])
def test_other_spellings_that_normalise_into_the_rule_are_accepted_too(spelling: str) -> None:
    """As for usernames: the document states the normalised form's rule; spellings that normalise into it pass."""
    assert _service_accepts_slug(spelling)


@pytest.mark.parametrize("refused", ["a b", "\u00e9mile", "ab", "a_b", "x" * 41])
def test_the_slugs_rule_refuses_what_it_does_not_admit(refused: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        TEAM.normalised({"slug": refused})
    assert [(e.field, e.code) for e in raised.value.errors] == [("slug", "invalid_format")]


def _service_accepts_slug(value: str) -> bool:
    try:
        request_model("CreateTeam").model_validate({"slug": value, "name": "n", "seats": 1})
        TEAM.normalised({"slug": value})
    except (ValidationError, InvalidInput):
        return False
    return True


# --- over HTTP, against DynamoDB Local ----------------------------------------------------------


def test_the_sample_events_run_in_walkthrough_order_twice(dynamodb_local) -> None:
    ordered = sorted(TEAM_ROUTES, key=lambda r: route_stories.story_of(r).step)
    walkthrough_reset.reset_finished_walkthrough()  # a rerun of this module in one session starts clean
    for attempt in ("first pass", "second pass"):
        answers = [invoke(route, sample_event(route))["statusCode"] for route in ordered]
        assert answers == [201, 200, 200, 204], (attempt, answers)
        # `make seed` between passes: the demo team is gone, so its events' markers go too.
        assert walkthrough_reset.reset_finished_walkthrough() > 0


def test_another_caller_gets_what_a_free_id_gets_and_changes_nothing(api, uid) -> None:
    owner, other = f"owner-{uid}", f"other-{uid}"
    created = api.post("/teams", {"slug": f"t-{uid}", "name": "Mine", "seats": 3}, sub=owner)
    assert created.status == 201 and created.header("Location") == f"/teams/{created.json['teamId']}"
    assert created.header("ETag") == '"0"'
    team = created.json["teamId"]
    for method, body in (("get", None), ("patch", {"seats": 9}), ("delete", None)):
        kwargs: dict[str, Any] = {"sub": other, **({"if_match": 0} if method != "get" else {})}
        if body is not None:
            kwargs["body"] = body
        theirs = getattr(api, method)(f"/teams/{team}", **kwargs)
        free = getattr(api, method)(f"/teams/free-{uid}", **kwargs)
        assert (theirs.status, theirs.code) == (free.status, free.code) == (404, "team_not_found"), method
        assert json.dumps(theirs.json).replace(team, "X") == json.dumps(free.json).replace(f"free-{uid}", "X")
    assert api.get(f"/teams/{team}", sub=owner).json == created.json


def test_a_change_of_nothing_is_422_and_the_version_stays(api, uid) -> None:
    created = api.post("/teams", {"slug": f"n-{uid}", "name": "Still", "seats": 2}, sub="alice")
    team = created.json["teamId"]
    for body in ({}, {"slug": None, "name": None}):
        nothing = api.patch(f"/teams/{team}", body, sub="alice", if_match=0)
        assert (nothing.status, nothing.code) == (422, "validation_failed"), body
    bad = api.patch(f"/teams/{team}", {"slug": "no spaces"}, sub="alice", if_match=0)
    assert (bad.status, [e["field"] for e in bad.json["errors"]]) == (422, ["slug"])
    assert api.get(f"/teams/{team}", sub="alice").json == created.json


def test_every_call_of_the_team_functions_is_granted() -> None:
    observed = {f: a for f, a in SESSION_LOG.as_json().items() if f in TEAM_FUNCTIONS}
    assert set(observed) == TEAM_FUNCTIONS, observed  # the tests above ran every team function
    assert ungranted_calls(observed) == []


def test_twenty_racing_creates_of_one_slug_one_team_and_nineteen_409s(api, uid) -> None:
    spellings = [f"Race-{uid}", f"race-{uid}", f"RACE-{uid}", f" race-{uid} "]
    start = threading.Barrier(RACERS)

    def create(n: int) -> Any:
        start.wait()
        return api.post("/teams", {"slug": spellings[n % 4], "name": f"t{n}", "seats": 1}, sub=f"racer-{n}-{uid}")

    with ThreadPoolExecutor(RACERS) as pool:
        answers = list(pool.map(create, range(RACERS)))
    assert sorted(a.status for a in answers) == [201] + [409] * (RACERS - 1)
    losers = [a for a in answers if a.status == 409]
    assert all(a.code == "unique_violation" and [e["field"] for e in a.json["errors"]] == ["slug"] for a in losers)
    winner = next(a.json for a in answers if a.status == 201)
    assert winner["slug"] == f"race-{uid}"


@pytest.fixture
def team_table(dynamodb_local, raw_client, monkeypatch, uid) -> Iterator[str]:
    """A table of its own: the lock audit scans all of it."""
    yield from private_table(raw_client, monkeypatch, f"ddbguard-teams-{uid}")


@pytest.fixture(scope="module")
def team_server(dynamodb_local) -> Iterator[str]:
    """The local server with handlers in this process, so it serves the routes as this module declares them."""
    server = LocalApiServer("127.0.0.1", 0, quiet=True, environments=InProcessEnvironments(reuse=True))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    yield server.url
    server.shutdown()
    server.server_close()


def test_schemathesis_with_every_check_and_phase_on_the_team_routes(team_server, tmp_path) -> None:
    """As tests/api/test_schemathesis_cli.py runs the product's, on a document and a schemathesis.toml generated
    with the team's routes declared (both are generated from the route table)."""
    (tmp_path / "openapi.json").write_text(json.dumps(build_document()), encoding="utf-8")
    (tmp_path / "schemathesis.toml").write_text(schemathesis_config.render(), encoding="utf-8")
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        str(tmp_path / "openapi.json"),
        "--url",
        team_server,
        "--include-path-regex",
        "^/teams",
        "--checks",
        "all",
        "--max-examples",
        str(SCHEMATHESIS_EXAMPLES),
        "--seed",
        "1",
        "--no-color",
        "-H",
        f"Authorization: Bearer {make_token('schemathesis-teams')}",
    ]
    completed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-6000:]
    assert f"Tested: {len(TEAM_ROUTES)}" in output, output[-3000:]  # the team's operations, and only those
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in output, output[-3000:]


def test_the_lock_audit_finds_a_planted_orphan_slug_lock(
    api, raw_client, team_table, dynamodb_local, monkeypatch, capsys
) -> None:
    kept = api.post("/teams", {"slug": "kept-team", "name": "Kept", "seats": 4}, sub="alice")
    assert kept.status == 201, kept.json
    ghost = TEAM.partition("ghost", "alice")
    raw_client.put_item(
        TableName=team_table, Item={"PK": {"S": "UNIQ#SLUG#orphan"}, "SK": {"S": "LOCK"}, "owner": {"S": ghost}}
    )
    found = lock_audit.audit_locks()  # every declared entity: nothing in the audit names teams
    assert [(f.problem, f.entity, f.field, f.value) for f in found.findings] == [
        (lock_audit.ORPHAN_LOCK, "team", "slug", "orphan")
    ]
    assert found.scanned_by_kind == {"team": 1}

    # `make audit-locks` says it too, counting the items of every audited entity.
    monkeypatch.setenv("DYNAMODB_PORT", str(dynamodb_local.port))
    assert audit_command.main([]) == 1
    printed = capsys.readouterr().out
    audited = lock_audit.audited_entities(routes.ENTITIES)  # the product's and the team: each counted
    counted = ", ".join(f"{1 if e.kind == TEAM.kind else 0} {e.kind} items" for e in audited)
    assert f"{counted}, 1 findings" in printed and "orphan" in printed, printed
