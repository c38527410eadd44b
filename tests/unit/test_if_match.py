"""If-Match is parsed strictly in one place: only `"<version>"` names a version.

Anything else is either a well-formed entity-tag that can never match (NEVER_MATCHES, which the
versioned write turns into 412 with the current item) or not an entity-tag at all (400). Never
another exception, never a 5xx.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddbguard_api.http.headers import MAX_SAFE_VERSION, NEVER_MATCHES, parse_if_match
from ddbguard_api.http.problems import EdgeError

NOT_A_VERSION = [
    'W/"7"',  # weak: never equal under strong comparison
    "*",
    '"1", "2"',
    '"7","8"',
    '"07"',  # leading zero
    '"+7"',
    '"-1"',
    '" 7"',
    '"7 "',
    ' "7"',
    '"7" ',
    '"٣"',  # ARABIC-INDIC DIGIT THREE
    '"\uff17"',  # FULLWIDTH DIGIT SEVEN
    '"7.0"',
    '"1e3"',
    '"0x7"',
    f'"{MAX_SAFE_VERSION + 1}"',  # past 2^53: a client cannot hold it exactly
    '"99999999999999999999"',
    "7",  # unquoted
    '"7',
    '7"',
    "",
    " ",
    '""',
    '"7"x',
    "W/7",
    "\x00",
]


def outcome(raw: str) -> int | str | None:
    """The parsed version, or "400:<code>" for an EdgeError."""
    try:
        return parse_if_match(raw)
    except EdgeError as error:
        return f"{error.status}:{error.code}"


@pytest.mark.parametrize(("raw", "version"), [('"7"', 7), ('"0"', 0), (f'"{MAX_SAFE_VERSION}"', MAX_SAFE_VERSION)])
def test_a_strong_numeric_etag_names_its_version(raw, version):
    assert parse_if_match(raw) == version


def test_absent_header_is_none_so_the_route_answers_428():
    assert parse_if_match(None) is None


@pytest.mark.parametrize("raw", NOT_A_VERSION)
def test_anything_else_never_names_a_version(raw):
    assert outcome(raw) in (NEVER_MATCHES, "400:invalid_if_match")


@pytest.mark.parametrize("raw", ['W/"7"', "*", '"1", "2"', '"07"', '"+7"', '"-1"', f'"{MAX_SAFE_VERSION + 1}"'])
def test_well_formed_tags_that_are_not_ours_never_match(raw):
    assert parse_if_match(raw) == NEVER_MATCHES


@pytest.mark.parametrize("raw", ["7", "", '"٣"', '" 7"', '"7 "', '"7"x'])
def test_what_is_not_an_entity_tag_is_400(raw):
    with pytest.raises(EdgeError) as raised:
        parse_if_match(raw)
    assert raised.value.status == 400


_ETAG_LIKE = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=30).map(lambda s: f'"{s}"'),
    st.from_regex(r'\s*(W/)?"[0-9+\-. ]{0,25}"(\s*,\s*(W/)?"[0-9]{0,3}")*\s*', fullmatch=True),
    st.integers(min_value=-(2**70), max_value=2**70).map(lambda n: f'"{n}"'),
)


@settings(max_examples=300, deadline=None)
@given(_ETAG_LIKE)
def test_arbitrary_text_yields_a_safe_version_or_never_matches_or_400(raw):
    result = outcome(raw)
    if isinstance(result, str):
        assert result == "400:invalid_if_match"
    else:
        assert result == NEVER_MATCHES or 0 <= result <= MAX_SAFE_VERSION
        if result != NEVER_MATCHES:
            assert raw == f'"{result}"'  # only the canonical spelling names a version
