"""Fields declared once: what an entity's item holds, each with its type, its constraints and an example.

An entity declaring `fields` (`ddbguard.guards.entity.Entity`) derives from them its public projection and its
unique fields (a field whose kind is a `UniqueKind`); the HTTP edge derives its create body, its change body and
its response schema, with examples (`ddbguard_api.entity_models`), so the OpenAPI document says what the
validators enforce. Plain data: no pydantic here, so declaring costs a handler's cold start nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from ddbguard.errors import FieldError
from ddbguard.limits import DISPLAY_NAME_MAX_CHARS, MAX_CENTS, MIN_CENTS, UNIQUE_VALUE_RAW_MAX_CHARS

STRING = "string"
INTEGER = "integer"


class UniqueKind(NamedTuple):
    """A kind of unique value: its one comparable form, and what makes that form unacceptable.

    `problem(field, normalised)` answers a FieldError naming `field`, or None when acceptable. A kind built by
    `matching_kind` also states its rule (`pattern`, `min_length`, `max_length` of the normalised form), which
    the API description publishes; the other kinds' rules are described by hand at the edge.
    """

    name: str
    form: Callable[[str], str]
    problem: Callable[[str, str], FieldError | None]
    pattern: str = ""  # the normalised form's characters, a regex character class ("[a-z0-9-]")
    min_length: int = 1
    max_length: int = UNIQUE_VALUE_RAW_MAX_CHARS
    case_insensitive: bool = True  # `form` folds case: either case may be sent

    @property
    def sent_pattern(self) -> str:
        """The anchored pattern of what a client may send (letters in either case when the form folds them)."""
        characters = self.pattern.replace("a-z", "A-Za-z") if self.case_insensitive else self.pattern
        return f"^{characters}{{{self.min_length},{self.max_length}}}$"


def matching_kind(
    name: str, characters: str, min_length: int, max_length: int, *, form: Callable[[str], str]
) -> UniqueKind:
    """A unique kind whose normalised form is `min_length` to `max_length` of `characters` (a character class).

    `form` is the comparable form (e.g. `ddbguard.domain.normalize.unique_form`: NFKC, case-folded, trimmed).
    """
    rule = re.compile(f"{characters}{{{min_length},{max_length}}}")

    def problem(field: str, normalised: str) -> FieldError | None:
        if rule.fullmatch(normalised):
            return None
        message = f"A {field} is {min_length} to {max_length} of {characters} once normalised."
        return FieldError(field, "invalid_format", message)

    return UniqueKind(name, form, problem, characters, min_length, max_length, case_insensitive=True)


class Field(NamedTuple):
    """One field of an entity's item, as clients send and see it.

    `required`: in the create body (a change may send any of them). Strings: `min_length`, `max_length`, always
    visible text (never blank, no control or invisible characters); unique ones follow their kind's rule.
    Integers: `minimum`, `maximum`, strict (no floats, no strings).
    """

    type: str
    example: str | int
    description: str = ""
    required: bool = True
    min_length: int = 1
    max_length: int = DISPLAY_NAME_MAX_CHARS
    minimum: int | None = None
    maximum: int | None = None
    unique: UniqueKind | None = None
    lock: str = ""  # the unique field's lock kind (`UNIQ#<lock>#<value>`); empty: the field's name in capitals


def text(
    example: str, *, max_length: int = DISPLAY_NAME_MAX_CHARS, required: bool = True, description: str = ""
) -> Field:
    """Visible text, kept as sent."""
    return Field(STRING, example, description or "Visible text.", required, max_length=max_length)


def integer(example: int, *, minimum: int, maximum: int, required: bool = True, description: str = "") -> Field:
    """A whole number, written as a JSON integer."""
    return Field(
        INTEGER, example, description or f"{minimum} to {maximum}.", required, minimum=minimum, maximum=maximum
    )


def cents(example: int, *, required: bool = True, description: str = "") -> Field:
    """Money: whole cents, as the rest of the API takes it."""
    return integer(
        example, minimum=MIN_CENTS, maximum=MAX_CENTS, required=required, description=description or "Whole cents."
    )


def unique(kind: UniqueKind, example: str, *, lock: str = "", required: bool = True, description: str = "") -> Field:
    """A value no two items of the entity share, compared in its kind's normalised form (stored that way)."""
    said = description or f"Unique, compared {'case-insensitively ' if kind.case_insensitive else ''}once normalised."
    return Field(STRING, example, said, required, max_length=kind.max_length, unique=kind, lock=lock)
