"""Fields declared once: what an entity's item holds, each with its kind, its constraints and an example.

An entity declaring `fields` (`ddbguard.guards.entity.Entity`) derives from them its public projection, its unique
fields (a field of a `UniqueKind`) and what an item lacking a field reads as (its `default`); the HTTP edge derives
its create body, its update body and its response, with examples (`ddbguard_api.models.entity_models`), so the
OpenAPI document says what the validators enforce. Plain data: no pydantic here, so declaring costs a handler's cold
start nothing.

| kind | what clients may send | stored as |
| --- | --- | --- |
| `text` | visible text: never blank, no control or invisible characters | as sent |
| `integer`, `cents` | a JSON integer in the range | as sent |
| `unique` | a value of its `UniqueKind`; no two items share its normalised form | normalised |
| `choice` | one of the listed strings; `default` on create when not sent | as sent |
| `flag` | true or false; `default` when not sent | as sent |
| `reference` | the id of another resource | as sent |
| `lines` | a list of records, each of the `item_fields` | as sent |
| `computed` | nothing: the domain sets it (a total), clients read it | as set |
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType

from ddbguard.errors import FieldError
from ddbguard.limits import (
    DISPLAY_NAME_MAX_CHARS,
    MAX_CENTS,
    MIN_CENTS,
    RESOURCE_ID_PATTERN,
    UNIQUE_VALUE_RAW_MAX_CHARS,
)

__all__ = [
    "CHOICE",
    "COMPUTED",
    "FLAG",
    "FOLDED",
    "INTEGER",
    "LINES",
    "MATCHING",
    "REFERENCE",
    "TEXT",
    "UNIQUE",
    "WHOLE_CENTS",
    "Field",
    "UniqueKind",
    "cents",
    "choice",
    "computed",
    "flag",
    "integer",
    "lines",
    "matching",
    "matching_kind",
    "reference",
    "text",
    "unique",
]

TEXT = "text"
INTEGER = "integer"
UNIQUE = "unique"
CHOICE = "choice"
FLAG = "flag"
REFERENCE = "reference"
MATCHING = "matching"
LINES = "lines"
COMPUTED = "computed"

FOLDED = "NFKC, case-folded, trimmed"
WHOLE_CENTS = (
    "Whole cents, written as a JSON integer: 100.0 or 1e2 are refused even though integral, so a client that rounds"
    " through binary floats hears it at once instead of at 2^53."
)


class UniqueKind:
    """A kind of unique value: its one comparable form, and what makes that form unacceptable.

    `problem(field, normalised)` answers a FieldError naming `field`, or None when acceptable. The rest is what the
    API description publishes, so that it admits exactly what the service accepts: the normalised form's characters
    (`pattern`, a regex character class) and length, or for an email its shape (`email`); `stored` says in words
    what the form is, for the descriptions; `min_sent` is the shortest raw value worth sending.
    """

    __slots__ = (
        "case_insensitive",
        "description",
        "email",
        "form",
        "max_length",
        "min_length",
        "min_sent",
        "name",
        "pattern",
        "problem",
        "stored",
    )

    def __init__(
        self,
        *,
        name: str,
        form: Callable[[str], str],
        problem: Callable[[str, str], FieldError | None],
        pattern: str = "",
        min_length: int = 1,
        max_length: int = UNIQUE_VALUE_RAW_MAX_CHARS,
        email: bool = False,
        stored: str = FOLDED,
        min_sent: int = 1,
        case_insensitive: bool = True,
        description: str = "",
    ) -> None:
        self.name = name
        self.form = form
        self.problem = problem
        self.pattern = pattern
        self.min_length = min_length
        self.max_length = max_length
        self.email = email
        self.stored = stored
        self.min_sent = min_sent
        self.case_insensitive = case_insensitive  # `form` folds (or raises) case: either case may be sent
        self.description = description or self._described()

    def __repr__(self) -> str:
        return f"UniqueKind({self.name})"

    @property
    def sent_pattern(self) -> str:
        """The anchored pattern of what a client may send: the form's characters, letters in either case (the form
        folds case, or raises it)."""
        characters = self.pattern
        if not self.case_insensitive:
            pass
        elif "a-z" in characters and "A-Z" not in characters:
            characters = characters.replace("a-z", "A-Za-z")
        elif "A-Z" in characters and "a-z" not in characters:
            characters = characters.replace("A-Z", "A-Za-z")
        return f"^{characters}{{{self.min_length},{self.max_length}}}$"

    def _described(self) -> str:
        if not self.pattern:
            return f"Unique, compared once normalised ({self.stored})."
        compared = "; compared case-insensitively" if self.case_insensitive else ""
        return f"{self.min_length} to {self.max_length} of {self.pattern} once normalised ({self.stored}){compared}."


def matching_kind(
    name: str,
    characters: str,
    min_length: int,
    max_length: int,
    *,
    form: Callable[[str], str],
    capitals: bool = False,
) -> UniqueKind:
    """A unique kind whose normalised form is `min_length` to `max_length` of `characters` (a character class).

    `form` is the comparable form (e.g. `ddbguard.domain.normalize.unique_form`: NFKC, case-folded, trimmed);
    `capitals=True` stores it in capitals (`Core-Team` and `core-team` are both `CORE-TEAM`), so `characters` name
    capitals (`[A-Z0-9-]`). Either case may be sent.
    """
    rule = re.compile(f"{characters}{{{min_length},{max_length}}}")
    comparable = (lambda value: form(value).upper()) if capitals else form

    def problem(field: str, normalised: str) -> FieldError | None:
        if rule.fullmatch(normalised):
            return None
        message = f"A {field} is {min_length} to {max_length} of {characters} once normalised."
        return FieldError(field, "invalid_format", message)

    stored = f"{FOLDED}, in capitals" if capitals else FOLDED
    return UniqueKind(
        name=name,
        form=comparable,
        problem=problem,
        pattern=characters,
        min_length=min_length,
        max_length=max_length,
        stored=stored,
    )


class Field:
    """One field of an entity's item, as clients send and see it (build one with the functions below).

    `on_create`: sent in the create body (`required` there, unless it has a `default`); `updatable`: may be sent in
    the update body. `example` is what the API description shows and the derived walk-through sends.
    """

    __slots__ = (
        "choices",
        "default",
        "description",
        "example",
        "item_fields",
        "item_name",
        "kind",
        "lock",
        "max_items",
        "max_length",
        "maximum",
        "min_items",
        "min_length",
        "minimum",
        "on_create",
        "pattern",
        "required",
        "unique",
        "updatable",
    )

    def __init__(
        self,
        *,
        kind: str,
        example: object,
        description: str,
        required: bool = True,
        on_create: bool = True,
        updatable: bool = True,
        default: object = None,
        min_length: int = 1,
        max_length: int = DISPLAY_NAME_MAX_CHARS,
        minimum: int | None = None,
        maximum: int | None = None,
        choices: tuple[str, ...] = (),
        pattern: str = "",
        unique: UniqueKind | None = None,
        lock: str = "",
        item_name: str = "",
        item_fields: Mapping[str, Field] | None = None,
        min_items: int = 1,
        max_items: int = 1,
    ) -> None:
        self.kind = kind
        self.example = example
        self.description = description
        self.required = required and default is None and on_create
        self.on_create = on_create
        self.updatable = updatable
        self.default = default
        self.min_length = min_length
        self.max_length = max_length
        self.minimum = minimum
        self.maximum = maximum
        self.choices = choices
        self.pattern = pattern
        self.unique = unique
        self.lock = lock  # a unique field's lock kind (`UNIQ#<lock>#<value>`); empty: the field's name in capitals
        self.item_name = item_name
        self.item_fields: Mapping[str, Field] = MappingProxyType(dict(item_fields or {}))
        self.min_items = min_items
        self.max_items = max_items

    def __repr__(self) -> str:
        return f"Field({self.kind}, example={self.example!r})"

    @property
    def nullable(self) -> bool:
        """An item may hold no value for it (an optional field never sent), so clients may read null."""
        return not self.required and self.default is None and self.kind != COMPUTED


def text(
    example: str,
    *,
    max_length: int = DISPLAY_NAME_MAX_CHARS,
    required: bool = True,
    updatable: bool = True,
    description: str = "",
) -> Field:
    """Visible text, kept as sent."""
    return Field(
        kind=TEXT,
        example=example,
        description=description or "Visible text.",
        required=required,
        updatable=updatable,
        max_length=max_length,
    )


def integer(
    example: int,
    *,
    minimum: int,
    maximum: int,
    required: bool = True,
    updatable: bool = True,
    description: str = "",
) -> Field:
    """A whole number, written as a JSON integer."""
    return Field(
        kind=INTEGER,
        example=example,
        description=description or f"{minimum} to {maximum}.",
        required=required,
        updatable=updatable,
        minimum=minimum,
        maximum=maximum,
    )


def cents(example: int, *, required: bool = True, updatable: bool = True, description: str = "") -> Field:
    """Money: whole cents, as the rest of the API takes it."""
    return integer(
        example,
        minimum=MIN_CENTS,
        maximum=MAX_CENTS,
        required=required,
        updatable=updatable,
        description=description or WHOLE_CENTS,
    )


def unique(
    kind: UniqueKind,
    example: str,
    *,
    lock: str = "",
    required: bool = True,
    updatable: bool = True,
    description: str = "",
) -> Field:
    """A value no two items of the entity share, compared in its kind's normalised form (stored that way)."""
    return Field(
        kind=UNIQUE,
        example=example,
        description=description or kind.description,
        required=required,
        updatable=updatable,
        max_length=kind.max_length,
        unique=kind,
        lock=lock,
    )


