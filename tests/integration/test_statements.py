"""The statement through the real handlers on DynamoDB Local: pages, cursors, availableCentsAfter."""

from __future__ import annotations

import base64
import json
import os

from ddbguard.store.cursors import encode_cursor
from ddbguard.store.shapes import Key
from tests.support.ledger_invariants import read_ledger
from tests.support.ledger_requests import move
from tests.support.ledger_seed import open_funded_ledger, seed_account


def test_statement_pages_walk_every_entry_once_newest_first(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub)
    amounts = [100, 200, 300, 400, 500, 600, 700]
    created = [move(api, account_id, "deposits", a, sub).json["entryId"] for a in amounts]

    pages, cursor = [], None
    while True:
        query = "?limit=3" + (f"&cursor={cursor}" if cursor else "")
        reply = api.get(f"/accounts/{account_id}/ledger{query}", sub=sub)
        assert reply.status == 200
        pages.append(reply.json)
        cursor = reply.json["nextCursor"]
        if cursor is None:
            break
        assert len(pages) < 10

    seen = [e["entryId"] for page in pages for e in page["entries"]]
    assert seen == list(reversed(created))
    assert [e["availableCentsAfter"] for page in pages for e in page["entries"]] == [
        2800,
        2100,
        1500,
        1000,
        600,
        300,
        100,
    ]
    first = pages[0]
    assert {k: first[k] for k in ("clearedCents", "holdCents", "availableCents", "version")} == {
        "clearedCents": 2800,
        "holdCents": 0,
        "availableCents": 2800,
        "version": 7,
    }
    assert [len(p["entries"]) for p in pages][:3] == [3, 3, 1]
    assert not {"PK", "SK"} & set(first["entries"][0])


def _cursor(document) -> str:
    """A cursor of the service's own making when `document` is a key; else base64 of anything else."""
    if isinstance(document, dict) and set(document) == {"PK", "SK"} and isinstance(document["SK"], str):
        return encode_cursor(Key(PK=document["PK"], SK=document["SK"]))
    return base64.urlsafe_b64encode(json.dumps(document).encode()).rstrip(b"=").decode()


def test_malformed_or_foreign_cursors_are_refused(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=5)
    other_id = open_funded_ledger(api, raw_client, sub, deposit=6)
    move(api, other_id, "deposits", 7, sub)
    foreign = api.get(f"/accounts/{other_id}/ledger?limit=1", sub=sub).json["nextCursor"]
    assert foreign

    cursors = [
        "not-base64-%%%",
        "AAAA",
        _cursor([1, 2]),
        _cursor({"PK": f"ACCT#{account_id}", "SK": "BALANCE"}),
        _cursor({"PK": f"ACCT#{account_id}", "SK": "TXN#x"}),
        _cursor({"PK": f"ACCT#{account_id}", "SK": 5}),
        _cursor({"PK": f"ACCT#{account_id}", "SK": "TXN#01HZZZZZZZZZZZZZZZZZZZZZZZ", "x": 1}),
        _cursor({"PK": f"ACCT#{other_id}", "SK": "TXN#7ZZZZZZZZZZZZZZZZZZZZZZZZZ"}),  # sealed for the other account
        foreign,
        "A" * 1025,
    ]
    for cursor in cursors:
        reply = api.get(f"/accounts/{account_id}/ledger?cursor={cursor}", sub=sub)
        assert (reply.status, reply.code) == (422, "validation_failed"), (cursor, reply.json)
        assert reply.json["errors"][0]["field"] == "cursor"
    good = _cursor({"PK": f"ACCT#{account_id}", "SK": "TXN#7ZZZZZZZZZZZZZZZZZZZZZZZZZ"})
    assert [
        e["amountCents"] for e in api.get(f"/accounts/{account_id}/ledger?cursor={good}", sub=sub).json["entries"]
    ] == [5]


def test_statement_fills_available_after_from_the_pending_map(api, raw_client, uid):
    """An entry whose movement was not settled yet (a crash after commit) shows the exact value."""
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=900)
    entry = read_ledger(raw_client, account_id).entries[0]
    table = os.environ["TABLE_NAME"]
    raw_client.update_item(
        TableName=table,
        Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": f"TXN#{entry['entryId']}"}},
        UpdateExpression="REMOVE #a",
        ExpressionAttributeNames={"#a": "availableCentsAfter"},
    )
    raw_client.update_item(
        TableName=table,
        Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "BALANCE"}},
        UpdateExpression="SET #p.#e = :v",
        ExpressionAttributeNames={"#p": "pending", "#e": entry["entryId"]},
        ExpressionAttributeValues={":v": {"N": "900"}},
    )

    reply = api.get(f"/accounts/{account_id}/ledger", sub=sub)

    assert [e["availableCentsAfter"] for e in reply.json["entries"]] == [900]
    assert "pending" not in reply.json


def test_statement_of_a_never_opened_ledger_is_404(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = seed_account(raw_client, sub)

    reply = api.get(f"/accounts/{account_id}/ledger", sub=sub)

    assert (reply.status, reply.code) == (404, "ledger_not_found")
