"""Real names are always welcome: 1,681 given names and surnames from Unicode CLDR, in 27 scripts, as email local
parts in small, capital, title and mixed case (tests/data/real_names.tsv says where they come from and under
which licence).

Every spelling is accepted and stored as the name's one value; every name takes at most MAX_READINGS locks; and
two names share a lock only when the rule itself calls them confusable: some case form of one has the plain UTS #39
skeleton of some case form of the other, compared without case (none of the service's additions needed). The
pairs are printed for a person to read.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

from ddbguard.domain.normalize import email_form, email_problem
from ddbguard.limits import MAX_READINGS
from ddbguard.store import confusables, readings

CORPUS = Path(__file__).resolve().parents[1] / "data" / "real_names.tsv"
# Every text field refuses zero-width characters (docs/api.md); four names are written with a zero-width joiner or
# non-joiner between Indic letters, so they are refused as every such string is.
ZERO_WIDTH = {"\u200c", "\u200d"}


def _names() -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in CORPUS.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return [(name, locale) for name, locale, _ in rows]


def _script(name: str) -> str:
    return next(unicodedata.name(ch).split()[0] for ch in name if ch.isalpha())


def _mixed(name: str) -> str:
    return "".join(ch.upper() if index % 2 else ch.lower() for index, ch in enumerate(name))


def _spellings(name: str) -> set[str]:
    return {name, name.lower(), name.upper(), name.title(), _mixed(name)}


def _plain_readings(stored: str) -> set[str]:
    """The rule without the service's additions: plain skeletons of every case form, without case."""
    decomposed = unicodedata.normalize("NFD", stored)
    finals = readings.final_sigmas(decomposed)
    letters = [
        {confusables.skeleton(form + marks).casefold() for form in readings.case_forms(base, index in finals)}
        for index, base, marks in readings.units(decomposed)
    ]
    return {unicodedata.normalize("NFD", "".join(parts)) for parts in itertools.product(*letters)}


def test_the_corpus_is_large_and_in_many_scripts():
    names = _names()
    scripts = Counter(_script(name) for name, _ in names)
    assert len(names) >= 1000
    assert len(scripts) >= 12, scripts


def test_every_spelling_of_every_name_is_accepted_as_one_address_within_the_bound():
    refused: list[tuple[str, str]] = []
    most = 0
    for name, _ in _names():
        stored = {email_form(f"{spelling}@example.com") for spelling in _spellings(name)}
        problems = [problem for value in stored if (problem := email_problem(value)) is not None]
        if problems:
            refused.append((name, problems[0].message))
            continue
        # One value, or (a dotless ı written in capitals is an I, whose small letter is i) values sharing a lock.
        assert set.intersection(*(set(readings.readings(value)) for value in stored)), (name, stored)
        most = max(most, *(readings.count(value) for value in stored))
    print(f"most locks a name takes: {most} (bound {MAX_READINGS})")
    assert [name for name, _ in refused] == [name for name, _ in _names() if ZERO_WIDTH & set(name)], refused
    assert all("spaces" in message for _, message in refused)
    assert 1 < most <= MAX_READINGS


def test_names_share_a_lock_only_when_the_rule_calls_them_confusable():
    holders: dict[str, set[str]] = defaultdict(set)
    for name, _ in _names():
        value = email_form(name)
        if email_problem(f"{value}@example.com") is None:
            for reading in readings.readings(value):
                holders[reading].add(value)
    pairs = sorted({pair for values in holders.values() for pair in itertools.combinations(sorted(values), 2)})
    for first, second in pairs:
        print(f"confusable: {first} / {second}")
    outside_the_rule = [(a, b) for a, b in pairs if not _plain_readings(a) & _plain_readings(b)]
    assert outside_the_rule == []
    assert len(pairs) < 20  # a handful of true look-alikes (Cyrillic for Latin, Persian for Arabic letters)
