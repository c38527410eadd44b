"""guards/fields.py: fields declared once, with their kind, constraints and example; unique kinds and their rule."""

from __future__ import annotations

import re

import pytest

from ddbguard.errors import FieldError
from ddbguard.guards import fields
from ddbguard.limits import DISPLAY_NAME_MAX_CHARS, MAX_CENTS, MIN_CENTS

SLUG = fields.matching_kind("slug", "[a-z0-9-]", 3, 12, form=lambda raw: raw.strip().casefold())


@pytest.mark.parametrize("value", ["abc", "a-b-c", "0123456789ab"])
def test_a_matching_kind_accepts_its_characters_within_its_lengths(value):
    assert SLUG.problem("slug", value) is None


@pytest.mark.parametrize("value", ["ab", "0123456789abc", "a_b", "ABC", "a b"])
def test_a_matching_kind_refuses_anything_else_naming_the_field(value):
    problem = SLUG.problem("teamSlug", value)
    assert isinstance(problem, FieldError)
    assert (problem.field, problem.code) == ("teamSlug", "invalid_format")
    assert "3 to 12" in problem.message


def test_a_matching_kind_publishes_the_rule_it_checks_for_what_a_client_may_send():
    assert (SLUG.pattern, SLUG.min_length, SLUG.max_length, SLUG.case_insensitive) == ("[a-z0-9-]", 3, 12, True)
    # The form folds case, so a client may send capitals; the published pattern says so.
    assert SLUG.sent_pattern == "^[A-Za-z0-9-]{3,12}$"
    sent = " Team-42 "
    assert re.fullmatch(SLUG.sent_pattern, sent.strip())
    assert SLUG.problem("slug", SLUG.form(sent)) is None


def test_a_case_sensitive_kind_publishes_its_characters_as_they_are():
    exact = fields.UniqueKind(
        name="code",
        form=str.strip,
        problem=SLUG.problem,
        pattern="[a-z]",
        min_length=2,
        max_length=4,
        case_insensitive=False,
    )
    assert exact.sent_pattern == "^[a-z]{2,4}$"


def test_text_is_a_required_visible_string_up_to_the_display_name_bound_by_default():
    said = fields.text("Ada")
    assert (said.kind, said.example, said.required, said.min_length) == (fields.TEXT, "Ada", True, 1)
    assert said.max_length == DISPLAY_NAME_MAX_CHARS
    assert said.unique is None and said.description
    shorter = fields.text("x", max_length=5, required=False, description="A nickname.")
    assert (shorter.max_length, shorter.required, shorter.description) == (5, False, "A nickname.")


def test_integer_states_its_bounds_and_says_them_when_no_description_is_given():
    count = fields.integer(3, minimum=1, maximum=9)
    assert (count.kind, count.minimum, count.maximum, count.example) == (fields.INTEGER, 1, 9, 3)
    assert count.description == "1 to 9."


def test_cents_are_integers_within_the_money_bounds_of_the_whole_api():
    price = fields.cents(1999, required=False)
    assert (price.kind, price.minimum, price.maximum, price.required) == (fields.INTEGER, MIN_CENTS, MAX_CENTS, False)


def test_a_unique_field_carries_its_kind_its_lock_and_the_kinds_length_bound():
    slug = fields.unique(SLUG, "team-42", lock="TEAMSLUG")
    assert (slug.kind, slug.unique, slug.lock, slug.max_length) == (fields.UNIQUE, SLUG, "TEAMSLUG", 12)
    assert "case-insensitively" in slug.description
    exact = fields.UniqueKind(
        name="code",
        form=str.strip,
        problem=SLUG.problem,
        pattern="[a-z]",
        min_length=2,
        max_length=4,
        case_insensitive=False,
    )
    assert "case-insensitively" not in fields.unique(exact, "ab").description


def test_a_kind_stored_in_capitals_accepts_either_case_and_says_so():
    code = fields.matching_kind("code", "[A-Z0-9-]", 3, 8, form=str.strip, capitals=True)
    assert code.sent_pattern == "^[A-Za-z0-9-]{3,8}$"
    assert code.form(" ab-1 ") == "AB-1" and code.problem("code", code.form("ab-1")) is None
    assert "in capitals" in code.stored and "in capitals" in fields.unique(code, "AB-1").description


def test_a_choice_has_a_default_that_is_one_of_its_values():
    state = fields.choice(("DRAFT", "LIVE"), default="DRAFT")
    assert (state.kind, state.required, state.default, state.example, state.nullable) == (
        fields.CHOICE,
        False,
        "DRAFT",
        "DRAFT",
        False,
    )
    with pytest.raises(ValueError):
        fields.choice(("DRAFT", "LIVE"), default="GONE")


def test_what_a_body_may_send_follows_from_the_kind():
    assert not fields.computed(3, minimum=0).on_create and not fields.computed(3).updatable
    assert not fields.reference("a-1").updatable and fields.reference("a-1").required
    closing = fields.flag(default=False, on_create=False)
    assert (closing.on_create, closing.updatable, closing.required, closing.nullable) == (False, True, False, False)
    line = fields.lines("Line", {"n": fields.integer(1, minimum=1, maximum=2)}, max_items=3)
    assert (line.example, line.min_items, line.max_items) == ([{"n": 1}], 1, 3)
