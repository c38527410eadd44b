"""The real `make run` program (local.run) on free ports, with its own state file, for tool tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from local.dynamodb_local import free_port
from local.paths import ROOT

# Variables that would point the tools somewhere else than the state file (the test session
# itself configures TABLE_NAME and the endpoint for its own DynamoDB Local), or make `make`
# print its directory.
_STRIPPED = (
    "DYNAMODB_PORT",
    "TABLE_NAME",
    "AWS_ENDPOINT_URL_DYNAMODB",
    "MAKELEVEL",
    "MAKEFLAGS",
    "MFLAGS",
    "PORT",
    # The terminal's own choices (log format and level, a debugger) are each test's to make.
    "LOG_FORMAT",
    "EMF",
    "POWERTOOLS_LOG_LEVEL",
    "DEBUG",
    "DEBUG_PORT",
)


@dataclass(frozen=True)
class RunningService:
    url: str
    table: str
    state_file: Path
    env: dict[str, str]  # what a tool needs to find this service through its state file only
    process: subprocess.Popen
    output: list[str] = field(default_factory=list)  # its stdout and stderr so far, line by line


def tool_env(state_file: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _STRIPPED}
    env["DDBGUARD_STATE_FILE"] = str(state_file)
    return env


def get(url: str, headers: dict | None = None) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=120) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def java_processes_on(port: int) -> list[int]:
    """Pids of the java processes (DynamoDB Local) whose command line names `port`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a.endswith(b"java") for a in argv[:1]) and str(port).encode() in argv:
            found.append(int(proc.name))
    return found


@contextmanager
def running_service(
    state_dir: Path,
    table: str = "ddbguard-tools-test",
    seed: bool = True,
    data_dir: str = "memory",
    root: Path = ROOT,
    extra_env: dict[str, str] | None = None,
) -> Iterator[RunningService]:
    """`make run` from `root` (a copy of the repository, for tests that edit its code), up and answering /health."""
    port, ddb_port = free_port(), free_port()
    state_file = state_dir / "run.json"
    env = tool_env(state_file)
    env.update(PORT=str(port), DYNAMODB_PORT=str(ddb_port), DDB_DATA_DIR=data_dir, TABLE_NAME=table)
    env["SEED"] = "1" if seed else "0"
    env.update(extra_env or {})
    process = subprocess.Popen(
        [sys.executable, "-m", "local.run"], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    # Read as it comes: a full pipe would block the server's logging, and with it the server.
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(line.decode() for line in process.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 240  # a cold DynamoDB Local + seed at load 20; pytest's timeout is 900
        while time.monotonic() < deadline and process.poll() is None:
            if state_file.exists():
                try:
                    if get(f"http://127.0.0.1:{port}/health")[0] == 200:
                        break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    pass
            time.sleep(0.3)
        else:
            raise AssertionError(f"make run did not come up: {''.join(output) or 'no answer'}")
        state = json.loads(state_file.read_text())
        assert (state["pid"], state["table"]) == (process.pid, table)
        yield RunningService(f"http://127.0.0.1:{port}", table, state_file, tool_env(state_file), process, output)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        reader.join(timeout=120)
