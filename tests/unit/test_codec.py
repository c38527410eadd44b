"""Python values <-> DynamoDB attribute values: what goes in comes back, numbers as int."""

from __future__ import annotations

from decimal import Decimal

from ddbguard.store.codec import from_item, to_attribute, to_item


def test_round_trip_of_every_kind_ddbguard_stores():
    item = {
        "PK": "ACCT#1",
        "version": 7,
        "amountCents": 100_000_000_000,
        "negative": -5,
        "flag": True,
        "nothing": None,
        "pending": {"entry-1": 250, "nested": {"deep": [1, "two", {"three": 3}]}},
        "items": [{"sku": "BOOK-1", "quantity": 2}],
        "empty_map": {},
        "empty_list": [],
    }

    assert from_item(to_item(item)) == item


def test_the_wire_format_is_dynamodbs():
    assert to_item({"a": "x", "n": 3, "m": {"k": [True]}}) == {
        "a": {"S": "x"},
        "n": {"N": "3"},
        "m": {"M": {"k": {"L": [{"BOOL": True}]}}},
    }
    assert to_attribute(None) == {"NULL": True}


def test_numbers_come_back_as_int_not_decimal():
    stored = from_item({"n": {"N": "42"}, "m": {"M": {"x": {"N": "-3"}}}, "l": {"L": [{"N": "0"}]}})

    assert stored == {"n": 42, "m": {"x": -3}, "l": [0]}
    assert type(stored["n"]) is int and type(stored["m"]["x"]) is int and type(stored["l"][0]) is int


def test_a_number_with_a_fraction_is_not_truncated():
    assert from_item({"n": {"N": "1.5"}}) == {"n": 1.5}


def test_decimal_input_serialises_as_a_number():
    assert to_item({"n": Decimal("12")}) == {"n": {"N": "12"}}


def test_a_missing_item_is_none():
    assert from_item(None) is None
    assert from_item({}) == {}
