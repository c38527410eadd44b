"""The local server's execution environments: OS processes per function, one invocation at a time each.

Real processes (`local.lambda_runtime`) serving a stand-in handler (tests/support/echo_handler.py) that
reports its pid and its module's invocation count, and one real route through the HTTP server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from ddbguard.release import VERSION
from local.environments import InvocationFailed, ProcessEnvironments
from local.lambda_context import LambdaContext
from local.paths import ROOT
from local.server import LocalApiServer

ECHO = "tests.support.echo_handler"


@dataclass(frozen=True)
class EchoRoute:
    handler: str = ECHO
    operation: str = "echo"


@pytest.fixture
def environments():
    pool = ProcessEnvironments(quiet=True, max_per_function=3)
    yield pool
    pool.close()


def _echo(pool: ProcessEnvironments, **event) -> dict:
    return pool.invoke(EchoRoute(), event, LambdaContext(function_name="ddbguard-echo"))


def test_a_warm_environment_keeps_its_module_state_and_a_busy_one_is_never_shared(environments):
    first, second = _echo(environments), _echo(environments)
    assert first["pid"] == second["pid"] != os.getpid()
    assert (first["invocations"], second["invocations"]) == (1, 2)
    with ThreadPoolExecutor(max_workers=3) as pool:
        at_once = list(pool.map(lambda _: _echo(environments, sleep_s=0.5), range(3)))
    pids = {reply["pid"] for reply in at_once}
    assert len(pids) == 3  # three invocations at once: three environments, each its own process
    assert sum(reply["invocations"] for reply in at_once) == 3 + 1 + 1  # the warm one, then two cold ones


def test_past_the_limit_requests_wait_for_a_free_environment(environments):
    with ThreadPoolExecutor(max_workers=6) as pool:
        replies = list(pool.map(lambda _: _echo(environments, sleep_s=0.3), range(6)))
    assert len({reply["pid"] for reply in replies}) == 3
    assert sorted(reply["invocations"] for reply in replies) == [1, 1, 1, 2, 2, 2]


def test_a_handler_that_raises_gets_lambdas_error_payload_and_its_environment_stays(environments):
    served = _echo(environments)
    with pytest.raises(InvocationFailed) as failed:
        _echo(environments, **{"raise": True})
    assert failed.value.payload["errorType"] == "RuntimeError"
    assert failed.value.payload["errorMessage"] == "asked to fail"
    after = _echo(environments)
    assert after["pid"] == served["pid"] and after["invocations"] == 3


def test_a_dead_environment_is_replaced_by_a_cold_one(environments):
    served = _echo(environments)
    (idle,) = environments.function(ECHO).idle
    os.kill(served["pid"], signal.SIGKILL)
    idle.process.wait(10)  # it died while idle
    again = _echo(environments)
    assert again["pid"] != served["pid"] and again["invocations"] == 1


def test_an_environment_killed_mid_invocation_fails_that_invocation_only(environments):
    served = _echo(environments)
    killer = threading.Timer(0.3, os.kill, (served["pid"], signal.SIGKILL))
    killer.start()
    with pytest.raises(InvocationFailed):
        _echo(environments, sleep_s=5)
    assert _echo(environments)["invocations"] == 1


def test_close_stops_every_environment(environments):
    pid = _echo(environments)["pid"]
    environments.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_each_invocation_logs_a_report_line_with_init_duration_on_the_cold_start():
    """As CloudWatch Logs holds it (LOG_FORMAT=json): Lambda's REPORT line, Init Duration on the cold start only."""
    runtime = subprocess.Popen(
        [sys.executable, "-m", "local.lambda_runtime", ECHO],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "LOG_FORMAT": "json"},
    )
    invocation = {"event": {}, "context": {"function_name": "ddbguard-echo", "timeout_s": 3, "aws_request_id": "r1"}}
    second = {**invocation, "context": {**invocation["context"], "aws_request_id": "r2"}}
    stdin = (json.dumps(invocation) + "\n" + json.dumps(second) + "\n").encode()
    out, err = runtime.communicate(stdin, timeout=120)
    replies = [json.loads(line)["response"] for line in out.splitlines()]
    assert [reply["requestId"] for reply in replies] == ["r1", "r2"]
    reports = [line for line in err.decode().splitlines() if line.startswith("REPORT ")]
    assert len(reports) == 2
    cold, warm = (dict(field.split(": ", 1) for field in line[len("REPORT ") :].split("\t")) for line in reports)
    assert cold["RequestId"] == "r1" and float(cold["Init Duration"].removesuffix(" ms")) > 0
    assert "Init Duration" not in warm and float(warm["Duration"].removesuffix(" ms")) >= 0
    assert int(warm["Max Memory Used"].removesuffix(" MB")) > 0
    assert runtime.returncode == 0  # stdin closed: the environment ends


def test_the_server_runs_each_function_in_processes_of_its_own(dynamodb_local):
    server = LocalApiServer("127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(f"{server.url}/health", timeout=120) as response:
            assert (response.status, json.loads(response.read())) == (200, {"status": "ok", "version": VERSION})
        health = server.environments.function("health.check_health")
        assert len(health.idle) == 1 and health.idle[0].pid != os.getpid() and health.idle[0].alive()
        process = health.idle[0]
    finally:
        server.shutdown()
        server.server_close()
    assert not process.alive()
