"""Ledger requests through the handlers, shared by the ledger, hold, statement and transfer suites."""

from __future__ import annotations

import uuid

from local.api_client import ApiClient


def new_key() -> str:
    """A fresh Idempotency-Key."""
    return str(uuid.uuid4())


def move(api: ApiClient, account_id: str, route: str, amount, sub: str, key: str | None = None):
    """POST a money movement (`deposits`, `withdrawals` or `holds`) of `amount` cents."""
    return api.post(
        f"/accounts/{account_id}/ledger/{route}", {"amountCents": amount}, sub=sub, idempotency_key=key or new_key()
    )


def settle(api: ApiClient, account_id: str, hold_id: str, action: str, sub: str):
    """POST `capture` or `release` of a hold."""
    return api.post(f"/accounts/{account_id}/ledger/holds/{hold_id}/{action}", sub=sub, idempotency_key=new_key())