def choice(
    choices: tuple[str, ...],
    *,
    default: str | None = None,
    example: str = "",
    on_create: bool = True,
    updatable: bool = True,
    description: str = "",
) -> Field:
    """One of `choices` (a status, a plan); `default` is stored on create when the body does not send it."""
    if default is not None and default not in choices:
        raise ValueError(f"default {default!r} is not one of {choices}")
    return Field(
        kind=CHOICE,
        example=example or default or choices[0],
        description=description or f"One of {', '.join(choices)}.",
        on_create=on_create,
        updatable=updatable,
        default=default,
        choices=choices,
    )


def flag(*, default: bool = False, on_create: bool = True, updatable: bool = True, description: str = "") -> Field:
    """true or false; `default` when never sent (and what an item written before the field existed reads as)."""
    return Field(
        kind=FLAG,
        example=not default,
        description=description or f"true or false (default {str(default).lower()}).",
        on_create=on_create,
        updatable=updatable,
        default=default,
    )


def reference(example: str, *, updatable: bool = False, description: str = "") -> Field:
    """The id of another resource (an order's account), checked by the domain where it matters."""
    return Field(
        kind=REFERENCE,
        example=example,
        description=description or "The id of another resource.",
        updatable=updatable,
        pattern=RESOURCE_ID_PATTERN,
    )


