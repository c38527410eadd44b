"""Unique values: one comparable form (NFKC, case-fold, trim), rules checked after normalising."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ddbguard.domain.normalize import (
    CODE,
    EMAIL,
    EMAIL_MAX_BYTES,
    HANDLE,
    clean_display_name,
    code_problem,
    email_problem,
    unique_form,
    username_problem,
)
from ddbguard.errors import InvalidInput
from ddbguard.guards.entity import normalised_values


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Ada@Lovelace.io", "ada@lovelace.io"),
        ("\uff41\uff44\uff41@lovelace.io", "ada@lovelace.io"),  # fullwidth small letters
        (
            "\uff21\uff24\uff21@\uff2c\uff4f\uff56\uff45\uff4c\uff41\uff43\uff45.io",
            "ada@lovelace.io",
        ),  # fullwidth capitals, domain partly fullwidth
        ("  ada@lovelace.io\t", "ada@lovelace.io"),
        ("\u3000ada@lovelace.io\u00a0", "ada@lovelace.io"),  # ideographic and no-break spaces
        ("Straße@x.de", "strasse@x.de"),
        ("STRAẞE@x.de", "strasse@x.de"),  # capital sharp s
        ("\u212aelvin", "kelvin"),  # Kelvin sign
        ("ﬁnance", "finance"),  # ligature
        ("Ω", "ω"),
        ("e\u0301", "é"),  # combining accent composes
    ],
)
def test_unique_form(raw, expected):
    assert unique_form(raw) == expected


def test_variants_of_one_address_share_one_form():
    variants = ["Ada@Lovelace.io", "ada@lovelace.io", " ADA@LOVELACE.IO ", "\uff41\uff44\uff41@lovelace.io"]
    assert {unique_form(v) for v in variants} == {"ada@lovelace.io"}


@given(st.text(max_size=40))
def test_unique_form_is_idempotent(value):
    once = unique_form(value)
    assert unique_form(once) == once


@pytest.mark.parametrize("email", ["a@b", "ada@lovelace.io", "ada+tag@sub.lovelace.io", "ünïcode@exämple.de"])
def test_acceptable_emails(email):
    assert email_problem(unique_form(email)) is None


@pytest.mark.parametrize(
    ("email", "code"),
    [
        ("ada.lovelace.io", "invalid_format"),
        ("@lovelace.io", "invalid_format"),
        ("ada@", "invalid_format"),
        ("a@b@c", "invalid_format"),
        ("ada lovelace@x.io", "invalid_format"),
        ("ada@x\u2028y.io", "invalid_format"),  # line separator
        ("ada@x\u200by.io", "invalid_format"),  # zero-width space
        ("a" * 250 + "@x.io", "too_long"),
        ("é" * 128 + "@x.io", "too_long"),  # 133 characters, 261 bytes
    ],
)
def test_unacceptable_emails(email, code):
    problem = email_problem(unique_form(email))
    assert problem is not None
    assert (problem.field, problem.code) == ("email", code)


def test_email_limit_is_in_utf8_bytes_after_normalising():
    local = "a" * (EMAIL_MAX_BYTES - len("@x.io"))
    assert email_problem(local + "@x.io") is None
    assert email_problem(local + "a@x.io") is not None
    # Each fullwidth letter is 3 bytes before normalising, 1 after: it passes.
    fullwidth = "\uff41" * (EMAIL_MAX_BYTES - len("@x.io"))
    assert email_problem(unique_form(fullwidth + "@x.io")) is None


@pytest.mark.parametrize("username", ["ada", "Ada_Lovelace", "a.b-c_d", "x" * 30, "\uff21\uff24\uff21_1815"])
def test_acceptable_usernames(username):
    assert username_problem(unique_form(username)) is None


@pytest.mark.parametrize(
    "username",
    ["ab", "x" * 31, "ada lovelace", "ada!", "ädä", "ada@home", "", "   ", "\uff21\uff22", "ada\u200b", "İstanbul"],
)
def test_unacceptable_usernames(username):
    problem = username_problem(unique_form(username))
    assert problem is not None
    assert problem.field == "username"


def test_username_length_counts_after_trimming():
    assert username_problem(unique_form("  abc  ")) is None


ACCOUNT_KINDS = {"email": EMAIL, "username": HANDLE}


def test_normalised_values_returns_normal_forms():
    values = {"email": " Ada@X.io", "username": "\uff21\uff24\uff21", "other": None}
    assert normalised_values({**ACCOUNT_KINDS, "other": EMAIL}, values) == {
        "email": "ada@x.io",
        "username": "ada",
    }


def test_normalised_values_lists_every_invalid_field():
    with pytest.raises(InvalidInput) as raised:
        normalised_values(ACCOUNT_KINDS, {"email": "nope", "username": "!"})
    assert sorted(e.field for e in raised.value.errors) == ["email", "username"]


def test_fields_not_sent_are_skipped():
    assert normalised_values(ACCOUNT_KINDS, {"email": None, "username": "ada"}) == {"username": "ada"}


def test_a_field_of_no_declared_kind_is_an_error_not_unchecked():
    with pytest.raises(ValueError):
        normalised_values(ACCOUNT_KINDS, {"sku": "X-1"})


def test_a_code_is_compared_case_insensitively_and_names_its_field():
    assert unique_form(" SKU-42 ") == "sku-42" and code_problem("sku-42", "sku") is None
    problem = code_problem("sku 42", "sku")
    assert problem is not None and problem.field == "sku"


def test_display_name_is_trimmed_not_folded():
    assert clean_display_name("  Ada LOVELACE ") == "Ada LOVELACE"
    for bad in ("   ", "\u202eevil", "a\u0000b"):
        with pytest.raises(InvalidInput):
            clean_display_name(bad)


@pytest.mark.parametrize(
    ("kind", "field", "bad"), [(EMAIL, "email", "nope"), (HANDLE, "username", "!"), (CODE, "sku", "sku 42")]
)
def test_every_kind_checks_the_value_it_is_given_not_the_fields_name(kind, field, bad):
    with pytest.raises(InvalidInput) as raised:
        normalised_values({field: kind}, {field: bad})
    assert [error.field for error in raised.value.errors] == [field]
