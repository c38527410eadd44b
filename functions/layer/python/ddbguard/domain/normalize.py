"""Unique values in their one comparable form, and the rules they must meet in that form.

Two spellings that a person would call the same address or handle must become the same stored value, so every
unique value goes through `unique_form` before it is checked, stored or locked:

- NFKC folds compatibility variants (fullwidth letters -> ASCII, ligatures, the Kelvin sign);
- case-folding is full Unicode folding, not `lower()` (`ß` and `ẞ` -> `ss`);
- NFKC once more, because case-folding can leave a string that NFKC would change again;
- surrounding whitespace (any Unicode space) is trimmed;
- an email's domain is processed as IDNA2008 registries do (UTS #46, non-transitional, through `idna`): `xn--` and
  Unicode spellings are one domain, and `ß` and `ς` stay themselves (`straße.de` is not `strasse.de`).

Spellings a person would read as the same value share a lock (`ddbguard.store.readings`: UTS #39 skeletons over
case forms; a value that reads several ways takes a lock per reading). Refused, never removed, by property, from
Unicode's data: characters no person sees (default-ignorable code points, and blank ones such as U+2800),
characters with no agreed look (private use, noncharacters, code points unassigned in the service's Unicode
version), characters that change their look when normalised (`ſ` looks like f but is stored as s; a final sigma
inside a word), an accent repeated on one letter, and values with more readings than a write may lock.

Rules are checked AFTER normalising, so what is checked is exactly what is stored: a fullwidth
username normalises to ASCII and passes, and a byte limit counts the bytes of the stored value.
"""

from __future__ import annotations

import re
import unicodedata

from ddbguard.errors import FieldError, InvalidInput
from ddbguard.guards.fields import FOLDED, UniqueKind
from ddbguard.limits import (
    BLANK_SYMBOLS,
    DEFAULT_IGNORABLE_CLASS,
    DISPLAY_NAME_MAX_BYTES,
    DISPLAY_NAME_MAX_CHARS,
    EMAIL_MAX_BYTES,
    EMAIL_MIN_CHARS,
    MAX_READINGS,
    USERNAME_MAX_CHARS,
    USERNAME_MIN_CHARS,
    USERNAME_PATTERN,
    has_forbidden_characters,
    shows_something,
    utf8_length,
)
from ddbguard.store import attribute_names, confusables, readings

__all__ = [
    "CODE",
    "EMAIL",
    "HANDLE",
    "clean_display_name",
    "code_problem",
    "email_form",
    "email_problem",
    "fold_keeping_misread",
    "folded",
    "unique_form",
    "unseen_character_problem",
    "username_problem",
]

# Code points a renderer shows as nothing (limits.DEFAULT_IGNORABLE_CLASS): refused in unique values here.
_DEFAULT_IGNORABLE = re.compile(f"[{DEFAULT_IGNORABLE_CLASS}]")
_BLANK = re.compile(f"[{BLANK_SYMBOLS}]")
_FINAL_SIGMA = "\u03c2"
_AT_SIGNS = frozenset(("@", "\uff20", "\ufe6b"))  # @ and the characters NFKC makes @


