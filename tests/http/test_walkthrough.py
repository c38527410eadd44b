"""The README's walk-through, as a new user runs it: `make run`, then `make invoke FN=<route>` for every
route in the documented order, each answering 2xx; the tools find the service through its state file."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import routes
from local import demo, route_stories
from local.paths import ROOT
from local.walkthrough_reset import ADA_EVENTS
from tests.http.running_service import tool_env

SAM_EVENT = Path(__file__).parent / "events" / "sam_aws_proxy_create_account.json"


def documented_order() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Walk through every route", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^make invoke FN=(\w+)\s*$", section, flags=re.MULTILINE)


def invoke(env: dict, operation: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "local.invoke", operation, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def response_of(completed: subprocess.CompletedProcess) -> dict:
    """The response as Lambda returns it (one JSON line on stdout, `body` a string), with its body decoded."""
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.count("\n") == 1, "the response alone: logs, metrics and REPORT go to stderr"
    response = json.loads(completed.stdout)
    body = response.get("body")
    assert body is None or isinstance(body, str), "Lambda returns the body as a string"
    # stderr, for people (local/log_lines.py): the request's line, then a REPORT line naming the function, a cold start
    operation = completed.args[3]
    assert re.search(rf"^\S+ {operation} +REPORT .*, init [\d.]+ ms, memory \d+ of \d+ MB$", completed.stderr, re.M), (
        completed.stderr
    )
    return {**response, "body": json.loads(body) if body else body}


def header(response: dict, name: str) -> str | None:
    values = (response.get("multiValueHeaders") or {}).get(name) or []
    return values[-1] if values else (response.get("headers") or {}).get(name)


def test_the_readme_documents_every_route_once_in_the_demo_order():
    order = documented_order()
    assert sorted(order) == sorted(route.operation for route in routes.ROUTES)
    assert len(order) == len(routes.ROUTES)
    assert order == list(route_stories.stories())
    assert order == [r.operation for r in sorted(routes.ROUTES, key=lambda r: route_stories.story_of(r).step)]


def test_every_sample_event_answers_2xx_in_the_documented_order(demo_service):
    answers = {}
    for operation in documented_order():
        response = response_of(invoke(demo_service.env, operation))
        answers[operation] = response["statusCode"]
    assert all(200 <= status < 300 for status in answers.values()), answers
    # Invoked again, a money route answers its first response, and says it is a replay.
    again = response_of(invoke(demo_service.env, "withdraw"))
    assert again["statusCode"] == 201 and header(again, "Idempotent-Replayed") == "true"


def seed(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "local.seed"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def walk(env: dict) -> dict[str, int]:
    return {operation: response_of(invoke(env, operation))["statusCode"] for operation in documented_order()}


def test_after_make_seed_the_walkthrough_runs_again_and_seeding_prints_no_metrics(demo_service):
    """A second pass over kept data: once `ada` has been made and deleted, `make seed` lets every event answer 2xx."""
    for operation in ADA_EVENTS:  # a finished pass over `ada`, whether or not another test walked already
        invoke(demo_service.env, operation)
    seeded = seed(demo_service.env)
    assert seeded.returncode == 0, seeded.stderr
    assert "demo world ready" in seeded.stdout
    assert '"_aws"' not in seeded.stdout + seeded.stderr  # replayed seed steps print no raw metric lines
    answers = walk(demo_service.env)
    assert all(200 <= status < 300 for status in answers.values()), answers


def test_sub_and_groups_put_claims_into_any_event(demo_service):
    listed = response_of(invoke(demo_service.env, "list_accounts", "--sub", "bob"))
    assert [a["accountId"] for a in listed["body"]["accounts"]] == [demo.PEER_ACCOUNT]
    admin = response_of(invoke(demo_service.env, "get_account", "--sub", "root", "--groups", "admin"))
    assert admin["statusCode"] == 200 and admin["body"]["accountId"] == demo.MAIN_ACCOUNT


def test_an_event_generated_by_the_sam_cli_works_with_only_its_body_changed(demo_service):
    completed = invoke(demo_service.env, "create_account", "--event", str(SAM_EVENT), "--sub", "sam-user")
    response = response_of(completed)
    assert response["statusCode"] == 201, response
    assert response["body"]["email"] == "sam@example.com"
    assert "invoking it as POST /accounts" in completed.stderr
    # Without SUB the event names no caller: the handler answers 401, and the tool says what to pass.
    anonymous = invoke(demo_service.env, "create_account", "--event", str(SAM_EVENT))
    assert response_of(anonymous)["statusCode"] == 401
    assert "SUB=" in anonymous.stderr


def test_make_invoke_output_pipes_into_json_tool(demo_service):
    completed = subprocess.run(
        f"make invoke FN=get_account | {sys.executable} -m json.tool",
        shell=True,
        cwd=ROOT,
        env=demo_service.env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(json.loads(completed.stdout)["body"])["accountId"] == demo.MAIN_ACCOUNT


def test_a_missing_event_file_is_one_line_not_a_traceback(demo_service):
    completed = invoke(demo_service.env, "withdraw", "--event", "events/no-such-event.json")
    assert completed.returncode == 2 and completed.stdout == ""
    assert completed.stderr.strip().count("\n") == 0 and "Traceback" not in completed.stderr
    assert "no event file events/no-such-event.json" in completed.stderr


def test_seed_again_changes_nothing(demo_service):
    before = response_of(invoke(demo_service.env, "get_statement"))["body"]
    completed = subprocess.run(
        [sys.executable, "-m", "local.seed"],
        cwd=ROOT,
        env=demo_service.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert "demo world ready" in completed.stdout
    after = response_of(invoke(demo_service.env, "get_statement"))["body"]
    assert after == before


def test_token_and_audit_find_the_running_service(demo_service):
    token = subprocess.run(
        [sys.executable, "-m", "local.tokens", "--sub", "alice"],
        cwd=ROOT,
        env=demo_service.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert token.stdout.count(".") == 2 and demo_service.url in token.stderr
    audit = subprocess.run(
        [sys.executable, "-m", "local.audit_locks"],
        cwd=ROOT,
        env=demo_service.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert audit.returncode == 0, audit.stderr
    assert f"lock audit of {demo_service.table}" in audit.stdout and "0 findings" in audit.stdout


@pytest.mark.parametrize("module", ["local.invoke", "local.audit_locks", "local.seed"])
def test_with_nothing_running_the_tools_say_so_and_what_to_do(tmp_path, module):
    env = tool_env(tmp_path / "nothing-runs.json")
    args = ["withdraw"] if module == "local.invoke" else []
    completed = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 2 and completed.stdout == ""
    assert "no local service is running" in completed.stderr
    assert "make run" in completed.stderr and "DYNAMODB_PORT" in completed.stderr


def test_a_sam_event_for_the_route_itself_keeps_working_without_its_sample_query(demo_service, tmp_path):
    """As `sam local generate-event apigateway aws-proxy --resource /accounts --path accounts --body ...` writes it."""
    event = json.loads(SAM_EVENT.read_text())
    body = json.dumps({"email": "sam.resource@example.com", "username": "sam_resource"})
    event.update(resource="/accounts", path="/accounts", body=base64.b64encode(body.encode()).decode())
    event["pathParameters"] = {"proxy": "/accounts"}
    event["requestContext"].update(resourcePath="/accounts", path="/prod/accounts")
    path = tmp_path / "sam_for_accounts.json"
    path.write_text(json.dumps(event))
    completed = invoke(demo_service.env, "create_account", "--event", str(path), "--sub", "sam-user")
    response = response_of(completed)
    assert response["statusCode"] == 201, response
    assert "dropped query parameters this operation does not take: foo" in completed.stderr
