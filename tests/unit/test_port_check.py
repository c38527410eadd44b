"""`make run`'s port check: a port held by another program names its variable; our own service is told apart."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from local.dynamodb_local import free_port
from local.port_check import port_problem
from local.service_state import STATE_FILE_VARIABLE, RunningService, write_state


@pytest.fixture(autouse=True)
def own_state_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_FILE_VARIABLE, str(tmp_path / "run.json"))


@pytest.fixture
def listening() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_free_ports_pass() -> None:
    assert port_problem(free_port(), free_port()) is None


def test_a_taken_api_port_names_port(listening: int) -> None:
    problem = port_problem(listening, free_port())
    assert problem is not None and f"port {listening} is taken by another program" in problem
    assert "set PORT to a free port" in problem


def test_a_taken_dynamodb_port_names_dynamodb_port(listening: int) -> None:
    problem = port_problem(free_port(), listening)
    assert problem is not None and "set DYNAMODB_PORT to a free port" in problem


def test_our_own_running_service_is_already_running_not_port_taken(listening: int) -> None:
    api_port = free_port()
    write_state(
        RunningService(
            pid=os.getpid(),  # alive: this process stands in for the first `make run`
            api_url=f"http://127.0.0.1:{api_port}",
            api_port=api_port,
            dynamodb_endpoint=f"http://127.0.0.1:{listening}",
            dynamodb_port=listening,
            table="ddbguard",
        )
    )
    problem = port_problem(api_port, listening)
    assert problem is not None and "is already running" in problem and "taken by another program" not in problem
    assert f"pid {os.getpid()}" in problem and "DDB_DATA_DIR=memory" in problem


def test_make_run_with_a_taken_port_starts_nothing(listening: int, tmp_path: Path) -> None:
    """Before DynamoDB Local, the table or the seed: one line naming the variable, exit status 1."""
    import subprocess
    import sys

    from local.paths import ROOT

    env = {
        **os.environ,
        "PORT": str(listening),
        "DYNAMODB_PORT": str(free_port()),
        "DDB_DATA_DIR": str(tmp_path / "data"),
    }
    completed = subprocess.run(
        [sys.executable, "-m", "local.run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 1
    assert "set PORT to a free port" in completed.stderr
    assert "starting DynamoDB Local" not in completed.stdout and "Errno" not in completed.stderr
    assert not (tmp_path / "data").exists()
