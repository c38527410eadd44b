"""The comparable form of a unique value, proven over the whole confusables data, not over examples.

For every ASCII letter and digit, every look-alike Unicode's confusables.txt lists for it (the characters whose
prototype is the letter's prototype), in its listed case and in its other case, alone and mixed into a taken
address written in lower and in upper case, is refused: either its lock key is the taken address's key (409), or
the value itself is refused (422: an ambiguous or invisible character).

Documented exceptions (docs/api.md, `ddbguard.store.confusables`):
- ASCII is its own prototype: TR39's shapes 1/I/l, 0/O and m/rn stay distinct ASCII letters, so a look-alike of
  one of them reaches the letter TR39 names for the shape (a Cyrillic `Ӏ` is refused beside `al.x`, not `a1.x`);
  `SHAPES` lists them and the comparison below treats each shape as one letter.
- The other case of a look-alike is tested unless that case is ASCII itself (`ſ`.upper() is `S`) or the data lists
  it as a look-alike of another letter (`β`, the lower case of a `B` twin, is listed as `ß`).
"""

from __future__ import annotations

import string
import unicodedata
from pathlib import Path

import pytest

from ddbguard.domain.normalize import EMAIL, email_form, email_problem, unique_form
from ddbguard.store import confusables

DATA = Path(confusables.__file__).with_name("confusables.tsv")
SHAPES = ({"l", "1", "i"}, {"o", "0"}, {"m", "rn"})
TAKEN = ("ab{0}cd@example.com", "AB{0}CD@EXAMPLE.COM", "{0}{0}{0}@{0}x.com")


def _data() -> dict[str, str]:
    mapping = {}
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split("\t")
            mapping[chr(int(source, 16))] = "".join(chr(int(point, 16)) for point in target.split())
    return mapping


def _shape(value: str) -> str:
    """A lock key with each documented ASCII shape written as one letter."""
    for group in SHAPES:
        first, *others = sorted(group)
        for other in others:
            value = value.replace(other, first)
    return value


def _refused_beside(variant: str, taken: str) -> bool:
    normalised = email_form(variant)
    if email_problem(normalised) is not None:
        return True
    return _shape(confusables.lock_value(normalised)) == _shape(confusables.lock_value(email_form(taken)))


def _look_alikes(data: dict[str, str], letter: str) -> list[str]:
    prototype = data.get(letter, letter)
    listed = [source for source, target in data.items() if target == prototype and not source.isascii()]
    variants: list[str] = []
    for look_alike in listed:
        for spelling in dict.fromkeys((look_alike, look_alike.lower(), look_alike.upper())):
            listed_as = data.get(spelling, prototype).casefold()
            listed_elsewhere = listed_as.isascii() and listed_as != prototype.casefold()
            if spelling.isascii() or (spelling != look_alike and listed_elsewhere):
                continue
            variants.append(spelling)
    return variants


def test_every_listed_look_alike_of_every_ascii_letter_and_digit_is_refused():
    data = _data()
    admitted: list[tuple[str, str, str]] = []
    checked = 0
    for letter in string.ascii_letters + string.digits:
        look_alikes = _look_alikes(data, letter)
        assert look_alikes, f"the data lists no look-alike of {letter!r}"
        for look_alike in look_alikes:
            for taken in TAKEN:
                checked += 1
                if not _refused_beside(taken.format(look_alike), taken.format(letter)):
                    admitted.append((letter, look_alike, taken.format(look_alike)))
    assert admitted == []
    assert checked > 6000  # the whole data, in three placements each


@pytest.mark.parametrize("letter", ["K", "T", "E", "A", "C", "H", "M", "P", "X"])
def test_a_capital_look_alike_and_its_lower_case_reach_the_letter(letter):
    data = _data()
    capitals = [s for s, t in data.items() if t == data.get(letter, letter) and s.isupper() and not s.isascii()]
    assert capitals
    for capital in capitals:
        if email_problem(email_form(f"{capital}x@y.z")) is None:
            assert confusables.lock_value(unique_form(capital)) == letter.lower(), capital
            assert confusables.lock_value(unique_form(capital.lower())) in {letter.lower(), capital.lower()}


def test_case_never_splits_an_address_over_two_keys():
    """Every listed character that is accepted has one key in upper and in lower case."""
    for character in _data():
        if character.isascii():
            continue
        keys = set()
        for spelling in {character, character.lower(), character.upper()}:
            normalised = email_form(f"x{spelling}@y.z")
            if email_problem(normalised) is None:
                keys.add(_shape(confusables.lock_value(normalised)))
        assert len(keys) <= 1, (character, keys)


def test_a_stored_value_normalises_to_itself_and_keeps_its_key():
    """The audit and a PATCH to the same value recompute the key from the stored value: it must not move."""
    for character in _data():
        stored = email_form(f"a{character}b@x.io")
        if EMAIL.problem("email", stored) is None:
            assert email_form(stored) == stored, character
            assert confusables.lock_value(email_form(stored)) == confusables.lock_value(stored), character


@pytest.mark.parametrize(
    "mark",
    ["\u034f", "\ufe0f", "\u180b", "\u3164", "\u115f", "\uffa0", "\u200b", "\u200d", "\u2060", "\U000e0100", "\u00ad"],
)
def test_invisible_marks_are_refused(mark):
    for spelling in (f"kate{mark}@example.com", f"kate@exa{mark}mple.com", f"kate@b\u00fc{mark}cher.example"):
        problem = email_problem(email_form(spelling))
        assert problem is not None and problem.code == "invalid_format", spelling


@pytest.mark.parametrize("character", ["\u03f2", "\u03f9", "\u039d", "\u0392"])  # ϲ Ϲ Ν Β
def test_characters_whose_fold_looks_like_another_letter_are_refused(character):
    problem = email_problem(email_form(f"kate.{character}ole@example.com"))
    assert problem is not None and f"U+{ord(character):04X}" in problem.message


def test_an_idn_domain_is_one_address_in_both_spellings():
    unicode_spelling = "kate@b\u00fccher.example"
    assert email_form("kate@xn--bcher-kva.example") == email_form("kate@B\u00dcCHER.example") == unicode_spelling
    assert email_form("kate@xn--zca.de") == email_form("kate@\u00df.de")


def test_an_invalid_idn_domain_is_refused():
    problem = email_problem(email_form("kate@xn--a-ecp.example"))
    assert problem is not None and "domain" in problem.message


def test_the_documented_exceptions_are_the_datas_ascii_shapes():
    """SHAPES (and docs/api.md) list what the data says: ASCII letters and digits TR39 gives one prototype."""
    assert set(confusables.ascii_shapes()) == {frozenset(group) for group in SHAPES}


def test_the_data_is_the_pinned_version_and_nfd_is_a_fixpoint_of_prototypes():
    assert confusables.data_version() == "18.0.0"
    data = _data()
    assert len(data) > 6500
    assert all(unicodedata.is_normalized("NFD", target) for target in data.values() if target.isascii())
