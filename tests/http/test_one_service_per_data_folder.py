"""One `make run` per data folder, and the tools always find the one that is still running.

A second `make run` on a folder in use is refused (naming the first's pid and URL) and changes nothing; a second one
with its own data serves beside the first, and stopping it leaves the first findable by every tool.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from local.dynamodb_local import free_port
from local.paths import ROOT
from tests.http.running_service import get, java_processes_on, running_service


def _tool(module: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )


def test_a_second_run_on_a_folder_in_use_is_refused_and_the_survivor_stays_found(tmp_path):
    data_dir = tmp_path / "dynamodb"
    with running_service(tmp_path, table="ddbguard-first", seed=False, data_dir=str(data_dir)) as first:
        first_state = json.loads(first.state_file.read_text())

        # Same folder, other ports: refused before anything starts, naming who holds the folder.
        env = {**first.env, "PORT": str(free_port()), "DYNAMODB_PORT": str(free_port()), "TABLE_NAME": "second"}
        env["DDB_DATA_DIR"], env["SEED"] = str(data_dir), "0"
        refused = _tool("local.run", env)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert f"pid {first.process.pid}" in refused.stderr and first.url in refused.stderr, refused.stderr
        assert "DDB_DATA_DIR=memory" in refused.stderr
        assert "starting DynamoDB Local" not in refused.stdout
        assert json.loads(first.state_file.read_text()) == first_state, "a refused run writes no state"

        # Its own data, same state file: it serves beside the first and the tools move to it...
        with running_service(tmp_path, table="ddbguard-second", seed=False) as second:
            assert json.loads(second.state_file.read_text())["pid"] == second.process.pid
            audit = _tool("local.audit_locks", second.env)
            assert "lock audit of ddbguard-second" in audit.stdout, audit.stdout + audit.stderr
        # ...and stopping it hands the tools back to the first, which still serves.
        assert json.loads(first.state_file.read_text()) == first_state
        assert get(f"{first.url}/health")[0] == 200
        audit = _tool("local.audit_locks", first.env)
        assert audit.returncode == 0 and "lock audit of ddbguard-first" in audit.stdout, audit.stdout + audit.stderr
        token = _tool("local.tokens", first.env, "--sub", "alice")
        assert token.returncode == 0 and first.url in token.stderr, token.stderr

        # Killed rather than stopped, a newer run leaves a stale run.json, and its DynamoDB Local behind.
        third_data = tmp_path / "third-dynamodb"
        with running_service(tmp_path, table="ddbguard-third", seed=False, data_dir=str(third_data)) as third:
            orphan = java_processes_on(json.loads(third.state_file.read_text())["dynamodb_port"])
            assert orphan, "the third run's DynamoDB Local"
            os.kill(third.process.pid, signal.SIGKILL)
            third.process.wait()
            try:
                # Readers still find the live one...
                audit = _tool("local.audit_locks", first.env)
                assert "lock audit of ddbguard-first" in audit.stdout, audit.stdout + audit.stderr
                # ...and the orphaned DynamoDB Local still holds its folder: a new run there is told which to stop.
                env["DDB_DATA_DIR"], env["PORT"], env["DYNAMODB_PORT"] = (
                    str(third_data),
                    str(free_port()),
                    str(free_port()),
                )
                blocked = _tool("local.run", env)
                assert blocked.returncode == 1, blocked.stdout + blocked.stderr
                assert f"left behind by a `make run` (pid {third.process.pid})" in blocked.stderr, blocked.stderr
                assert f"kill {' '.join(map(str, orphan))}" in blocked.stderr, blocked.stderr
            finally:
                for pid in orphan:  # the killed run's own DynamoDB Local, which nothing stopped
                    os.kill(pid, signal.SIGTERM)
    assert not first.state_file.exists(), "the last one to stop removes the state file"
