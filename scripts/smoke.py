#!/usr/bin/env python3
"""Smoke test: run the quickstart against a ddbguard API and exit non-zero on any surprise.

    python3 scripts/smoke.py --base-url https://<id>.execute-api.<region>.amazonaws.com/v1 --token "$ID_TOKEN"
    python3 scripts/smoke.py --base-url http://127.0.0.1:${PORT:-3000} --token "$(make -s token SUB=smoke)"

Steps: health, sign-up (POST /accounts), open the ledger, deposit, withdraw, replay the withdrawal with the same
Idempotency-Key (same status and body, no second effect), read the balance, then empty the ledger and delete the
account so repeated runs leave no live account or uniqueness lock behind (ledger entries are kept by design).
Standard library only, so it runs from any Python 3.11+ without the project's venv.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

JSON = "application/json"


class Surprise(Exception):
    """The API answered something the quickstart does not expect."""


class Client:
    def __init__(self, base_url: str, token: str, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        expect: int | tuple[int, ...],
        auth: bool = True,
        headers: dict[str, str] | None = None,
    ) -> tuple[dict[str, str], Any]:
        request = urllib.request.Request(f"{self.base_url}{path}", method=method)
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            request.add_header("Content-Type", JSON)
        if auth:
            request.add_header("Authorization", f"Bearer {self.token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, data=data, timeout=self.timeout) as response:
                status, response_headers, raw = response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            status, response_headers, raw = error.code, dict(error.headers), error.read()
        except (urllib.error.URLError, TimeoutError) as error:
            raise Surprise(f"{method} {path}: no answer ({error})") from None
        text = raw.decode("utf-8", errors="replace")
        if status not in ((expect,) if isinstance(expect, int) else expect):
            raise Surprise(f"{method} {path}: expected {expect}, got {status}: {text[:500]}")
        try:
            parsed = json.loads(text) if text else None
        except json.JSONDecodeError:
            raise Surprise(f"{method} {path}: {status} with a body that is not JSON: {text[:200]}") from None
        print(f"ok  {method} {path} -> {status}")
        return {key.lower(): value for key, value in response_headers.items()}, parsed

    def delete_settled(self, path: str, headers: dict[str, str], attempts: int = 30) -> None:
        """DELETE answered 204, after waiting out 409 `ledger_unsettled` (the ledger's last movements are still being
        settled) as its Retry-After says, as any client of the API should."""
        for _ in range(attempts):
            answer, problem = self.call("DELETE", path, expect=(204, 409), headers=headers)
            if problem is None:
                return
            if problem.get("code") != "ledger_unsettled":
                raise Surprise(f"DELETE {path}: expected 204, got 409 {problem.get('code')}")
            time.sleep(int(answer.get("retry-after", "1")))
        raise Surprise(f"DELETE {path}: still waiting for settlement after {attempts} tries")


def expect_equal(what: str, actual: Any, expected: Any) -> None:
    if actual != expected:
        raise Surprise(f"{what}: expected {expected!r}, got {actual!r}")


def run_quickstart(client: Client, *, keep: bool = False) -> None:
    run = uuid.uuid4().hex[:12]
    _, health = client.call("GET", "/health", expect=200, auth=False)
    expect_equal("GET /health status", health.get("status"), "ok")

    _, account = client.call(
        "POST",
        "/accounts",
        {"email": f"smoke-{run}@example.com", "username": f"smoke_{run}", "displayName": "Smoke test"},
        expect=201,
    )
    account_id = account["accountId"]
    expect_equal("new account version", account["version"], 0)
    ledger = f"/accounts/{account_id}/ledger"
    _, balance = client.call("POST", ledger, expect=201)
    expect_equal("opened ledger availableCents", balance["availableCents"], 0)

    _, deposit = client.call(
        "POST", f"{ledger}/deposits", {"amountCents": 2500}, expect=201, headers={"Idempotency-Key": f"dep-{run}"}
    )
    expect_equal("deposit type", deposit["type"], "deposit")
    withdrawal_key = {"Idempotency-Key": f"wd-{run}"}
    _, withdrawal = client.call(
        "POST", f"{ledger}/withdrawals", {"amountCents": 1000}, expect=201, headers=withdrawal_key
    )
    expect_equal("withdrawal type", withdrawal["type"], "withdrawal")
    # The replay: same key, same body -> the first response again, and the money moves once.
    _, replay = client.call("POST", f"{ledger}/withdrawals", {"amountCents": 1000}, expect=201, headers=withdrawal_key)
    expect_equal("replayed withdrawal body", replay, withdrawal)
    _, statement = client.call("GET", ledger, expect=200)
    expect_equal("availableCents after deposit 2500, withdraw 1000, replay", statement["availableCents"], 1500)
    expect_equal("entries after the replay", len(statement["entries"]), 2)

    if keep:
        print(f"kept account {account_id}")
        return
    client.call(
        "POST", f"{ledger}/withdrawals", {"amountCents": 1500}, expect=201, headers={"Idempotency-Key": f"wd2-{run}"}
    )
    headers, _ = client.call("GET", f"/accounts/{account_id}", expect=200)
    client.delete_settled(f"/accounts/{account_id}", headers={"If-Match": headers["etag"]})
    client.call("GET", f"/accounts/{account_id}", expect=404)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the ddbguard quickstart against an API; non-zero on surprise.")
    parser.add_argument("--base-url", required=True, help="stage URL (ApiUrl output) or http://127.0.0.1:<port>")
    parser.add_argument("--token", default=os.environ.get("SMOKE_TOKEN"), help="bearer token [$SMOKE_TOKEN]")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per request [30]")
    parser.add_argument("--keep", action="store_true", help="leave the account and its money in place")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("a token is required (--token or SMOKE_TOKEN): a Cognito ID token deployed, make token locally")
    try:
        run_quickstart(Client(args.base_url, args.token, args.timeout), keep=args.keep)
    except (Surprise, KeyError, TypeError) as error:
        print(f"FAIL {error!r}" if not isinstance(error, Surprise) else f"FAIL {error}", file=sys.stderr)
        return 1
    print("smoke test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
