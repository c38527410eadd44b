"""A client generated from docs/openapi.json by a real generator (openapi-python-client) runs the
quickstart against the local server: account, ledger, deposit, withdraw, order, payment, replay."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from local.openapi import OPENAPI_PATH
from local.tokens import make_token

PACKAGE = "ddbguard_client"


@pytest.fixture(scope="module")
def client_package(tmp_path_factory):
    out = tmp_path_factory.mktemp("generated")
    venv_bin = str(Path(sys.executable).parent)
    config = out / "config.json"
    config.write_text('{"post_hooks": []}')  # its default hooks run ruff over the output: slow, and not needed
    result = subprocess.run(
        [
            os.path.join(venv_bin, "openapi-python-client"),
            "generate",
            "--path",
            str(OPENAPI_PATH),
            "--meta",
            "none",
            "--output-path",
            str(out / PACKAGE),
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in (result.stdout + result.stderr).lower(), result.stdout + result.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def test_quickstart_through_the_generated_client(client_package, local_server):
    from ddbguard_client import AuthenticatedClient
    from ddbguard_client.api.accounts import create_account
    from ddbguard_client.api.ledger import deposit, get_statement, open_ledger, withdraw
    from ddbguard_client.api.orders import create_order, pay_order, update_order_status
    from ddbguard_client.models import Amount, CreateAccount, CreateOrder, OrderLine, UpdateOrder
    from ddbguard_client.models import Problem as ProblemModel
    from ddbguard_client.models.update_order_status import UpdateOrderStatus

    suffix = uuid.uuid4().hex[:8]
    client = AuthenticatedClient(base_url=local_server, token=make_token(f"client-{suffix}"))

    created = create_account.sync_detailed(
        client=client, body=CreateAccount(email=f"Grace.{suffix}@Example.com", username=f"grace_{suffix}")
    )
    assert created.status_code == 201
    account = created.parsed
    assert account.email == f"grace.{suffix}@example.com"  # stored normalised
    assert created.headers["ETag"] == '"0"'
    assert created.headers["Location"] == f"/accounts/{account.account_id}"

    ledger = open_ledger.sync_detailed(account.account_id, client=client)
    assert (ledger.status_code, ledger.parsed.available_cents) == (201, 0)

    deposited = deposit.sync_detailed(
        account.account_id, client=client, body=Amount(amount_cents=5000), idempotency_key=f"dep-{suffix}"
    )
    assert (deposited.status_code, deposited.parsed.available_cents_after) == (201, 5000)
    withdrawn = withdraw.sync_detailed(
        account.account_id, client=client, body=Amount(amount_cents=1200), idempotency_key=f"wd-{suffix}"
    )
    assert (withdrawn.status_code, withdrawn.parsed.available_cents_after) == (201, 3800)
    refused = withdraw.sync_detailed(
        account.account_id, client=client, body=Amount(amount_cents=10**6), idempotency_key=f"wd2-{suffix}"
    )
    assert refused.status_code == 409
    assert isinstance(refused.parsed, ProblemModel) and refused.parsed.code == "insufficient_funds"

    order = create_order.sync_detailed(
        client=client,
        body=CreateOrder(
            account_id=account.account_id, items=[OrderLine(sku="BOOK-1843", quantity=2, unit_price_cents=999)]
        ),
    )
    assert (order.status_code, order.parsed.status, order.parsed.total_cents) == (201, "PENDING", 1998)
    order_id = order.parsed.order_id

    # PAID only by paying: a PATCH is refused.
    patched = update_order_status.sync_detailed(
        order_id, client=client, body=UpdateOrder(status=UpdateOrderStatus.PAID), if_match='"0"'
    )
    assert (patched.status_code, patched.parsed.code) == (409, "invalid_transition")

    paid = pay_order.sync_detailed(order_id, client=client, idempotency_key=f"pay-{suffix}")
    assert (paid.status_code, paid.parsed.status, paid.parsed.version) == (200, "PAID", 1)
    replayed = pay_order.sync_detailed(order_id, client=client, idempotency_key=f"pay-{suffix}")
    assert (replayed.status_code, replayed.content) == (200, paid.content)

    statement = get_statement.sync_detailed(account.account_id, client=client)
    assert statement.status_code == 200
    assert statement.parsed.available_cents == 5000 - 1200 - 1998
    assert [entry.type_ for entry in statement.parsed.entries] == ["withdrawal", "withdrawal", "deposit"]
