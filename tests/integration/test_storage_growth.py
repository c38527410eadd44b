"""docs/infra.md states what a money movement costs to keep: the bytes it documents are the bytes measured here.

Markers and entries are kept for good, so their size is the service's storage growth. Measured after the
settlement ran, with DynamoDB's item-size rules (names plus values, numbers by significant digits).
"""

from __future__ import annotations

import os
import re

from local.paths import ROOT
from tests.support import settlement
from tests.support.ledger_requests import move
from tests.support.ledger_seed import open_funded_ledger

INFRA_DOC = ROOT / "docs" / "infra.md"


def _value_size(value: dict) -> int:
    ((kind, data),) = value.items()
    if kind == "S":
        return len(data.encode())
    if kind == "N":
        return (len(data.lstrip("-").replace(".", "").lstrip("0")) + 1) // 2 + 1
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + _value_size(v) + 1 for k, v in data.items())
    if kind == "L":
        return 3 + sum(_value_size(v) + 1 for v in data)
    raise AssertionError(f"unexpected attribute type {kind}")


def item_bytes(item: dict) -> int:
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def _documented(label: str) -> int:
    text = INFRA_DOC.read_text(encoding="utf-8")
    section = text[text.index("## Storage growth of money movements") :]
    match = re.search(rf"\| (?:\*\*)?{re.escape(label)}[^|]*\| (?:\*\*)?about ([\d,]+)", section)
    assert match, f"docs/infra.md states no size for {label!r}"
    return int(match.group(1).replace(",", ""))


def test_the_documented_bytes_per_movement_are_the_measured_ones(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub)
    reply = move(api, account_id, "deposits", 123_456, sub, key=f"size-{uid}")
    assert reply.status == 201
    settlement.settle_all()
    table = os.environ["TABLE_NAME"]

    def stored(partition: str, sort: str) -> dict:
        key = {"PK": {"S": partition}, "SK": {"S": sort}}
        return raw_client.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]

    entry = stored(f"ACCT#{account_id}", f"TXN#{reply.json['entryId']}")
    marker = stored(f"REQ#{entry['requestDigest']['S']}", "MARKER")
    assert "availableCentsAfter" in entry and reply.json["entryId"] in marker["after"]["M"]  # settled
    measured = {"entry": item_bytes(entry), "marker": item_bytes(marker)}
    for label, key in (("ledger entry", "entry"), ("request marker", "marker")):
        assert abs(_documented(label) - measured[key]) <= 0.15 * measured[key], (label, measured)
    movement = measured["entry"] + measured["marker"]
    assert abs(_documented("one deposit, withdrawal or hold") - movement) <= 0.15 * movement, movement
    text = INFRA_DOC.read_text(encoding="utf-8")
    assert "per million movements" in text and "Retention decision" in text
