"""Every limit the service enforces, in one place: the edge's models and the domain's checks read these.

Unique values are checked after normalising (see `ddbguard.domain.normalize`), so their limits
are limits of the normalised form; the edge only bounds the raw input's size.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = [
    "BLANK_SYMBOLS",
    "CURSOR_MAX_CHARS",
    "CURSOR_PATTERN",
    "DEFAULT_IGNORABLE_CLASS",
    "DISPLAY_NAME_MAX_BYTES",
    "DISPLAY_NAME_MAX_CHARS",
    "EMAIL_MAX_BYTES",
    "EMAIL_MIN_CHARS",
    "FORBIDDEN_CHARACTER_CATEGORIES",
    "IDEMPOTENCY_KEY_MAX_CHARS",
    "MAX_BALANCE_BYTES",
    "MAX_BODY_BYTES",
    "MAX_BODY_DEPTH",
    "MAX_CENTS",
    "MAX_INCOMING_PENDING_ENTRIES",
    "MAX_ORDER_LINES",
    "MAX_ORDER_TOTAL_CENTS",
    "MAX_PENDING_ENTRIES",
    "MAX_QUANTITY",
    "MAX_READINGS",
    "MIN_CENTS",
    "PAGE_DEFAULT",
    "PAGE_MAX",
    "RESOURCE_ID_PATTERN",
    "SKU_PATTERN",
    "UNIQUE_VALUE_RAW_MAX_CHARS",
    "USERNAME_MAX_CHARS",
    "USERNAME_MIN_CHARS",
    "USERNAME_PATTERN",
    "VISIBLE_CATEGORY_CLASSES",
    "has_forbidden_characters",
    "shows_something",
    "utf8_length",
]

# Money: an integer number of cents.
MIN_CENTS: Final = 1
MAX_CENTS: Final = 100_000_000_000
# An order's total is money too.
MAX_ORDER_TOTAL_CENTS: Final = MAX_CENTS
MAX_ORDER_LINES: Final = 100
MAX_QUANTITY: Final = 10_000
SKU_PATTERN: Final = r"^[A-Za-z0-9_.-]{1,64}$"

# RFC 5321 limits a path to 254 octets and RFC 6531 keeps that limit in octets for UTF-8
# addresses; counting UTF-8 bytes also bounds the characters at 254.
EMAIL_MAX_BYTES: Final = 254
EMAIL_MIN_CHARS: Final = 3
USERNAME_MIN_CHARS: Final = 3
USERNAME_MAX_CHARS: Final = 30  # the pattern is ASCII, so characters and bytes agree
USERNAME_PATTERN: Final = re.compile(rf"[A-Za-z0-9_.-]{{{USERNAME_MIN_CHARS},{USERNAME_MAX_CHARS}}}")
# Raw input may carry surrounding spaces that normalising trims; bounded so a body cannot be all username.
UNIQUE_VALUE_RAW_MAX_CHARS: Final = EMAIL_MAX_BYTES
# How many readings (and so locks) one unique value may take (ddbguard.store.readings). A change of email and
# username in one PATCH puts the new value's locks and deletes the old one's in one transaction: 48 + 48 for the
# email, 1 + 1 for an ASCII username, the account and the request marker make 100, DynamoDB's limit of actions in
# a transaction. Every name of the real-name corpus takes at most 48 (tests/unit/test_real_names.py).
MAX_READINGS: Final = 48
DISPLAY_NAME_MAX_CHARS: Final = 100
DISPLAY_NAME_MAX_BYTES: Final = 4 * DISPLAY_NAME_MAX_CHARS  # up to 4 UTF-8 bytes a character

# Unsettled movements a ledger's balance may carry in `pending`. A movement rewrites the balance and is billed on
# its size (1 write unit per started KB, twice in a transaction), so the bound is one of bytes: at most 35 bytes a
# value (a 26-character entry id and a 14-digit amount), 64 of them keep the balance within 3 KB, so a movement's
# write units stay within 2x of an idle ledger's however far settlement is behind
# (tests/integration/test_pending_bound.py). A movement past it is refused (503 settlement_behind) before anything
# is written. Read at call time.
MAX_PENDING_ENTRIES: Final = 64
# How many of them incoming transfers (anyone's money) may take: the rest is kept for the owner's own movements, so
# a stranger's transfers can never lock an owner out of their ledger (a transfer past it is refused to its sender,
# 503 settlement_behind naming toAccountId). Read at call time.
MAX_INCOMING_PENDING_ENTRIES: Final = 48
# The balance item's size at the bound, at most (the same test checks it).
MAX_BALANCE_BYTES: Final = 3 * 1024

# Path parameters and client-chosen ids.
RESOURCE_ID_PATTERN: Final = r"^[A-Za-z0-9_-]{1,64}$"
# Request bodies and headers.
MAX_BODY_BYTES: Final = 64 * 1024
# Arrays and objects inside one another; no route's body needs more than 3.
MAX_BODY_DEPTH: Final = 32
IDEMPOTENCY_KEY_MAX_CHARS: Final = 255
# Statement pages.
PAGE_DEFAULT: Final = 25
PAGE_MAX: Final = 100
CURSOR_MAX_CHARS: Final = 1024
# A cursor is base64url without padding (ddbguard.store.cursors).
CURSOR_PATTERN: Final = r"^[A-Za-z0-9_-]+$"

# Characters no text field may contain: Cc control, Cf format (zero-width, bidi overrides, BOM),
# Cs lone surrogates, Zl/Zp line and paragraph separators.
FORBIDDEN_CHARACTER_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


# Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt), which Python's unicodedata lacks, as
# the inside of a regex character class: code points a renderer shows as nothing. Cf ones are refused by every text
# field already; the marks, fillers and variation selectors among them are refused in unique values, and do not
# count as something a display name shows.
DEFAULT_IGNORABLE_CLASS: Final = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
# Characters that draw nothing although they are neither spaces nor default-ignorable: BRAILLE PATTERN BLANK and
# KHITAN SMALL SCRIPT FILLER. Every character Unicode names a FILLER or a PATTERN BLANK is one of these or
# default-ignorable (tests/unit/test_unicode_properties.py reads the names).
BLANK_SYMBOLS: Final = "\u2800\U00016fe4"
# What makes a character seen: a letter, number, punctuation or symbol (a mark needs a base, a space shows nothing).
VISIBLE_CATEGORY_CLASSES: Final = frozenset("LNPS")


_SHOWS_NOTHING = re.compile(f"[{DEFAULT_IGNORABLE_CLASS}{BLANK_SYMBOLS}]")


def shows_something(value: str) -> bool:
    """At least one character a person sees: a letter, number, punctuation or symbol that is neither
    default-ignorable nor blank (Hangul fillers, U+2800 and a lone combining mark show nothing)."""
    return any(
        unicodedata.category(character)[0] in VISIBLE_CATEGORY_CLASSES and not _SHOWS_NOTHING.match(character)
        for character in value
    )


def has_forbidden_characters(value: str) -> bool:
    return any(unicodedata.category(ch) in FORBIDDEN_CHARACTER_CATEGORIES for ch in value)


def utf8_length(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))
