"""Strict request bodies: size, encoding, media type, JSON syntax, clean strings, then the body class."""

from __future__ import annotations

import base64
import json
import typing

import pytest

from ddbguard.limits import MAX_BODY_BYTES, MAX_BODY_DEPTH
from ddbguard_api.http.bodies import check_depth, field_errors, parse_body, parse_json
from ddbguard_api.http.problems import EdgeError
from ddbguard_api.http.proxy_events import ProxyEvent
from ddbguard_api.models.body import Body
from ddbguard_api.models.body_validation import validate
from ddbguard_api.models.request_bodies import Amount, CreateAccount, CreateOrder


def event(body: str | bytes | None, content_type: str | None = "application/json", **extra) -> ProxyEvent:
    headers = {"Content-Type": content_type} if content_type else {}
    # bytes too: the edge must refuse what no proxy event holds (the type says what API Gateway sends)
    return typing.cast("ProxyEvent", {"body": body, "headers": headers, **extra})


def refusal(evt: ProxyEvent, model: type[Body] | None = Amount) -> EdgeError:
    with pytest.raises(EdgeError) as raised:
        parse_body(evt, model)
    return raised.value


def fields(error: EdgeError) -> list[tuple[str, str]]:
    return [(e.field, e.code) for e in error.errors]


def test_a_valid_body_gives_an_instance_of_its_class_and_the_document():
    model, document = parse_body(event('{"amountCents": 5}'), Amount)
    assert type(model) is Amount and model == Amount(amountCents=5)
    assert document == {"amountCents": 5}


def test_a_json_suffix_media_type_and_parameters_are_accepted():
    assert parse_body(event('{"amountCents": 5}', "application/merge-patch+json"), Amount)[0].amountCents == 5
    assert parse_body(event('{"amountCents": 5}', "Application/JSON; charset=utf-8"), Amount)[0].amountCents == 5


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/xml", "multipart/form-data"])
def test_other_media_types_are_400(content_type):
    error = refusal(event('{"amountCents": 5}', content_type))
    assert (error.status, error.code) == (400, "unsupported_media_type")


def test_the_content_type_sent_twice_is_400():
    evt = {"body": "{}", "multiValueHeaders": {"Content-Type": ["application/json", "application/json"]}}
    assert refusal(evt).status == 400


def test_over_the_size_limit_is_413_before_parsing():
    body = '{"amountCents": 5, "pad": "' + "x" * MAX_BODY_BYTES + '"}'
    error = refusal(event(body))
    assert (error.status, error.code) == (413, "payload_too_large")


def test_exactly_the_size_limit_is_parsed():
    body = '{"amountCents": 5}'.ljust(MAX_BODY_BYTES)
    assert parse_body(event(body), Amount)[0].amountCents == 5


def test_the_limit_counts_bytes_not_characters():
    body = '{"amountCents": 5, "n": "' + "é" * (MAX_BODY_BYTES // 2) + '"}'
    assert refusal(event(body)).status == 413


def test_base64_bodies_are_decoded_and_bad_base64_is_400():
    encoded = base64.b64encode(b'{"amountCents": 7}').decode()
    assert parse_body(event(encoded, isBase64Encoded=True), Amount)[0].amountCents == 7
    error = refusal(event("not base64!", isBase64Encoded=True))
    assert (error.status, error.code) == (400, "malformed_body")
    big = base64.b64encode(b" " * (MAX_BODY_BYTES + 1)).decode()
    assert refusal(event(big, isBase64Encoded=True)).status == 413


def test_missing_body_is_400_for_a_route_with_a_model_and_fine_without():
    assert (refusal(event(None)).status, refusal(event("  ")).code) == (400, "body_required")
    assert parse_body(event(None), None) == (None, None)
    assert parse_body(event("{}"), None) == (None, {})


def test_a_route_without_a_model_refuses_fields():
    error = refusal(event('{"x": 1}'), None)
    assert (error.status, fields(error)) == (422, [("x", "unknown_field")])


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ('{"amountCents": 1, "amountCents": 2}', "duplicate_key"),
        ('{"a": {"b": 1, "b": 1}}', "duplicate_key"),
        ('{"amountCents": NaN}', "malformed_json"),
        ('{"amountCents": Infinity}', "malformed_json"),
        ('{"amountCents": -Infinity}', "malformed_json"),
        ('{"amountCents": 5', "malformed_json"),
        ("{'amountCents': 5}", "malformed_json"),
        ("[" * 10_000 + "]" * 10_000, "body_too_deep"),
    ],
)
def test_json_that_is_not_strict_json_is_400(body, code):
    error = refusal(event(body))
    assert (error.status, error.code) == (400, code)


def test_bytes_that_are_not_utf8_are_400():
    error = refusal(event(b'{"amountCents": "\xff"}'))
    assert (error.status, error.code) == (400, "malformed_json")


