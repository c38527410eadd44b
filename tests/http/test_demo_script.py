"""demo.sh, the curl walk-through of the README, passes against a running `make run`."""

from __future__ import annotations

import subprocess

from local.paths import ROOT
from local.tokens import make_token


def test_demo_script_walks_through_every_route(demo_service):
    completed = subprocess.run(
        ["bash", str(ROOT / "demo.sh"), demo_service.url, make_token("demo-script")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr
    assert "every one answered as expected" in completed.stdout
    assert "Idempotent-Replayed: true" in completed.stdout


def test_demo_script_asks_for_a_token():
    completed = subprocess.run(
        ["bash", str(ROOT / "demo.sh"), "http://127.0.0.1:1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert completed.returncode == 2 and "make -s token" in completed.stderr


def test_demo_script_with_no_server_says_to_start_make_run():
    from local.dynamodb_local import free_port

    completed = subprocess.run(
        ["bash", str(ROOT / "demo.sh"), f"http://127.0.0.1:{free_port()}", "some-token"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 2 and "make run" in completed.stderr, completed.stderr
    assert "curl: (7)" not in completed.stderr
