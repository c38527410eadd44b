"""Patterns for the API description that say exactly what the text validators refuse.

No text field may hold a character of `FORBIDDEN_CHARACTER_CATEGORIES` (control, invisible format, lone
surrogate, line and paragraph separators). The character class of those is computed from Python's own Unicode
tables, once, when a schema is generated (never at import: a handler's cold start does not pay for it).
BMP characters are written as `\\uXXXX` escapes and the rest as themselves, which both Python's `re` and
ECMA-262 regexes read.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from ddbguard.limits import BLANK_SYMBOLS, DEFAULT_IGNORABLE_CLASS, FORBIDDEN_CHARACTER_CATEGORIES

if TYPE_CHECKING:
    from pydantic.config import JsonDict, JsonValue

__all__ = [
    "email_pattern",
    "forbidden_characters",
    "refused_by_shape",
    "unseen_characters",
    "visible_text_pattern",
    "with_pattern",
]


def _escaped(code: int) -> str:
    return f"\\u{code:04x}" if code <= 0xFFFF else chr(code)


def _character_class(wanted: Callable[[str], bool]) -> str:
    """The inside of a regex character class matching every character (but lone surrogates) `wanted` accepts."""
    ranges: list[tuple[int, int]] = []
    for code in range(sys.maxunicode + 1):
        # Lone surrogates (Cs) cannot sit in a UTF-8 document, and regex engines refuse them in a class; the
        # validators still refuse an escaped one (`"\\ud800"`).
        if unicodedata.category(chr(code)) != "Cs" and wanted(chr(code)):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(_escaped(a) if a == b else f"{_escaped(a)}-{_escaped(b)}" for a, b in ranges)


@lru_cache(maxsize=1)
def forbidden_characters() -> str:
    """The inside of a regex character class matching every forbidden character."""
    return _character_class(lambda character: unicodedata.category(character) in FORBIDDEN_CHARACTER_CATEGORIES)


@lru_cache(maxsize=1)
def unseen_characters() -> str:
    """The inside of a regex character class matching every character that shows nothing by itself (what
    `ddbguard.domain.normalize.shows_something` does not count): not a letter, number, punctuation or symbol, or
    default-ignorable, or blank."""
    shows_nothing = re.compile(f"[{DEFAULT_IGNORABLE_CLASS}{BLANK_SYMBOLS}]")
    return _character_class(
        lambda character: unicodedata.category(character)[0] not in "LNPS" or bool(shows_nothing.match(character))
    )


@lru_cache(maxsize=1)
def refused_by_shape() -> str:
    """The inside of a regex character class matching every character an email refuses by its shape wherever it
    stands (`ddbguard.domain.normalize.email_problem`): forbidden and white-space characters, and characters whose
    normal form (NFKC, case-folded) holds one or an @ (U+00AF is a space and a macron; the fullwidth at sign is @).

    The other per-character refusals (private use, unassigned, invisible, misread) stay out of the pattern: they
    are hundreds of thousands of code points, which makes the pattern too slow for a schema-driven generator
    (schemathesis fails its health check), and docs/api.md states them with their reasons."""
    from ddbguard.domain.normalize import folded

    def refused(character: str) -> bool:
        return (
            unicodedata.category(character) in FORBIDDEN_CHARACTER_CATEGORIES
            or character.isspace()
            or any(
                ch.isspace() or ch == "@" or unicodedata.category(ch) in FORBIDDEN_CHARACTER_CATEGORIES
                for ch in folded(character)
            )
        )

    return _character_class(lambda character: character != "@" and refused(character))


# Characters UTS #46 reads as a full stop: a domain ends with none of them.
_FULL_STOPS = "\\.\\u3002\\uff0e\\uff61"


def email_pattern() -> str:
    """One @, text on both sides, no character whose normal form is a space, a control character or an @, and no
    full stop ending the domain."""
    refused = f"@\\s{refused_by_shape()}"
    return f"^[^{refused}]+@[^{refused}]*[^{refused}{_FULL_STOPS}]$"


def visible_text_pattern() -> str:
    """No forbidden character, and at least one that shows (so never blank once trimmed)."""
    allowed = f"[^{forbidden_characters()}]"
    return f"^{allowed}*[^{unseen_characters()}]{allowed}*$"


def with_pattern(pattern: Callable[[], str], **extra: JsonValue) -> Callable[[JsonDict], None]:
    """A pydantic `json_schema_extra` that adds `pattern()` (and `extra`) to the schema only, when it is generated."""

    def add(schema: JsonDict) -> None:
        schema.update(pattern=pattern(), **extra)

    return add
