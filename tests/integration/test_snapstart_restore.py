"""Environments restored from one SnapStart snapshot never produce the same id, and each gets fresh state.

Simulated restore: a fresh process runs a handler's init (import, as Lambda does before the snapshot), then the
before-snapshot hooks the way the runtime runs them (`snapshot_restore_py`'s registry), then forks: each fork is one
environment resumed from the same memory. Each runs the after-restore hooks and then real deposits through the
handler on DynamoDB Local. A control set of forks skips the hooks, to show what they fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest
import snapshot_restore_py  # noqa: F401  (requirements-dev.txt; Lambda's Python runtimes include it)

from local.paths import ROOT
from local.scenarios import open_funded_ledger

RESTORES = 4
DEPOSITS_PER_RESTORE = 3

_SCRIPT = r"""
import json, os, random, sys
import snapshot_restore_py
from local.apigw_events import build_event
from local.lambda_context import LambdaContext
from local.tokens import claims_from_authorization, make_token

spec = json.loads(sys.stdin.read())
import ledger.deposit  # init: what the snapshot holds
from ddbguard.store import client as store_client, ids

for hook, args, kwargs in reversed(snapshot_restore_py.get_before_snapshot()):
    hook(*args, **kwargs)
snapshot_client = store_client.client()
random.random()  # init drew from random (e.g. botocore's jitter) before the snapshot


def deposit(key):
    authorization = f"Bearer {make_token(spec['sub'], None)}"
    headers = [("Authorization", authorization), ("Content-Type", "application/json"), ("Idempotency-Key", key)]
    event = build_event(method="POST", resource="/accounts/{accountId}/ledger/deposits",
        raw_path=f"/accounts/{spec['account']}/ledger/deposits", headers=headers, body=b'{"amountCents": 1}',
        path_parameters={"accountId": spec["account"]}, claims=claims_from_authorization(authorization))
    answer = ledger.deposit.handler(event, LambdaContext(function_name="ddbguard-deposit"))
    assert answer["statusCode"] == 201, answer
    return json.loads(answer["body"])["entryId"]


snapshot_random = random.getstate()


def restored(index, run_hooks):
    # A fork reseeds `random` in the child (os.register_at_fork); a snapshot restore copies memory as it was.
    random.setstate(snapshot_random)
    if run_hooks:
        for hook, args, kwargs in snapshot_restore_py.get_after_restore():
            hook(*args, **kwargs)
    return {
        "random": [random.random() for _ in range(3)],
        "ids": [ids.new_id(), ids.time_sortable_id()],
        "fresh_client": store_client.client() is not snapshot_client,
        "entries": [deposit(f"{spec['tag']}-{run_hooks}-{index}-{n}") for n in range(spec["deposits"])]
        if run_hooks else [],
    }


results = {}
for run_hooks in (True, False):
    for index in range(spec["restores"]):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            with os.fdopen(write, "w") as out:
                out.write(json.dumps(restored(index, run_hooks)))
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as source:
            results.setdefault(str(run_hooks), []).append(json.loads(source.read()))
        _, status = os.waitpid(pid, 0)
        assert status == 0, status
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def restores(api, dynamodb_local) -> dict[str, list[dict]]:
    sub = f"snap-{uuid.uuid4().hex[:8]}"
    account = open_funded_ledger(api, sub)
    spec = {
        "sub": sub,
        "account": account,
        "tag": uuid.uuid4().hex,
        "restores": RESTORES,
        "deposits": DEPOSITS_PER_RESTORE,
    }
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        env={**os.environ, "DDBGUARD_TRACING": "active"},
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_restored_environments_never_produce_the_same_id(restores: dict[str, list[dict]]) -> None:
    hooked = restores["True"]
    assert len(hooked) == RESTORES
    entry_ids = [entry for run in hooked for entry in run["entries"]]
    assert len(entry_ids) == RESTORES * DEPOSITS_PER_RESTORE
    assert len(set(entry_ids)) == len(entry_ids)
    new_ids = [value for run in hooked for value in run["ids"]]
    assert len(set(new_ids)) == len(new_ids)


def test_after_restore_gives_fresh_random_state_and_a_fresh_client(restores: dict[str, list[dict]]) -> None:
    hooked, unhooked = restores["True"], restores["False"]
    assert all(run["fresh_client"] for run in hooked)
    assert len({json.dumps(run["random"]) for run in hooked}) == RESTORES
    # Without the hooks the restored copies share the snapshot's state: same jitter sequence, same client.
    assert len({json.dumps(run["random"]) for run in unhooked}) == 1
    assert not any(run["fresh_client"] for run in unhooked)
