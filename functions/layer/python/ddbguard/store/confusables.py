"""One address however it is spelled: the Unicode TR39 confusable skeleton of a non-ASCII unique value.

A lock key is spelled from a value's skeleton, so `alice@example.com` spelled with a Cyrillic a, with a Greek alpha,
or with a Cyrillic a in its domain (an IDN look-alike) claims the one lock of `alice@example.com`. The confusables
data is Unicode's own (confusables.txt), as the `confusable-homoglyphs` library ships it. Its map goes both ways
(a prototype lists every look-alike), so a character is replaced only by an ASCII look-alike: the prototypes TR39
maps Latin look-alikes to. Pure-ASCII values are left as they are: their keys stay what they always were, and
ASCII `1` and `l` stay two characters.

The library (about 1 MB of data) is imported on the first non-ASCII value only: a cold start never pays for it.
"""

from __future__ import annotations

import unicodedata
from functools import cache

# Bidi marks the library's data wraps some right-to-left look-alikes in; not part of any look-alike.
_MARKS = "\u200e\u200f"


@cache
def _ascii_twin(character: str) -> str:
    """The ASCII look-alike confusables.txt gives a character, or the character itself."""
    from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]

    for candidate in confusables_data.get(character, ()):
        text = candidate["c"].strip(_MARKS)
        if text and text.isascii() and text.isprintable():
            return text
    return character


def skeleton(value: str) -> str:
    """TR39's skeleton (NFD, each character to its prototype, NFD again), then NFC and case-folded, so a skeleton
    compares as the unique value it stands for (prototypes may be capitals)."""
    mapped = "".join(ch if ch.isascii() else _ascii_twin(ch) for ch in unicodedata.normalize("NFD", value))
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", mapped).casefold())


def lock_value(value: str) -> str:
    """What a lock key is spelled from: the value itself when ASCII, else its skeleton."""
    return value if value.isascii() else skeleton(value)
