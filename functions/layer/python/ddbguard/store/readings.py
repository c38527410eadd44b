"""Every way a person may read a unique value, in any case: the values its locks are keyed by.

Two values collide exactly when a person could read one as the other: some case form of one (each letter in its
small or capital form) has the same UTS #39 skeleton as some case form of the other, the skeletons compared
without case (addresses are case-insensitive). `мама` in capitals, `МАМА`, has the skeleton `MAMA`, which is
`mama` in capitals: one address. A letter whose capital and small forms read as different letters (Greek `ν`
reads as v, its capital `Ν` as N) gives its value one reading per choice, and the value takes one lock per
reading, so it collides with every value it can be read as. A value is read letter by letter (each base character
with its combining marks), and its readings are every combination of its letters' readings.

A letter's reading is the skeleton of its case form (NFD, each character replaced by its prototype in Unicode's
confusables data, NFD again), in small letters, with three additions to the standard, each listed in
docs/decisions/049-one-lock-per-reading-of-a-value.md):

- a dot above on a soft-dotted letter (`i` + U+0307, what `İ` folds to) is not seen: the letter's own dot is drawn
  in its place (Unicode's After_Soft_Dotted condition), so it is left out;
- a small capital reads as its capital (`ʙ` as B), `i` as `l` (the standard reads capital I as l, so every i
  already has that reading) and `rn` as `m` (the standard reads m as rn): each keeps one lock where two would say
  the same;
- a reading that every letter showing it also shows another way is dropped (`dominated` in the data): that drops
  no collision and keeps Armenian, Cyrillic and Greek names within a few locks.

ASCII values never load the data: their readings are `ASCII_READINGS` (derived from the same data and checked
against it by tests/unit/test_readings.py).
"""

from __future__ import annotations

import itertools
import math
import unicodedata
from collections.abc import Iterator

from ddbguard.limits import MAX_READINGS
from ddbguard.store import confusables
from ddbguard.store.confusables import LookAlikeData

__all__ = [
    "ASCII_READINGS",
    "TooManyReadings",
    "case_forms",
    "count",
    "final_sigmas",
    "letter_readings",
    "letters",
    "reading",
    "readings",
    "translation",
    "units",
]

# What each ASCII character reads as, where that is another text (the data's prototypes, in small letters).
ASCII_READINGS = {'"': "''", "%": "\u00ba/\u2080", "0": "o", "1": "l", "`": "'", "i": "l", "|": "l"}
_ASCII_TABLE = str.maketrans(ASCII_READINGS)
# A soft dot is hidden by a dot above that follows with no character of combining class 0 or 230 between.
_DOT_ABOVE = "\u0307"
_FINAL_SIGMA, _SIGMA, _CAPITAL_SIGMA = "\u03c2", "\u03c3", "\u03a3"


