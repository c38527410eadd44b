"""Unique values in their one comparable form, and the rules they must meet in that form.

Two spellings that a person would call the same address or handle must become the same lock key,
so every unique value goes through `unique_form` before it is checked, stored or locked:

- NFKC folds compatibility variants (fullwidth letters -> ASCII, ligatures, the Kelvin sign);
- case-folding is full Unicode folding, not `lower()` (`ß` and `ẞ` -> `ss`);
- NFKC once more, because case-folding can leave a string that NFKC would change again;
- surrounding whitespace (any Unicode space) is trimmed;
- an email's domain is spelled in Unicode (UTS #46 through `idna`), so `xn--` and Unicode spellings are one.

Look-alikes share a lock key (`ddbguard.store.confusables`: UTS #39 skeleton over case classes). Characters that
no person sees (default-ignorable code points: U+034F, variation selectors, Hangul fillers, zero-width marks) and
characters whose fold would change which letter they look like (Greek lunate sigma, capital nu) are refused, never
removed: an address with them is not the address its owner thinks it is.

Rules are checked AFTER normalising, so what is checked is exactly what is stored: a fullwidth
username normalises to ASCII and passes, and a byte limit counts the bytes of the lock key's value.
"""

from __future__ import annotations

import re
import unicodedata

from ddbguard.errors import FieldError, InvalidInput
from ddbguard.guards.fields import FOLDED, UniqueKind
from ddbguard.limits import (
    DEFAULT_IGNORABLE_CLASS,
    DISPLAY_NAME_MAX_BYTES,
    DISPLAY_NAME_MAX_CHARS,
    EMAIL_MAX_BYTES,
    EMAIL_MIN_CHARS,
    USERNAME_MAX_CHARS,
    USERNAME_MIN_CHARS,
    USERNAME_PATTERN,
    has_forbidden_characters,
    shows_something,
    utf8_length,
)
from ddbguard.store import attribute_names
from ddbguard.store.confusables import ambiguous_characters, fold_keeping_ambiguous

# Code points a renderer shows as nothing (limits.DEFAULT_IGNORABLE_CLASS): refused in unique values here.
_DEFAULT_IGNORABLE = re.compile(f"[{DEFAULT_IGNORABLE_CLASS}]")


def unique_form(value: str) -> str:
    """The one comparable form of a unique value: NFKC, case-folded, trimmed (ambiguous characters kept as sent,
    so that the check names them)."""
    return fold_keeping_ambiguous(value).strip()


def email_form(value: str) -> str:
    """`unique_form`, with an internationalised domain in its Unicode spelling (UTS #46), so that `xn--` and
    Unicode spellings of one domain are one address. A domain IDNA refuses is left as sent: `email_problem`
    names it."""
    normalised = unique_form(value)
    local, at, domain = normalised.rpartition("@")
    # UTS #46 drops some invisible characters silently; left in, they are refused by `email_problem`.
    if not at or (domain.isascii() and "xn--" not in domain) or _DEFAULT_IGNORABLE.search(domain):
        return normalised
    # About 0.1 s of tables: paid by internationalised domains only, not by every cold start.
    import idna

    try:
        unicode_domain = idna.decode(idna.encode(domain, uts46=True))
    except idna.IDNAError:
        return normalised
    return f"{local}@{fold_keeping_ambiguous(unicode_domain)}"


def _domain_problem(domain: str) -> bool:
    if domain.isascii() and "xn--" not in domain:
        return False
    import idna

    try:
        idna.encode(domain, uts46=True)
    except idna.IDNAError:
        return True
    return False


def unseen_character_problem(normalised: str, field: str) -> FieldError | None:
    """Why a unique value holds characters that would make a twin of another, or None."""
    invisible = _DEFAULT_IGNORABLE.search(normalised)
    if invisible is not None:
        return FieldError(
            field,
            "invalid_format",
            f"A {field} may not contain invisible characters (U+{ord(invisible.group()):04X}).",
        )
    ambiguous = ambiguous_characters(normalised)
    if ambiguous:
        named = ", ".join(f"U+{ord(ch):04X}" for ch in ambiguous)
        return FieldError(
            field,
            "invalid_format",
            f"A {field} may not contain characters that look like one letter and fold to another ({named}).",
        )
    return None


def email_problem(normalised: str, field: str = attribute_names.EMAIL) -> FieldError | None:
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
    if _domain_problem(domain):
        return FieldError(field, "invalid_format", "An email's domain is not a valid internationalised domain name.")
    return unseen_character_problem(normalised, field)


def username_problem(normalised: str, field: str = attribute_names.USERNAME) -> FieldError | None:
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


# The kinds of unique value an entity may declare (`ddbguard.guards.fields.unique`); add one here. What each
# publishes in the API description is what it accepts: an email's shape, or the normalised form's characters.
EMAIL = UniqueKind(
    name="email",
    form=email_form,
    problem=lambda field, value: email_problem(value, field),
    email=True,
    max_length=EMAIL_MAX_BYTES,
    min_sent=EMAIL_MIN_CHARS,
    description=f"One @ with text on both sides, no spaces or control characters; at most {EMAIL_MAX_BYTES} UTF-8"
    f" bytes once normalised ({FOLDED}).",
)
HANDLE = UniqueKind(
    name="handle",
    form=unique_form,
    problem=lambda field, value: username_problem(value, field),
    pattern="[a-z0-9_.-]",
    min_length=USERNAME_MIN_CHARS,
    max_length=USERNAME_MAX_CHARS,
    description=f"{USERNAME_MIN_CHARS} to {USERNAME_MAX_CHARS} of A-Z, a-z, 0-9, '_', '.', '-' once normalised"
    f" ({FOLDED}); compared case-insensitively.",
)
CODE = UniqueKind(
    name="code",
    form=unique_form,
    problem=lambda field, value: code_problem(value, field),
    pattern="[a-z0-9_.-]",
    max_length=64,
)


def clean_display_name(raw: str) -> str:
    """A display name is not unique: kept as written (NFC only), trimmed, and shows at least one visible
    character."""
    value = unicodedata.normalize("NFC", raw).strip()
    if not shows_something(value) or utf8_length(value) > DISPLAY_NAME_MAX_BYTES or has_forbidden_characters(value):
        raise InvalidInput(
            "The display name is not acceptable.",
            [
                FieldError(
                    attribute_names.DISPLAY_NAME,
                    "invalid_format",
                    f"A display name is 1 to {DISPLAY_NAME_MAX_CHARS} visible characters.",
                )
            ],
        )
    return value