@pytest.mark.parametrize("body", ["[]", "5", '"text"', "null", "true"])
def test_a_document_that_is_not_an_object_is_422(body):
    error = refusal(event(body))
    assert (error.status, error.code) == (422, "validation_failed")


def test_big_and_fractional_numbers_stay_exact_and_are_refused_as_non_integers():
    for body in ('{"amountCents": 1e400}', '{"amountCents": 1.5}', '{"amountCents": 1.0}'):
        error = refusal(event(body))
        assert error.status == 422 and fields(error)[0][0] == "amountCents", body


@pytest.mark.parametrize(
    "character",
    ["\x00", "\x07", "\x1b", "\u200b", "\u200d", "\ufeff", "\u202e", "\u2028", "\u2029", "\x85"],
    ids=lambda c: f"U+{ord(c):04X}",
)
def test_forbidden_characters_anywhere_are_422_with_their_field_path(character):
    document = {
        "accountId": "a1",
        "items": [{"sku": "BOOK", "quantity": 1, "unitPriceCents": 5}, {"sku": f"X{character}"}],
        f"key{character}": 1,
    }
    error = refusal(event(json.dumps(document)), CreateOrder)

    assert (error.status, error.code) == (422, "validation_failed")
    assert set(fields(error)) == {("items[1].sku", "invalid_characters"), (f"key{character}", "invalid_characters")}


def test_forbidden_characters_in_nested_keys_and_top_level_strings():
    error = refusal(event(json.dumps({"a": {"b\u2028": "x", "c": ["ok", "\u2028"]}})), None)
    assert set(fields(error)) == {("a.b\u2028", "invalid_characters"), ("a.c[1]", "invalid_characters")}


def test_ordinary_unicode_passes_the_character_check():
    model, _ = parse_body(
        event(json.dumps({"email": "zoë@example.com", "username": "zoe", "displayName": "Zoë 🎉"})), CreateAccount
    )
    assert model.displayName == "Zoë 🎉"


def test_unknown_fields_are_422_unknown_field():
    error = refusal(event('{"amountCents": 5, "extra": 1}'))
    assert fields(error) == [("extra", "unknown_field")]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("{}", ("amountCents", "required")),
        ('{"amountCents": "5"}', ("amountCents", "not_an_integer")),
        ('{"amountCents": true}', ("amountCents", "not_an_integer")),
        ('{"amountCents": 0}', ("amountCents", "too_small")),
        ('{"amountCents": 100000000001}', ("amountCents", "too_large")),
    ],
)
def test_pydantic_errors_map_to_the_documented_codes(body, expected):
    assert fields(refusal(event(body))) == [expected]


def test_string_codes_and_nested_locations():
    account = refusal(event('{"email": 5, "username": ""}'), CreateAccount)
    assert set(fields(account)) == {("email", "not_a_string"), ("username", "too_short")}
    order = refusal(
        event('{"accountId": "a b", "items": [{"sku": "ok", "quantity": 1, "unitPriceCents": 1, "x": 1}]}'), CreateOrder
    )
    assert set(fields(order)) == {("accountId", "invalid_format"), ("items.0.x", "unknown_field")}


def test_field_errors_keep_unmapped_pydantic_types():
    from pydantic_core import ValidationError

    with pytest.raises(ValidationError) as raised:
        validate(CreateOrder, {"accountId": "a", "items": "nope"})
    assert [(e.field, e.code) for e in field_errors(raised.value)] == [("items", "list_type")]


# --- nesting depth: checked on the raw text, without recursion, before anything else walks it -------


def nested(levels: int, opening: str = '{"a":', closing: str = "}", leaf: str = "1") -> str:
    return opening * levels + leaf + closing * levels


@pytest.mark.parametrize("levels", [33, 980, 10_000])
@pytest.mark.parametrize(("opening", "closing"), [('{"a":', "}"), ("[", "]")], ids=["objects", "arrays"])
def test_a_body_nested_past_the_bound_is_400_body_too_deep(levels, opening, closing):
    body = '{"amountCents": ' + nested(levels - 1, opening, closing) + "}"
    error = refusal(event(body))
    assert (error.status, error.code) == (400, "body_too_deep")


def test_a_body_at_the_bound_is_judged_by_the_model_not_by_depth():
    body = '{"amountCents": ' + nested(MAX_BODY_DEPTH - 1) + "}"
    error = refusal(event(body))
    assert (error.status, error.code) == (422, "validation_failed")


def test_brackets_inside_strings_do_not_count_as_depth():
    text = '[{"\\' * 500
    data = json.dumps({"email": text}).encode()
    check_depth(data)  # no refusal: 2,000 brackets, all inside one string
    assert parse_json(data) == {"email": text}


def test_depth_is_checked_before_the_json_is_parsed():
    # Not even valid JSON: the depth answers first, so no parser or walker ever sees it.
    error = refusal(event("[" * 10_000))
    assert (error.status, error.code) == (400, "body_too_deep")
