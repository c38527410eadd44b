"""When something else took the walk-through's account names, `make seed` says what holds them and the exact
command that frees them; run as printed, the command works and the walk-through creates `ada` again."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request

from local.paths import ROOT
from local.tokens import make_token
from tests.http.running_service import running_service

FREE_COMMAND = re.compile(r"^\s*(curl -X DELETE \S+ .*)$", flags=re.MULTILINE)


def _run(args: list[str], env: dict[str, str], shell: bool = False) -> subprocess.CompletedProcess:
    command: str | list[str] = " ".join(args) if shell else args
    return subprocess.run(command, shell=shell, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def test_seed_names_an_account_that_took_adas_username_and_its_command_frees_it(tmp_path):
    with running_service(tmp_path, table="ddbguard-names-test") as service:
        # As a "Try it out" with someone else's values but the walk-through's username would.
        taken = urllib.request.Request(
            f"{service.url}/accounts",
            data=json.dumps({"email": "someone.else@example.net", "username": "ada"}).encode(),
            headers={"Authorization": f"Bearer {make_token('mallory')}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(taken, timeout=120) as response:
            squatter = json.loads(response.read())["accountId"]

        seeded = _run([sys.executable, "-m", "local.seed"], service.env)
        assert seeded.returncode == 1, seeded.stdout + seeded.stderr
        assert f"'ada' is taken by account {squatter} (owner mallory)" in seeded.stderr, seeded.stderr
        commands = FREE_COMMAND.findall(seeded.stderr)
        assert len(commands) == 1, seeded.stderr

        freed = _run(
            [commands[0], "--fail", "-sS", "-o", "/dev/null", "-w", "'%{http_code}'"],
            service.env,
            shell=True,
        )
        assert (freed.returncode, freed.stdout) == (0, "204"), freed.stderr

        again = _run([sys.executable, "-m", "local.seed"], service.env)
        assert again.returncode == 0 and "taken by" not in again.stderr, again.stderr
        created = _run([sys.executable, "-m", "local.invoke", "create_account"], service.env)
        assert json.loads(created.stdout)["statusCode"] == 201, created.stdout + created.stderr
