"""The stream handler's batch protocol: each balance settled once per batch, a failed record reported by its
sequence number (a partial batch response), a batch where every record failed retried whole. The settlement itself
runs against DynamoDB Local in tests/integration/test_settlement_faults.py; here it is replaced, to fail on cue."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer

from ddbguard.guards.settlement import Settled
from ddbguard.store import keys
from ddbguard_jobs import settle_entries

_SERIALIZER = TypeSerializer()


def _record(sequence: str, key: Mapping[str, object]) -> dict[str, Any]:
    keys_json = {name: _SERIALIZER.serialize(value) for name, value in key.items()}
    return {"eventName": "INSERT", "dynamodb": {"Keys": keys_json, "SequenceNumber": sequence}}


def _entry(sequence: str, account_id: str) -> dict[str, Any]:
    return _record(sequence, keys.entry_key(account_id, f"01ENTRY{sequence}"))


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The accounts settled, in order; an account named `broken-*` fails to settle."""
    calls: list[str] = []

    def settle_balance(account_id: str) -> Settled:
        calls.append(account_id)
        if account_id.startswith("broken"):
            raise RuntimeError(f"{account_id} did not settle")
        return Settled(entries=1, oldest_age_s=0.0)

    monkeypatch.setattr(settle_entries, "settle_balance", settle_balance)
    return calls


def test_each_balance_is_settled_once_per_batch(settled: list[str]) -> None:
    records = [_entry("1", "a"), _entry("2", "b"), _entry("3", "a"), _record("4", keys.balance_key("a"))]
    assert settle_entries.settle_records(records) == {"batchItemFailures": []}
    assert settled == ["a", "b"]  # the balance item's own change (4) names no new entry


def test_a_failed_record_is_reported_by_sequence_number_and_its_balance_tried_again(settled: list[str]) -> None:
    records = [_entry("1", "broken-x"), _entry("2", "a"), _entry("3", "broken-x")]
    reply = settle_entries.settle_records(records)
    assert reply == {"batchItemFailures": [{"itemIdentifier": "1"}, {"itemIdentifier": "3"}]}
    assert settled == ["broken-x", "a", "broken-x"]


def test_a_batch_where_every_record_failed_fails_the_invocation(settled: list[str]) -> None:
    with pytest.raises(settle_entries.AllRecordsFailed):
        settle_entries.settle_records([_entry("1", "broken-x"), _entry("2", "broken-y")])
    assert settled == ["broken-x", "broken-y"]


def test_an_empty_batch_reports_nothing(settled: list[str]) -> None:
    assert settle_entries.settle_records([]) == {"batchItemFailures": []}
    assert settled == []
