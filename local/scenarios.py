"""Set-ups through the public API, shared by suites that need an account with money."""

from __future__ import annotations

import uuid

from local.api_client import ApiClient


def create_account(api: ApiClient, sub: str, tag: str | None = None) -> str:
    tag = tag or uuid.uuid4().hex[:12]
    reply = api.post("/accounts", {"email": f"{tag}@example.com", "username": f"u{tag}"[:30]}, sub=sub)
    assert reply.status == 201, reply.json
    return reply.json["accountId"]


def open_funded_ledger(api: ApiClient, sub: str, amount_cents: int = 0, tag: str | None = None) -> str:
    """A new account of `sub`, its ledger opened and (when `amount_cents`) one deposit, all through the API."""
    return fund_ledger(api, sub, create_account(api, sub, tag), amount_cents)


def fund_ledger(api: ApiClient, sub: str, account_id: str, amount_cents: int = 0) -> str:
    """Open the ledger of an existing account of `sub` and (when `amount_cents`) deposit into it."""
    reply = api.post(f"/accounts/{account_id}/ledger", sub=sub)
    assert reply.status == 201, reply.json
    if amount_cents:
        deposit = api.post(
            f"/accounts/{account_id}/ledger/deposits",
            {"amountCents": amount_cents},
            sub=sub,
            idempotency_key=f"seed-{uuid.uuid4()}",
        )
        assert deposit.status == 201, deposit.json
    return account_id


def balance(api: ApiClient, sub: str, account_id: str) -> dict:
    reply = api.get(f"/accounts/{account_id}/ledger?limit=100", sub=sub)
    assert reply.status == 200, reply.json
    return reply.json
