"""What `make run`'s terminal shows, and the debugger it offers: one readable line per request naming the function
and its outcome, REPORT lines with each function's own memory, the settler's metrics as METRICS lines;
LOG_FORMAT=json for the lines as deployed; DEBUG=<function> answering the Debug Adapter Protocol's handshake."""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from local import demo
from local.dynamodb_local import free_port
from local.tokens import make_token
from tests.http.running_service import RunningService, get, running_service

# A readiness bound, not a speed target: a line appears within milliseconds of its request on an idle machine.
WAIT_S = 120


def _wait_for(service: RunningService, since: int, found: Callable[[str], bool]) -> str:
    """The first line of the service's output after line `since` for which `found` holds."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for line in service.output[since:]:
            if found(line):
                return line
        time.sleep(0.1)
    raise AssertionError("no such line:\n" + "".join(service.output[since:]))


def _post(url: str, body: dict, headers: dict) -> int:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _peak_memory_mb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)[1]) // 1024


def test_each_request_is_one_readable_line_with_its_function_and_outcome(demo_service: RunningService) -> None:
    since = len(demo_service.output)
    token = make_token(demo.OWNER)
    deposits = f"{demo_service.url}/accounts/{demo.MAIN_ACCOUNT}/ledger/deposits"
    key = {"Authorization": f"Bearer {token}", "Idempotency-Key": f"terminal-{uuid.uuid4().hex}"}
    assert _post(deposits, {"amountCents": 1}, key) == 201
    assert _post(deposits, {"amountCents": 1}, key) == 201  # the same key again: the first answer, replayed
    assert _post(deposits, {"amountCents": 0}, {**key, "Idempotency-Key": uuid.uuid4().hex}) == 422
    assert get(f"{demo_service.url}/health")[0] == 200

    line = _wait_for(demo_service, since, lambda text: " deposit " in text and "status=201" in text)
    assert re.fullmatch(
        r"\d\d:\d\d:\d\d\.\d{3} deposit +INFO +POST /accounts/\{accountId\}/ledger/deposits  status=201  calls=\d+\n",
        line,
    ), line
    replayed = _wait_for(demo_service, since, lambda text: " deposit " in text and "replayed=true" in text)
    assert "status=201" in replayed and "calls=" in replayed
    refused = _wait_for(demo_service, since, lambda text: " deposit " in text and "status=422" in text)
    assert "code=" in refused and "guard=edge." in refused, refused
    assert demo.MAIN_ACCOUNT not in "".join(demo_service.output[since:])  # the route's template, never its ids
    # The REPORT line names the function and its own memory: the health function imports no boto3, so its
    # environment peaks far below the server's process (which once was the figure every REPORT showed).
    report = _wait_for(demo_service, since, lambda text: re.search(r" check_health +REPORT ", text) is not None)
    health_mb = int(re.search(r"memory (\d+) of 256 MB", report)[1])
    assert health_mb < _peak_memory_mb(demo_service.process.pid), report
    # The settler (in the server's process) settles the deposit: its metrics read like the functions'.
    metrics = _wait_for(demo_service, since, lambda text: text.startswith("METRICS ") and "SettledEntries" in text)
    assert not metrics.startswith("{") and "Count" in metrics


@pytest.fixture(scope="module")
def raw_debug_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningService, int]]:
    """`make run LOG_FORMAT=json DEBUG=check_health,deposit`, its first debug port free (DEBUG_PORT)."""
    first_port = free_port()
    variables = {"LOG_FORMAT": "json", "DEBUG": "check_health,deposit", "DEBUG_PORT": str(first_port)}
    with running_service(tmp_path_factory.mktemp("make-run-debug"), seed=False, extra_env=variables) as service:
        yield service, first_port


def test_log_format_json_prints_the_lines_as_deployed(raw_debug_service: tuple[RunningService, int]) -> None:
    service, _port = raw_debug_service
    since = len(service.output)
    assert get(f"{service.url}/health")[0] == 200
    record = json.loads(_wait_for(service, since, lambda text: text.startswith("{") and '"GET /health"' in text))
    assert (record["level"], record["status"], record["function_name"]) == ("INFO", 200, "ddbguard-check_health")
    _wait_for(service, since, lambda text: text.startswith("REPORT RequestId: ") and "\tMax Memory Used: " in text)


def _dap_message(connection: socket.socket, buffer: bytearray) -> dict:
    """One Debug Adapter Protocol message: `Content-Length: n` header, blank line, n bytes of JSON."""
    while b"\r\n\r\n" not in buffer:
        buffer += connection.recv(65536) or b""
    header, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", header)[1])
    while len(rest) < length:
        rest += connection.recv(65536)
    buffer[:] = rest[length:]
    return json.loads(rest[:length])


def _dap_request(connection: socket.socket, seq: int, command: str, arguments: dict) -> None:
    body = json.dumps({"seq": seq, "type": "request", "command": command, "arguments": arguments}).encode()
    connection.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def _dap_response(connection: socket.socket, buffer: bytearray, command: str) -> dict:
    while True:
        message = _dap_message(connection, buffer)
        if message.get("type") == "response" and message.get("command") == command:
            return message


def test_debug_names_each_functions_port_and_a_debugger_attaches(raw_debug_service: tuple[RunningService, int]) -> None:
    service, first_port = raw_debug_service
    printed = "".join(service.output)
    assert re.search(rf"check_health +127\.0\.0\.1:{first_port}\b", printed), printed
    assert re.search(rf"deposit +127\.0\.0\.1:{first_port + 1}\b", printed), printed
    assert get(f"{service.url}/health")[0] == 200  # the environment starts (and listens) at its first request
    _wait_for(service, 0, lambda text: f"listens for a debugger on 127.0.0.1:{first_port}" in text)
    with socket.create_connection(("127.0.0.1", first_port), timeout=WAIT_S) as connection:
        buffer = bytearray()
        _dap_request(connection, 1, "initialize", {"adapterID": "debugpy", "clientID": "ddbguard-test"})
        initialized = _dap_response(connection, buffer, "initialize")
        assert initialized["success"], initialized
        assert initialized["body"]["supportsConfigurationDoneRequest"]
        _dap_request(connection, 2, "attach", {"justMyCode": False})
        _dap_request(connection, 3, "configurationDone", {})
        attached = _dap_response(connection, buffer, "attach")
        assert attached["success"], attached
        _dap_request(connection, 4, "disconnect", {"terminateDebuggee": False})
        _dap_response(connection, buffer, "disconnect")
    assert get(f"{service.url}/health")[0] == 200  # serving on, the debugger gone
