"""The OpenAPI document says what the validators enforce: the same bounds and patterns, an example per request
body that the service accepts, and readable titles."""

from __future__ import annotations

import json
import re
import string
import sys
import unicodedata
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import routes
from ddbguard.domain.normalize import email_form, email_problem, folded, unique_form, username_problem
from ddbguard.limits import (
    CURSOR_MAX_CHARS,
    EMAIL_MAX_BYTES,
    FORBIDDEN_CHARACTER_CATEGORIES,
    USERNAME_MAX_CHARS,
    USERNAME_MIN_CHARS,
)
from local.api_models import request_model
from local.openapi import OPENAPI_PATH
from local.openapi_titles import generated_title, readable_title

DOCUMENT = json.loads(OPENAPI_PATH.read_text())
COMPONENTS = DOCUMENT["components"]["schemas"]
# Every body model a route names (derived ones included), from the route table: a new route needs no edit here.
REQUEST_MODELS: dict[str, type[BaseModel]] = {
    route.body: request_model(route.body) for route in routes.ROUTES if route.body is not None
}
# Printable ASCII without white space: for these, normalising is only case-folding, so the document and the
# validators must agree exactly.
ASCII = st.text(alphabet=string.ascii_letters + string.digits + string.punctuation, max_size=40)


def _resolved(schema: dict[str, Any]) -> dict[str, Any]:
    """A component with its $refs reachable, for jsonschema."""
    return {**schema, "components": DOCUMENT["components"]}


def _schema_admits(schema: dict[str, Any], value: Any) -> bool:
    return jsonschema.Draft202012Validator(_resolved(schema)).is_valid(value)


def _request_bodies() -> set[str]:
    names = set()
    for item in DOCUMENT["paths"].values():
        for operation in item.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            if "$ref" in body.get("schema", {}):
                names.add(body["schema"]["$ref"].rsplit("/", 1)[-1])
    return names


def test_every_request_body_has_an_example_the_schema_and_the_service_accept() -> None:
    assert _request_bodies() == set(REQUEST_MODELS)
    for name, model in REQUEST_MODELS.items():
        examples = COMPONENTS[name].get("examples")
        assert examples, name
        for example in examples:
            assert _schema_admits(COMPONENTS[name], example), (name, example)
            model.model_validate(example)


def test_no_title_is_a_generated_one() -> None:
    def titles(node: Any) -> list[tuple[str, str]]:
        found = []
        if isinstance(node, dict):
            for name, schema in (node.get("properties") or {}).items():
                if isinstance(schema, dict) and "title" in schema:
                    found.append((name, schema["title"]))
            if "in" in node and isinstance(node.get("schema"), dict) and "title" in node["schema"]:
                found.append((node["name"], node["schema"]["title"]))
            for value in node.values():
                found += titles(value)
        elif isinstance(node, list):
            for value in node:
                found += titles(value)
        return found

    every = titles(DOCUMENT)
    assert every
    generated = [(name, title) for name, title in every if title == generated_title(name) != readable_title(name)]
    assert generated == [], generated
    assert ("amountCents", "Amount (cents)") in every


def test_username_and_email_bounds_are_the_validators() -> None:
    username, email = (
        COMPONENTS["CreateAccount"]["properties"]["username"],
        COMPONENTS["CreateAccount"]["properties"]["email"],
    )
    assert (username["minLength"], username["maxLength"]) == (USERNAME_MIN_CHARS, USERNAME_MAX_CHARS)
    assert username["pattern"] == "^[A-Za-z0-9_.-]{3,30}$"
    assert (email["minLength"], email["maxLength"]) == (3, EMAIL_MAX_BYTES)
    cursor = next(
        parameter["schema"]["anyOf"][0]
        for parameter in DOCUMENT["paths"]["/accounts/{accountId}/ledger"]["get"]["parameters"]
        if parameter["name"] == "cursor"
    )
    assert cursor["maxLength"] == CURSOR_MAX_CHARS and cursor["pattern"] == "^[A-Za-z0-9_-]+$"


def _service_accepts_username(value: str) -> bool:
    try:
        request_model("CreateAccount").model_validate({"email": "a@b.example", "username": value})
    except ValidationError:
        return False
    return username_problem(unique_form(value)) is None


def _service_accepts_email(value: str) -> bool:
    try:
        request_model("CreateAccount").model_validate({"email": value, "username": "abc"})
    except ValidationError:
        return False
    return email_problem(unique_form(value)) is None


@settings(max_examples=300, deadline=None)
@given(ASCII | st.sampled_from(["0", "ab", "abc", "a" * 30, "a" * 31, "a.b-c_d", "a b", "a!b", "ÀBC"]))
def test_a_username_is_admitted_by_the_document_exactly_when_the_service_accepts_it(value: str) -> None:
    schema = COMPONENTS["CreateAccount"]["properties"]["username"]
    assert _schema_admits(schema, value) == _service_accepts_username(value), value


@settings(max_examples=300, deadline=None)
@given(
    ASCII
    | st.builds(lambda a, b: f"{a}@{b}", ASCII, ASCII)
    | st.sampled_from(["000", "a@b", "@b", "a@", "a@b@c", "a @b", "a\u200b@b", "a\x00@b", "x" * 250 + "@b.io"])
)
def test_an_email_is_admitted_by_the_document_exactly_when_the_service_accepts_it(value: str) -> None:
    schema = COMPONENTS["CreateAccount"]["properties"]["email"]
    assert _schema_admits(schema, value) == _service_accepts_email(value), value


@pytest.mark.parametrize("spelling", ["  ada_1 ", "\uff21\uff24\uff21_1", "ADA.1"])
def test_other_spellings_of_a_valid_username_are_accepted_too(spelling: str) -> None:
    """Documented: the schema states the normalised form; spellings that normalise into it pass as well."""
    assert _service_accepts_username(spelling)


def _normal_form_holds_what_a_pattern_refuses(character: str) -> bool:
    """The character's normal form (NFKC, case-folded) holds a space, a control or other forbidden character, or an
    @: a reason a pattern can state, so the published pattern must state it."""
    return any(
        ch.isspace() or ch == "@" or unicodedata.category(ch) in FORBIDDEN_CHARACTER_CATEGORIES
        for ch in folded(character)
    )


def test_the_email_pattern_admits_no_character_whose_normal_form_the_service_refuses_by_shape() -> None:
    """Schemathesis found `¯` (U+00AF): the pattern admitted it, but its normal form is a space and a macron, so the
    service answered "no spaces". Every such character, over the whole repertoire, is refused by the pattern in the
    local part and in the domain, and by the service."""
    pattern = re.compile(COMPONENTS["CreateAccount"]["properties"]["email"]["pattern"])
    statable = [
        chr(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) != "Cs" and _normal_form_holds_what_a_pattern_refuses(chr(code))
    ]
    assert "\u00af" in statable and "\uff20" in statable and len(statable) > 100
    spellings = [(f"a{ch}b@example.com", f"ab@ex{ch}ample.com") for ch in statable]
    admitted = [value for pair in spellings for value in pair if pattern.search(value)]
    assert admitted == []
    accepted = [value for pair in spellings for value in pair if email_problem(email_form(value)) is None]
    assert accepted == []


@pytest.mark.parametrize("value", ["kate@example.com.", "kate@example.com\u3002", "kate@example.com\uff0e"])
def test_the_email_pattern_refuses_a_domain_ending_with_a_full_stop(value: str) -> None:
    schema = COMPONENTS["CreateAccount"]["properties"]["email"]
    assert not _schema_admits(schema, value)
    assert email_problem(email_form(value)) is not None
