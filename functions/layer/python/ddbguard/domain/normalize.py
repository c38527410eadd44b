"""Unique values in their one comparable form, and the rules they must meet in that form.

Two spellings that a person would call the same address or handle must become the same lock key,
so every unique value goes through `unique_form` before it is checked, stored or locked:

- NFKC folds compatibility variants (fullwidth letters -> ASCII, ligatures, the Kelvin sign);
- case-folding is full Unicode folding, not `lower()` (`ß` and `ẞ` -> `ss`);
- NFKC once more, because case-folding can leave a string that NFKC would change again;
- surrounding whitespace (any Unicode space) is trimmed.

Rules are checked AFTER normalising, so what is checked is exactly what is stored: a fullwidth
username normalises to ASCII and passes, and a byte limit counts the bytes of the lock key's value.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from ddbguard.errors import FieldError, InvalidInput
from ddbguard.guards.entity import UniqueKind, normalised_values
from ddbguard.limits import (
    DISPLAY_NAME_MAX_BYTES,
    DISPLAY_NAME_MAX_CHARS,
    EMAIL_MAX_BYTES,
    USERNAME_MAX_CHARS,
    USERNAME_MIN_CHARS,
    USERNAME_PATTERN,
    has_forbidden_characters,
    utf8_length,
)


def unique_form(value: str) -> str:
    """The one comparable form of a unique value: NFKC, case-folded, trimmed."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())
    return folded.strip()


def email_problem(normalised: str, field: str = "email") -> FieldError | None:
    """Why a normalised email is unacceptable, or None. Shape only: one @, both parts, no spaces."""
    if utf8_length(normalised) > EMAIL_MAX_BYTES:
        return FieldError(field, "too_long", f"An email is at most {EMAIL_MAX_BYTES} bytes (UTF-8) once normalised.")
    local, at, domain = normalised.partition("@")
    if (
        not at
        or not local
        or not domain
        or "@" in domain
        or any(ch.isspace() for ch in normalised)
        or has_forbidden_characters(normalised)
    ):
        return FieldError(field, "invalid_format", "An email needs exactly one @, text on both sides and no spaces.")
    return None


def username_problem(normalised: str, field: str = "username") -> FieldError | None:
    """Why a normalised handle (a username) is unacceptable, or None."""
    if not USERNAME_PATTERN.fullmatch(normalised):
        return FieldError(
            field,
            "invalid_format",
            f"A {field} is {USERNAME_MIN_CHARS} to {USERNAME_MAX_CHARS} of A-Z, a-z, 0-9, '_', '.', '-'"
            " once normalised.",
        )
    return None


_CODE_PATTERN = re.compile(r"[a-z0-9_.-]{1,64}")


def code_problem(normalised: str, field: str) -> FieldError | None:
    """Why a normalised code (a SKU, a coupon: compared case-insensitively) is unacceptable, or None."""
    if not _CODE_PATTERN.fullmatch(normalised):
        return FieldError(field, "invalid_format", f"A {field} is 1 to 64 of A-Z, 0-9, '_', '.', '-'.")
    return None


# The kinds of unique value an entity may declare (`ddbguard.guards.entity.Unique`); add one here.
EMAIL = UniqueKind("email", unique_form, lambda field, value: email_problem(value, field))
HANDLE = UniqueKind("handle", unique_form, lambda field, value: username_problem(value, field))
CODE = UniqueKind("code", unique_form, lambda field, value: code_problem(value, field))


def normalised_unique_fields(kinds: Mapping[str, UniqueKind], values: Mapping[str, str | None]) -> dict[str, str]:
    """Normalise and check every given unique field by its kind (None means not sent); 422 lists every bad one."""
    return normalised_values(kinds, values)


def clean_display_name(raw: str) -> str:
    """A display name is not unique: kept as written (NFC only), trimmed, and never blank."""
    value = unicodedata.normalize("NFC", raw).strip()
    if not value or utf8_length(value) > DISPLAY_NAME_MAX_BYTES or has_forbidden_characters(value):
        raise InvalidInput(
            "The display name is not acceptable.",
            [
                FieldError(
                    "displayName",
                    "invalid_format",
                    f"A display name is 1 to {DISPLAY_NAME_MAX_CHARS} visible characters.",
                )
            ],
        )
    return value
