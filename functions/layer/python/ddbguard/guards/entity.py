"""An entity declaration: what must hold about one kind of item, said once.

A declaration names the item kind, its fields (`ddbguard.guards.fields`: kinds, constraints, examples), its key
scheme (global ids, or ids scoped to their
owner behind an owner tag), the owner attribute, whether it is versioned, its unique fields (each with the
kind of value it holds, which says how it is normalised and checked), the public projection and the 404
code. `ddbguard.guards.entity_operations` builds create / get / update / delete from it, the lock audit
checks every declared unique field of every declared entity, and the route table derives the IAM
patterns of the routes that name it. Nothing here touches DynamoDB, so declaring is cheap to import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass
from dataclasses import field as dataclass_field
from typing import NamedTuple

from ddbguard.errors import FieldError, InvalidInput
from ddbguard.guards.fields import Field, UniqueKind
from ddbguard.store import keys
from ddbguard.store.attribute_names import CREATED_AT, OWNER_SUB, UPDATED_AT, VERSION
from ddbguard.store.shapes import Key

__all__ = [
    "GLOBAL_IDS",
    "OWNER_SCOPED_IDS",
    "Entity",
    "PublicItem",
    "Unique",
    "declared_entities",
    "entity_of_lock",
    "normalised_values",
]

# What clients see of an item of a declared entity: its public fields (which only its declaration knows).
PublicItem = dict[str, object]

GLOBAL_IDS = "global"  # `<prefix><id>`: one id names one item for everyone
OWNER_SCOPED_IDS = "owner-scoped"  # `<prefix><owner tag>#<id>`: ids are per owner


class Unique(NamedTuple):
    """A unique field: its name in bodies and items, its kind, and the lock kind (`UNIQ#<lock>#<value>`)."""

    field: str
    kind: UniqueKind
    lock: str = ""

    @property
    def lock_kind(self) -> str:
        return self.lock or self.field.upper()


def normalised_values(kinds: Mapping[str, UniqueKind], values: Mapping[str, object]) -> dict[str, str]:
    """Normalise and check every given unique value by its kind (None means not sent).

    Returns the normalised values; raises InvalidInput (422) listing every invalid field at once.
    A field without a kind is a programming error (ValueError), never silently unchecked.
    """
    normalised: dict[str, str] = {}
    problems: list[FieldError] = []
    for name, raw in values.items():
        if raw is None:
            continue
        if name not in kinds:
            raise ValueError(f"no unique kind declared for {name}")
        value = kinds[name].form(str(raw))
        problem = kinds[name].problem(name, value)
        if problem is None:
            normalised[name] = value
        else:
            problems.append(problem)
    if problems:
        raise InvalidInput("Some values are not acceptable.", problems)
    return normalised


_DECLARED: dict[str, Entity] = {}  # item kind -> its declaration
_LOCK_KINDS: dict[str, tuple[str, str]] = {}  # lock kind -> (item kind, field)


@dataclass(frozen=True)
class Entity:
    """Empty `prefix`, `sort`, `id_field` and `not_found` follow from the kind: product -> PRODUCT#,
    PRODUCT, productId, product_not_found. The declared `fields` give the public projection (the id, the fields,
    the version, createdAt, updatedAt), the unique fields (those of a unique kind) and what a field reads as on an
    item that lacks it (its default: an item written before the field existed)."""

    kind: str  # the item's `kind` attribute, and the word for it in messages ("account")
    _: KW_ONLY
    fields: Mapping[str, Field] = dataclass_field(compare=False)
    prefix: str = ""  # partition-key prefix ("ACCT#")
    sort: str = ""  # the item's sort key ("PROFILE")
    id_field: str = ""  # "accountId"
    not_found: str = ""  # the 404 code ("account_not_found")
    ids: str = GLOBAL_IDS
    owner: str = OWNER_SUB  # the attribute holding the owner's `sub`
    versioned: bool = True
    owner_index: bool = False  # listed under its owner (`ddbguard.guards.owner_index`)
    admin_reads: bool = False  # members of the admin group may read any item (a generic GET)
    # Derived from `fields`:
    public: tuple[str, ...] = dataclass_field(init=False, default=())  # what clients see, in order
    unique: tuple[Unique, ...] = dataclass_field(init=False, default=())
    defaults: Mapping[str, object] = dataclass_field(init=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        defaults = {
            "prefix": f"{self.kind.upper()}#",
            "sort": self.kind.upper(),
            "id_field": f"{self.kind}Id",
            "not_found": f"{self.kind}_not_found",
        }
        for name, value in defaults.items():
            if not getattr(self, name):
                object.__setattr__(self, name, value)
        if not self.fields:
            raise ValueError(f"{self.kind}: declare its fields")
        if self.ids not in (GLOBAL_IDS, OWNER_SCOPED_IDS):
            raise ValueError(f"{self.kind}: ids must be {GLOBAL_IDS!r} or {OWNER_SCOPED_IDS!r}")
        self._derive_from_fields()
        for unique in self.unique:
            claimed = _LOCK_KINDS.setdefault(unique.lock_kind, (self.kind, unique.field))
            if claimed != (self.kind, unique.field):
                raise ValueError(f"lock kind {unique.lock_kind} already belongs to {claimed[0]}.{claimed[1]}")
        _DECLARED[self.kind] = self

    def _derive_from_fields(self) -> None:
        stamps = (VERSION,) if self.versioned else ()
        public = (self.id_field, *self.fields, *stamps, CREATED_AT, UPDATED_AT)
        unique = tuple(
            Unique(name, spec.unique, spec.lock) for name, spec in self.fields.items() if spec.unique is not None
        )
        defaults = {name: spec.default for name, spec in self.fields.items() if spec.default is not None}
        object.__setattr__(self, "public", public)
        object.__setattr__(self, "unique", unique)
        object.__setattr__(self, "defaults", defaults)

    # --- keys -------------------------------------------------------------------------------

    @property
    def owner_scoped(self) -> bool:
        return self.ids == OWNER_SCOPED_IDS

    def partition(self, item_id: str, owner_sub: str | None = None) -> str:
        scope = self.kind if self.owner_scoped else None
        return keys.entity_partition(self.prefix, item_id, scope, owner_sub)

    def key(self, item_id: str, owner_sub: str | None = None) -> Key:
        return keys.entity_key(self.partition(item_id, owner_sub), self.sort)

    def key_of_partition(self, partition: str) -> Key:
        """The item's key from its partition key (a lock's `owner` records the partition)."""
        return keys.entity_key(partition, self.sort)

    @property
    def partition_pattern(self) -> str:
        """The IAM `dynamodb:LeadingKeys` pattern of this entity's items."""
        return f"{self.prefix}*"

    def lock_pattern(self, field_name: str) -> str:
        return keys.lock_partition_pattern(self.unique_field(field_name).lock_kind)

    @property
    def lock_patterns(self) -> tuple[str, ...]:
        return tuple(self.lock_pattern(unique.field) for unique in self.unique)

    # --- values -----------------------------------------------------------------------------

    def unique_field(self, name: str) -> Unique:
        for unique in self.unique:
            if unique.field == name:
                return unique
        raise KeyError(f"{self.kind} has no unique field {name}")

    def normalised(self, values: Mapping[str, object]) -> dict[str, str]:
        """The declared unique fields present in `values` (None: not sent), normalised and checked (422)."""
        return normalised_values(
            {unique.field: unique.kind for unique in self.unique},
            {unique.field: values.get(unique.field) for unique in self.unique},
        )

    def project(self, item: Mapping[str, object]) -> PublicItem:
        """What clients see of a stored item."""
        return {name: item.get(name, self.defaults.get(name)) for name in self.public}

    @property
    def title(self) -> str:
        return self.kind[:1].upper() + self.kind[1:]


def declared_entities() -> tuple[Entity, ...]:
    """Every entity declared so far in this process (declaring one registers it)."""
    return tuple(_DECLARED.values())


def entity_of_lock(lock_kind: str) -> tuple[Entity, Unique] | None:
    """The entity and unique field a lock kind belongs to, or None for a kind nobody declared."""
    claimed = _LOCK_KINDS.get(lock_kind)
    if claimed is None or claimed[0] not in _DECLARED:
        return None
    entity = _DECLARED[claimed[0]]
    return entity, entity.unique_field(claimed[1])