def matching(example: str, pattern: str, *, updatable: bool = True, description: str = "") -> Field:
    """A string matching `pattern` (an anchored regex), kept as sent: a SKU, a code that needs no lock."""
    return Field(
        kind=MATCHING,
        example=example,
        description=description or f"Matches {pattern}.",
        updatable=updatable,
        pattern=pattern,
    )


def lines(
    item_name: str,
    item_fields: Mapping[str, Field],
    *,
    max_items: int,
    min_items: int = 1,
    updatable: bool = False,
    description: str = "",
) -> Field:
    """A list of `min_items` to `max_items` records named `item_name` (an order's lines), each of `item_fields`."""
    example = [{name: spec.example for name, spec in item_fields.items()}]
    return Field(
        kind=LINES,
        example=example,
        description=description or f"{min_items} to {max_items} of them.",
        updatable=updatable,
        item_name=item_name,
        item_fields=item_fields,
        min_items=min_items,
        max_items=max_items,
    )


def computed(example: int, *, minimum: int | None = None, description: str = "") -> Field:
    """A number the domain sets (an order's total): in the response, never in a body."""
    return Field(
        kind=COMPUTED,
        example=example,
        description=description or "Set by the service.",
        on_create=False,
        updatable=False,
        minimum=minimum,
    )