def folded(text: str) -> str:
    """NFKC, full case folding, NFKC again."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _final_sigma_at(text: str, index: int) -> bool:
    """Whether a sigma at `index` ends a word (Unicode's Final_Sigma, as `str.lower` decides it)."""
    before = text[:index]
    return (before + "\u03a3" + text[index + 1 :]).lower()[len(before.lower())] == _FINAL_SIGMA


def _kept_as_sent(text: str) -> set[int]:
    """Where `text` holds a character that normalising would change into another look: kept, so that the check
    names it (a final sigma inside a word included: case-folding makes it `σ`, which reads as o)."""
    if text.isascii():
        return set()
    misread = confusables.data().misread
    return {
        index
        for index, character in enumerate(text)
        if character in misread or (character == _FINAL_SIGMA and not _final_sigma_at(text, index))
    }


def fold_keeping_misread(value: str) -> str:
    """`folded(value)`, except characters that would change their look stay as sent."""
    kept = _kept_as_sent(value)
    if not kept:
        return folded(value)
    parts: list[str] = []
    start = 0
    for index in sorted(kept):
        parts.extend((folded(value[start:index]), value[index]))
        start = index + 1
    parts.append(folded(value[start:]))
    return "".join(parts)


def unique_form(value: str) -> str:
    """The one comparable form of a unique value: NFKC, case-folded, trimmed (characters that would change their
    look kept as sent, so that the check names them)."""
    return fold_keeping_misread(value).strip()


def _domain_form(raw: str) -> str:
    """An email's domain as IDNA2008 registries compare it (UTS #46 non-transitional): `xn--` and Unicode
    spellings are one domain, `ß` stays `ß`. A domain IDNA refuses is left folded: `email_problem` names it."""
    if _kept_as_sent(raw):
        return fold_keeping_misread(raw)
    compatible = unicodedata.normalize("NFKC", raw)
    if compatible.isascii() and "xn--" not in compatible.lower():
        return compatible.lower()
    # UTS #46 drops some invisible characters silently; left in, they are refused by `email_problem`.
    if _DEFAULT_IGNORABLE.search(compatible):
        return folded(compatible)
    # About 0.1 s of tables: paid by internationalised domains only, not by every cold start.
    import idna

    try:
        return str(idna.decode(idna.encode(compatible, uts46=True, transitional=False)))
    except (idna.IDNAError, UnicodeError):
        return folded(compatible)


def email_form(value: str) -> str:
    """`unique_form` of the local part and the domain in its IDNA2008 form, split at the last @."""
    at = next((index for index in range(len(value) - 1, -1, -1) if value[index] in _AT_SIGNS), None)
    if at is None:
        return unique_form(value)
    return f"{fold_keeping_misread(value[:at]).lstrip()}@{_domain_form(value[at + 1 :].rstrip())}"


def _domain_problem(domain: str) -> bool:
    if domain.isascii() and "xn--" not in domain:
        return False
    import idna

    try:
        idna.encode(domain, uts46=True, transitional=False)
    except (idna.IDNAError, UnicodeError):
        return True
    return False


def _is_noncharacter(character: str) -> bool:
    code = ord(character)
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def _character_problem(character: str, misread: frozenset[str], final_sigma_kept: bool) -> str | None:
    """Why one character may not be in a unique value (the reason, in words), or None."""
    category = unicodedata.category(character)
    if _DEFAULT_IGNORABLE.match(character):
        return "invisible characters"
    if category == "Co":
        return "private-use characters, which have no agreed look"
    if category == "Cn":
        if _is_noncharacter(character):
            return "noncharacters, which Unicode keeps for programs' internal use"
        return f"characters Unicode {unicodedata.unidata_version} does not define yet"
    if _BLANK.match(character):
        return "characters that show nothing"
    if character in misread or (character == _FINAL_SIGMA and not final_sigma_kept):
        return "characters that change how they look when normalised (or a final sigma inside a word)"
    return None


def _repeated_mark(normalised: str) -> str | None:
    """A combining mark found twice on one letter (UTS #39 forbids sequences of the same nonspacing mark)."""
    for _, _, marks in readings.units(unicodedata.normalize("NFD", normalised)):
        seen: set[str] = set()
        for mark in marks:
            if mark in seen:
                return mark
            seen.add(mark)
    return None


def _a(field: str) -> str:
    """`A username`, `An email`: the field named with its article, to start a message."""
    return f"{'An' if field[:1] in 'aeiou' else 'A'} {field}"


def _characters_problem(text: str, field: str, *, final_sigma_kept: bool = False) -> FieldError | None:
    """Why `text` holds a character (or an accent twice on one letter) that could make a twin of another value.
    `final_sigma_kept`: the text is a domain, where IDNA2008 keeps `ς` as written."""
    if text.isascii():
        return None
    misread = confusables.data().misread
    for character in text:
        reason = _character_problem(character, misread, final_sigma_kept)
        if reason is not None:
            message = f"{_a(field)} may not contain {reason} (U+{ord(character):04X})."
            return FieldError(field, "invalid_format", message)
    repeated = _repeated_mark(text)
    if repeated is not None:
        return FieldError(
            field, "invalid_format", f"{_a(field)} may not repeat an accent on one letter (U+{ord(repeated):04X})."
        )
    return None


def _readings_problem(normalised: str, field: str) -> FieldError | None:
    """Why a value may not take its locks: it reads more ways than a write may lock."""
    ways = readings.count(normalised)
    if ways > MAX_READINGS:
        return FieldError(
            field,
            "invalid_format",
            f"{_a(field)} may be read in {ways} ways, more than {MAX_READINGS}: too many of its letters look like one"
            " letter in capitals and another in small letters (such as Greek ν, η and σ).",
        )
    return None


def unseen_character_problem(normalised: str, field: str) -> FieldError | None:
    """Why a unique value holds characters that could make a twin of another, or reads too many ways; or None."""
    return _characters_problem(normalised, field) or _readings_problem(normalised, field)


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
    if domain.endswith("."):
        return FieldError(field, "invalid_format", "An email's domain may not end with a dot.")
    unseen = _characters_problem(local, field) or _characters_problem(domain, field, final_sigma_kept=True)
    if unseen is not None:
        return unseen
    if _domain_problem(domain):
        return FieldError(field, "invalid_format", "An email's domain is not a valid internationalised domain name.")
    return _readings_problem(normalised, field)


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