class TooManyReadings(ValueError):
    """A value that reads more ways than `MAX_READINGS` (it would need more locks than a write may take)."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} readings, more than {MAX_READINGS}")
        self.count = count


def _is_mark(character: str) -> bool:
    return unicodedata.category(character).startswith("M")


def units(decomposed: str) -> Iterator[tuple[int, str, str]]:
    """(index, base, marks) of each letter of an NFD text: a base character with the combining marks after it."""
    start = 0
    for index in range(1, len(decomposed) + 1):
        if index == len(decomposed) or not _is_mark(decomposed[index]):
            yield start, decomposed[start], decomposed[start + 1 : index]
            start = index


def final_sigmas(decomposed: str) -> set[int]:
    """Where a small sigma ends a word (Unicode's Final_Sigma condition, as `str.lower` applies it): there its
    case forms include `ς` as well as `σ` and `Σ`."""
    if _SIGMA not in decomposed:
        return set()
    # Only U+0130 lowers to two characters, and NFD text has none: indices stay aligned.
    lowered = decomposed.replace(_SIGMA, _CAPITAL_SIGMA).lower()
    return {index for index, character in enumerate(lowered) if character == _FINAL_SIGMA}


def case_forms(base: str, final_sigma: bool = False) -> set[str]:
    """The character itself and its capital, title and small forms (single characters: `ß` has no one-letter
    capital, and stays apart from `ss` as IDNA2008 keeps it)."""
    forms = {base, *(form for form in (base.upper(), base.title(), base.lower()) if len(form) == 1)}
    if final_sigma:
        forms.add(_FINAL_SIGMA)
    return forms


def _without_hidden_dots(text: str, soft_dotted: frozenset[str]) -> str:
    kept: list[str] = []
    after_soft_dot = False
    for character in text:
        if character == _DOT_ABOVE and after_soft_dot:
            continue
        if character in soft_dotted:
            after_soft_dot = True
        elif unicodedata.combining(character) in (0, 230):
            after_soft_dot = False
        kept.append(character)
    return "".join(kept)


def translation(look: LookAlikeData) -> dict[int, str]:
    """The single-character additions: small capitals read as their capitals, `i` as `l`."""
    return {ord("i"): "l"} | {ord(source): target for source, target in look.small_capitals.items()}


def reading(text: str, look: LookAlikeData, table: dict[int, str], domain: bool = False) -> str:
    """How `text` reads: its skeleton without case, hidden dots left out, with the additions. Without case is
    full case folding (`ß` reads as ss, as `Straße` and `Strasse` are one address), but in a domain, where
    IDNA2008 keeps `ß` and `ς` apart from `ss` and `σ`, it is small letters."""
    shape = confusables.skeleton(text, look.prototypes)
    uncased = "".join(character.lower() for character in shape) if domain else shape.casefold()
    return _without_hidden_dots(unicodedata.normalize("NFD", uncased), look.soft_dotted).translate(table)


def letter_readings(
    base: str, marks: str, final_sigma: bool, look: LookAlikeData, table: dict[int, str], domain: bool = False
) -> list[str]:
    """The readings of one letter in every case form, less those the data marks as dominated (checked on the bare
    letter: the marks read the same in every case form)."""
    forms = case_forms(base, final_sigma)
    bare = {form: reading(form, look, table, domain) for form in forms}
    shown = set(bare.values())
    kept = {
        (reading(form + marks, look, table, domain) if marks else bare[form]).replace("rn", "m")
        for form in forms
        if look.dominated.get(bare[form]) not in shown
    }
    return sorted(kept)


def _part_letters(text: str, look: LookAlikeData, table: dict[int, str], domain: bool) -> list[list[str]]:
    decomposed = unicodedata.normalize("NFD", text)
    finals = final_sigmas(decomposed)
    return [
        letter_readings(base, marks, index in finals, look, table, domain) for index, base, marks in units(decomposed)
    ]


def letters(value: str, look: LookAlikeData | None = None) -> list[list[str]]:
    """Each letter's readings, in order; after an email's last @, the domain's (compared as IDNA2008 does)."""
    look = look or confusables.data()
    table = translation(look)
    local, at, domain = value.rpartition("@")
    if not at:
        return _part_letters(value, look, table, domain=False)
    return [*_part_letters(local, look, table, False), ["@"], *_part_letters(domain, look, table, True)]


def count(value: str) -> int:
    """How many readings a value has (combinations of its letters' readings)."""
    if value.isascii():
        return 1
    return math.prod(len(options) for options in letters(value))


def _joined(parts: tuple[str, ...]) -> str:
    return unicodedata.normalize("NFC", "".join(parts).replace("rn", "m"))


def readings(value: str, look: LookAlikeData | None = None) -> tuple[str, ...]:
    """Every reading of a stored (normalised) value, sorted: the values of its locks. An ASCII value has one;
    a value past `MAX_READINGS` raises TooManyReadings (the normaliser refuses it before anything is written)."""
    if value.isascii() and look is None:
        return (value.lower().translate(_ASCII_TABLE).replace("rn", "m"),)
    options = letters(value, look)
    combinations = math.prod(len(choices) for choices in options)
    if combinations > MAX_READINGS:
        raise TooManyReadings(combinations)
    return tuple(sorted({_joined(parts) for parts in itertools.product(*options)}))
