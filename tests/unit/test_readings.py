"""Lock values, proven over the whole repertoire, not over examples (`ddbguard.store.readings`).

Every accepted code point, alone, between letters and ending a word, shares a lock with every other accepted code
point of the same plain UTS #39 skeleton: 0 split groups. The data the locks are built from is what the build
script derives from Unicode's files, at the Unicode version of the runtime's normalisation.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

import idna.idnadata
import pytest

from ddbguard.domain.normalize import email_form, email_problem
from ddbguard.limits import MAX_READINGS
from ddbguard.store import confusables, keys, readings

ROOT = Path(__file__).resolve().parents[2]
PLACEMENTS = ("{0}@example.com", "ab{0}cd@example.com", "ab{0}@example.com")


def _build_script():
    spec = importlib.util.spec_from_file_location("compact_confusables", ROOT / "scripts/compact_confusables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _locks(raw: str) -> set[str] | None:
    """The lock values of `raw` as an email, or None when the service refuses it."""
    stored = email_form(raw)
    if email_problem(stored) is not None:
        return None
    return set(readings.readings(stored))


def test_every_accepted_code_point_shares_a_lock_with_every_look_alike():
    """Walks every code point: groups them by plain skeleton; in every group of two or more, every two accepted
    members, in each placement, share a lock (a code point alone in its look has nothing to be confused with)."""
    started = time.monotonic()
    groups: dict[str, list[str]] = defaultdict(list)
    walked = 0
    for code in range(sys.maxunicode + 1):
        character = chr(code)
        if unicodedata.category(character) in ("Cs", "Cn", "Co"):
            continue
        walked += 1
        groups[confusables.skeleton(character)].append(character)
    shared = [members for members in groups.values() if len(members) > 1]
    split: list[tuple[str, str, str]] = []
    accepted = 0
    for members in shared:
        for placement in PLACEMENTS:
            locked = [(ch, locks) for ch in members if (locks := _locks(placement.format(ch))) is not None]
            accepted += len(locked)
            for index, (first, first_locks) in enumerate(locked):
                split += [(placement, first, other) for other, locks in locked[index + 1 :] if not first_locks & locks]
    # How long it took is printed, not asserted (speed lives in benchmarks): under 30 s on an idle 2-core machine.
    elapsed = time.monotonic() - started
    print(f"{walked} code points, {len(shared)} looks shared by two or more, {accepted} placements accepted")
    print(f"walked in {elapsed:.1f} s")
    assert walked > 149_000
    assert split == []
    assert accepted > 20_000


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("мама", "mama"),  # МАМА in capitals reads exactly as MAMA
        ("вера", "bepa"),
        ("нет", "het"),
        ("ΚΑΤΕ", "kate"),
        ("Гeorge", "Γeorge"),  # identical capitals
        ("вот", "ʙот"),  # a Latin small capital reads as the Cyrillic small letter
        ("кот", "ᴋот"),
        ("alice", "ALİCE"),  # İ folds to i and a dot above, which a soft-dotted i hides
        ("alice", "al\u0131\u0307ce"),
        ("alice", "al1ce"),  # I, l and 1 share a prototype
        ("mama", "rnarna"),
        ("Νίκο", "Nίko"),  # Greek capital nu reads as N
        ("νίκο", "vίko"),  # and its small letter as v
    ],
)
def test_look_alikes_in_any_case_share_a_lock(first, second):
    first_locks, second_locks = _locks(f"{first}@example.com"), _locks(f"{second}@example.com")
    assert first_locks is not None and second_locks is not None
    assert first_locks & second_locks


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("a\u2014b", "alb"),  # an em dash is not pulled into l's class by its vertical form
        ("nikos", "vikos"),  # Greek nu reads as both, but they are not one another
        ("x@stra\u00dfe.de", "x@strasse.de"),  # IDNA2008: two registrable domains
        ("x@\u00df.de", "x@ss.de"),
        ("user\u2780", "user1"),
    ],
)
def test_different_values_do_not_share_a_lock(first, second):
    first_email = first if "@" in first else f"{first}@example.com"
    second_email = second if "@" in second else f"{second}@example.com"
    first_locks, second_locks = _locks(first_email), _locks(second_email)
    assert first_locks is not None and second_locks is not None
    assert not first_locks & second_locks


def test_a_value_that_reads_two_ways_takes_a_lock_for_each():
    """Greek nu reads as v, and as N in capitals; a final sigma as o (small), as esh (capital Sigma) and as itself."""
    locks = readings.readings(email_form("\u039d\u03af\u03ba\u03bf\u03c2@example.com"))
    assert locks == tuple(
        sorted(f"{nu}\u013ako{sigma}@example.com" for nu in "nv" for sigma in ("o", "\u0283", "\u03c3"))
    )


def test_ascii_readings_are_the_datas():
    """ASCII values never load the data: their table says what the data says, character by character."""
    look = confusables.data()
    for code in range(0x20, 0x7F):
        character = chr(code)
        assert readings.readings(character) == readings.readings(character, look), repr(character)
    assert readings.readings("bill1") == readings.readings("billl") == ("bllll",)


def test_the_data_is_what_the_build_derives_from_its_prototypes():
    """Small capitals, dominated readings and misread characters, derived again from the shipped prototypes and
    soft-dotted letters, are the shipped ones: the data was not edited by hand."""
    build = _build_script()
    shipped = confusables.data()
    bare = shipped.replaced(small_capitals={}, dominated={}, misread=frozenset())
    assert build.small_capitals(bare) == shipped.small_capitals
    with_capitals = bare.replaced(small_capitals=shipped.small_capitals)
    assert build.misread(with_capitals) == set(shipped.misread)
    assert build.dominated(with_capitals) == shipped.dominated


def test_one_unicode_version_for_normalisation_confusables_and_domains():
    """Normalisation, case mapping and character properties are the runtime's `unicodedata` (Python 3.13:
    Unicode 15.1); the look-alike data and the IDNA tables must be of that version too."""
    assert confusables.data_version() == unicodedata.unidata_version
    assert idna.idnadata.__version__ == unicodedata.unidata_version


def test_the_bound_keeps_a_change_of_both_values_within_one_transaction():
    """A PATCH of email and username puts the new locks and deletes the old ones beside the account and the
    request marker: at most MAX_READINGS each for the email, one each for an ASCII username."""
    assert 2 * MAX_READINGS + 2 * 1 + 2 <= 100


def test_a_value_past_the_bound_is_refused_with_its_count():
    value = "\u03bd\u03bd\u03bd\u03bd\u03bd\u03bd@example.com"  # six Greek nu: 64 readings
    problem = email_problem(email_form(value))
    assert problem is not None and "64 ways" in problem.message
    with pytest.raises(readings.TooManyReadings):
        keys.lock_keys("EMAIL", email_form(value))


def test_lock_keys_are_the_readings_sorted():
    assert keys.lock_keys("EMAIL", "alice@example.com") == ({"PK": "UNIQ#EMAIL#allce@example.com", "SK": "LOCK"},)
    greek = email_form("\u03bd\u03b1@x.io")
    assert [key["PK"] for key in keys.lock_keys("EMAIL", greek)] == ["UNIQ#EMAIL#na@x.lo", "UNIQ#EMAIL#va@x.lo"]


def test_the_data_loads_on_the_first_non_ascii_value_only():
    """An ASCII address is normalised, checked and keyed without reading confusables.tsv; the first non-ASCII one
    reads it."""
    confusables.data.cache_clear()
    try:
        value = email_form("Ada.Lovelace1@Example.com")
        assert email_problem(value) is None
        assert keys.lock_keys("EMAIL", value) == ({"PK": "UNIQ#EMAIL#ada.lovelacel@example.com", "SK": "LOCK"},)
        assert confusables.data.cache_info().currsize == 0
        keys.lock_keys("EMAIL", email_form("\u0430da@example.com"))
        assert confusables.data.cache_info().currsize == 1
    finally:
        confusables.data()
