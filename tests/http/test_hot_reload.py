"""Hot reload: `make run` replaces the execution environments whose code changed, and drops no request meanwhile.

The end-to-end test edits a handler in a copy of the repository (never this tree) under a running `make run`; the
environment-level test shows an invocation in flight finishing on the old code while the next one starts cold.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ddbguard.release import VERSION
from local.code_watcher import affected_handlers, changed_files, snapshot
from local.environments import ProcessEnvironments
from local.lambda_context import LambdaContext
from local.paths import ROOT
from tests.http.running_service import get, running_service
from tests.http.test_execution_environments import EchoRoute

HEALTH = "functions/health/check_health.py"


def _copy_of_the_repository(destination: Path) -> Path:
    """What `make run` needs, copied; node_modules (DynamoDB Local) linked, the venv shared."""
    for folder in ("functions", "local", "docs", "events"):
        shutil.copytree(ROOT / folder, destination / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", destination / "pyproject.toml")
    (destination / "node_modules").symlink_to(ROOT / "node_modules")
    return destination


def test_an_edited_handler_answers_under_the_running_server_and_no_request_is_dropped(tmp_path):
    copy = _copy_of_the_repository(tmp_path / "clone")
    # The copy's code ahead of the venv's own paths (which name this tree's functions/ and layer).
    paths = [copy, copy / "functions", copy / "functions" / "layer" / "python"]
    extra_env = {"PYTHONPATH": ":".join(str(path) for path in paths)}
    with running_service(tmp_path, seed=False, root=copy, extra_env=extra_env) as service:
        assert json.loads(get(f"{service.url}/health")[1]) == {"status": "ok", "version": VERSION}

        statuses: list[int] = []
        done = threading.Event()

        def keep_asking() -> None:
            while not done.is_set():
                statuses.append(get(f"{service.url}/health")[0])

        with ThreadPoolExecutor(max_workers=4) as askers:
            for _ in range(4):
                askers.submit(keep_asking)
            handler = copy / HEALTH
            source = handler.read_text()
            edited = source.replace('{"status": "ok", "version": VERSION}', '{"status": "ok", "version": "edited"}')
            assert edited != source
            handler.write_text(edited)
            answer = None
            # The readiness signal is the new answer itself; the bound only stops a watcher that never fires.
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                answer = json.loads(get(f"{service.url}/health")[1])
                if answer["version"] == "edited":
                    break
                time.sleep(0.2)
            done.set()
        assert answer == {"status": "ok", "version": "edited"}
        assert statuses and set(statuses) == {200}, f"a request failed during the reload: {set(statuses)}"
        reloads = [line for line in service.output if "ddbguard: reloaded" in line]
        assert len(reloads) == 1 and "health.check_health" in reloads[0] and HEALTH in reloads[0], reloads


def test_a_replaced_environment_finishes_its_invocation_and_the_next_one_starts_cold():
    pool = ProcessEnvironments(quiet=True, max_per_function=2)
    try:

        def echo(**event) -> dict:
            return pool.invoke(EchoRoute(), event, LambdaContext(function_name="ddbguard-echo"))

        warm = echo()
        with ThreadPoolExecutor(max_workers=1) as slow:
            in_flight = slow.submit(echo, sleep_s=1.0)
            while not pool.function(EchoRoute.handler).busy:  # wait until it is running, not for a clock
                time.sleep(0.01)
            assert pool.replace({EchoRoute.handler}) == 1
            finished = in_flight.result(timeout=120)
        assert finished["pid"] == warm["pid"] and finished["invocations"] == 2, "in flight: finished on the old one"
        fresh = echo()
        assert fresh["pid"] != warm["pid"] and fresh["invocations"] == 1, "after the change: a cold start"
        assert pool.replace({"some.other_handler"}) == 0 and echo()["pid"] == fresh["pid"], "others stay warm"
    finally:
        pool.close()


def test_a_handler_change_retires_that_function_and_any_other_change_retires_all(tmp_path):
    folder = tmp_path / "functions"
    (folder / "accounts").mkdir(parents=True)
    handler = folder / "accounts" / "create_account.py"
    handler.write_text("x = 1\n")
    before = snapshot(folder)
    handler.write_text("x = 22\n")
    (folder / "routes.py").write_text("")
    changed = changed_files(before, snapshot(folder))
    assert changed == [handler, folder / "routes.py"]
    handlers = {"accounts.create_account", "accounts.get_account"}
    assert affected_handlers([handler], folder, handlers) == {"accounts.create_account"}
    assert affected_handlers(changed, folder, handlers) is None
