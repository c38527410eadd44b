"""The lock audit: every lock has one live owner whose current value reads as it, and no owner lacks its locks.

It covers every declared entity (`ddbguard.guards.entity`) and every unique field each declares.
Normal writes keep this true by construction (locks change only in the owner's own transaction);
the audit is the safety net for anything that bypassed them (a manual edit, a restore, a bug). It
reads lock items (`UNIQ#...`) and the items of every entity with unique fields with a filtered
Scan, the only way to see every lock, and reports:

A value holds one lock per way it reads (`ddbguard.store.readings`), so an owner's value has one or more lock
keys, and the audit reports:

- `orphan_lock`: the lock's owner item is gone (or only its tombstone is left), or its current value does not
  read as the lock's key;
- `stale_lock_key`: the lock holds its owner's current value, keyed as an earlier rule of normalisation keyed
  it (before look-alike skeletons, or before a value could read several ways), not as the current rule keys it;
- `missing_lock`: one of an item's value's lock keys has no lock;
- `too_many_readings`: an item's value reads more ways than a value may lock (written before the bound; a person
  decides, never repaired);
- `lock_held_by_other`: an item's value is locked by another item (two owners claim one value;
  a person must decide, so this is never repaired);
- `missing_value`: an item without one of its unique values (never repaired either).

A Scan is not a snapshot, so a write racing it can look broken: every finding is confirmed with
consistent point reads before it is reported. Repairs are conditional transactions that hold
only while the problem still exists: an orphan lock is deleted only if its owner is still the
same and that owner still lacks the value (ConditionCheck on the owner in the same transaction);
a missing lock is put only if nobody holds it and the item still has the value. A repair whose
condition fails changed nothing and stays reported as unrepaired. A stale key is moved in one
transaction: the old lock deleted while still the owner's, every lock at the value's current keys put if
free (or kept if already the owner's), the owner checked to still hold the value. A lock of a kind no
entity declares is not judged (it belongs to no rule this process knows).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.guards import uniqueness, versioning
from ddbguard.guards.entity import Entity, Unique, declared_entities, entity_of_lock
from ddbguard.guards.uniqueness import ProtectedValue
from ddbguard.records import Record
from ddbguard.store import keys, reads, writes
from ddbguard.store.attribute_names import OWNER as OWNER
from ddbguard.store.attribute_names import PK, SK, VALUE
from ddbguard.store.readings import TooManyReadings
from ddbguard.store.shapes import Action, Item, Key
from ddbguard.store.writes import TransactionCancelled

__all__ = [
    "LOCK_HELD_BY_OTHER",
    "MISSING_LOCK",
    "MISSING_VALUE",
    "ORPHAN_LOCK",
    "STALE_LOCK_KEY",
    "TOO_MANY_READINGS",
    "AuditReport",
    "AuditSummary",
    "Finding",
    "Owners",
    "audit_locks",
    "audit_page",
    "audited_entities",
    "audited_items",
    "judge_page",
]

ORPHAN_LOCK = "orphan_lock"
STALE_LOCK_KEY = "stale_lock_key"
MISSING_LOCK = "missing_lock"
LOCK_HELD_BY_OTHER = "lock_held_by_other"
MISSING_VALUE = "missing_value"
TOO_MANY_READINGS = "too_many_readings"


class Finding(Record):
    """One lock that breaks the rule, or one unique value without its lock."""

    __slots__ = ("detail", "entity", "field", "lock", "owner", "owner_id", "problem", "repaired", "value")

    def __init__(
        self,
        *,
        problem: str,
        lock: str | None,
        owner_id: str | None,
        field: str,
        value: str | None,
        detail: str,
        repaired: bool = False,
        entity: str = "account",
        owner: str | None = None,
    ) -> None:
        self.problem = problem
        self.lock = lock  # the lock's partition key
        self.owner_id = owner_id  # the owner item's id (an account's accountId)
        self.field = field
        self.value = value
        self.detail = detail
        self.repaired = repaired
        self.entity = entity  # the owner's item kind
        self.owner = owner  # the owner item's partition key, when known


class AuditSummary(TypedDict):
    """A run's counts, as logged and returned."""

    locksScanned: int
    accountsScanned: int
    itemsScanned: dict[str, int]  # item kind -> items of it scanned
    findings: int
    repaired: int
    unrepaired: int
    byProblem: dict[str, int]


@dataclass
class AuditReport:
    locks_scanned: int = 0
    scanned_by_kind: dict[str, int] = field(default_factory=dict)  # item kind -> items of it scanned
    findings: list[Finding] = field(default_factory=list)

    @property
    def accounts_scanned(self) -> int:
        return self.scanned_by_kind.get("account", 0)

    @property
    def unrepaired(self) -> list[Finding]:
        return [finding for finding in self.findings if not finding.repaired]

    @property
    def clean(self) -> bool:
        return not self.unrepaired

    def summary(self) -> AuditSummary:
        by_problem: dict[str, int] = {}
        for finding in self.findings:
            by_problem[finding.problem] = by_problem.get(finding.problem, 0) + 1
        return AuditSummary(
            locksScanned=self.locks_scanned,
            accountsScanned=self.accounts_scanned,
            itemsScanned=dict(self.scanned_by_kind),
            findings=len(self.findings),
            repaired=len(self.findings) - len(self.unrepaired),
            unrepaired=len(self.unrepaired),
            byProblem=by_problem,
        )


Owners = list[tuple[Entity, Item]]  # a page's owner items, each with its entity


def audited_entities(entities: Sequence[Entity] | None = None) -> tuple[Entity, ...]:
    """The entities the audit checks: the given ones, or every declared entity with unique fields."""
    return tuple(entity for entity in (entities or declared_entities()) if entity.unique)


# --- reading ----------------------------------------------------------------------------------


def audited_items(entities: Sequence[Entity]) -> ConditionBase:
    """The Scan filter: lock items and the audited entities' items, the only items the audit judges."""
    condition: ConditionBase = Attr(PK).begins_with(keys.LOCK_PREFIX)
    for entity in entities:
        condition = condition | (Attr(PK).begins_with(entity.prefix) & Attr(SK).eq(entity.sort))
    return condition


def _pages_of_locks_and_owners(entities: Sequence[Entity]) -> Iterator[list[Item]]:
    """Every lock and every audited entity's item, one Scan page at a time (filtered on key prefixes, consistent)."""
    return reads.scan_pages(audited_items(entities))


def _by_partition(found: list[Item]) -> dict[str, Item]:
    return {item[PK]: item for item in found}


def _lock_rule(lock: Item) -> tuple[Entity, Unique] | None:
    return entity_of_lock(keys.lock_parts(lock[PK])[0])


def _owner_key_of(lock: Item) -> Key | None:
    """The key of the item a lock names as its owner, if the owner is of the lock's entity."""
    rule, owner = _lock_rule(lock), lock.get(OWNER)
    if rule is None or not isinstance(owner, str) or not owner.startswith(rule[0].prefix):
        return None
    return rule[0].key_of_partition(owner)


def _entity_of_item(item: Item, entities: Sequence[Entity]) -> Entity | None:
    """The audited entity `item` is a live item of (a tombstone is none: it holds no values)."""
    if versioning.is_tombstone(item):
        return None
    partition, sort = str(item[PK]), item.get(SK)
    return next((e for e in entities if partition.startswith(e.prefix) and sort == e.sort), None)


def _live(item: Item | None) -> Item | None:
    """A tombstone owns nothing: an owner reduced to one is as gone as an absent one."""
    return None if versioning.is_tombstone(item) else item


def _id_of(entity: Entity, item: Item | None, partition: object) -> str | None:
    if item is not None and isinstance(item.get(entity.id_field), str):
        return str(item[entity.id_field])
    if isinstance(partition, str) and partition.startswith(entity.prefix):
        return partition[len(entity.prefix) :].rsplit("#", 1)[-1]
    return None


def _is_lock(item: Item) -> bool:
    return keys.is_lock_key(str(item[PK]), item.get(SK))


def _counterparts(locks: list[Item], owners: Owners) -> tuple[dict[str, Item], dict[str, Item]]:
    """The page's locks' owner items and its items' locks, read by key (BatchGetItem): what a lock or an
    item is judged against, without holding the whole table in memory."""
    owner_keys = {key[PK]: key for lock in locks if (key := _owner_key_of(lock))}
    found_owners = _by_partition(reads.get_items([owner_keys[pk] for pk in sorted(owner_keys)]))
    lock_keys = {
        key[PK]: key
        for entity, item in owners
        for value in uniqueness.protected_values(entity, item)
        for key in _readable_keys(value)
    }
    held = _by_partition(reads.get_items(list(lock_keys.values())))
    return found_owners, held


# --- judging ----------------------------------------------------------------------------------


def _judge_lock(lock: Item, owner_item: Item | None) -> Finding | None:
    partition = lock[PK]
    rule = _lock_rule(lock)
    if rule is None:
        return None  # a lock kind no entity declares: no rule to judge it by
    entity, unique = rule
    _, value = keys.lock_parts(partition)
    owner = lock.get(OWNER)
    name = unique.field

    def orphan(detail: str) -> Finding:
        owner_partition = owner if isinstance(owner, str) else None
        owner_id = _id_of(entity, owner_item, owner)
        # The value the lock was taken for, not its key's reading (`alice` is keyed `allce`): the repair deletes the
        # lock only while the owner lacks that value.
        taken_for = _lock_value(lock, value)
        return Finding(
            problem=ORPHAN_LOCK,
            lock=partition,
            owner_id=owner_id,
            field=name,
            value=taken_for,
            detail=detail,
            entity=entity.kind,
            owner=owner_partition,
        )

    if _live(owner_item) is None:
        if isinstance(owner, str) and not owner.startswith(entity.prefix):
            # Read as "gone" too (its owner key is never read), but it may well exist: say what is wrong with it.
            return orphan(f"owner {owner!r} is no {entity.kind} item: only {entity.kind} items hold {name} locks")
        return orphan(f"owner {owner!r} does not exist")
    assert owner_item is not None
    held = owner_item.get(name)
    current = _current_locks(unique, held) if isinstance(held, str) else ()
    if current is None:
        return None  # the owner's value reads too many ways: its own finding says so
    if partition in current:
        return None
    # The details name no value: findings are logged, and values are personal data (`value` carries it).
    if isinstance(held, str) and _current_locks(unique, _lock_value(lock, value)) == current:
        owner_id = _id_of(entity, owner_item, owner)
        detail = f"lock keyed by an earlier rule; the owner's {name} is keyed otherwise now"
        return Finding(
            problem=STALE_LOCK_KEY,
            lock=partition,
            owner_id=owner_id,
            field=name,
            value=held,
            detail=detail,
            entity=entity.kind,
            owner=str(owner),
        )
    return orphan(f"owner's {name} is now another value")


def _current_locks(unique: Unique, value: str) -> tuple[str, ...] | None:
    """The partition keys of the locks the current rule gives a stored `value` (None: it reads too many ways): the
    keys every write computes (`ddbguard.guards.uniqueness.ProtectedValue.keys`), so a moved lock is one the
    owner's next change swaps."""
    try:
        return tuple(key[PK] for key in keys.lock_keys(unique.lock_kind, value))
    except TooManyReadings:
        return None


def _readable_keys(value: ProtectedValue) -> tuple[Key, ...]:
    try:
        return value.keys
    except TooManyReadings:
        return ()


def _lock_value(lock: Item, keyed_value: str) -> str:
    """The value a lock was taken for: its `value` attribute, or for a lock without one, its key's text."""
    stored = lock.get(VALUE)
    return stored if isinstance(stored, str) else keyed_value


def _judge_owner(entity: Entity, item: Item, locks: dict[str, Item]) -> list[Finding]:
    owner = str(item[PK])
    owner_id = _id_of(entity, item, owner)

    def found(problem: str, lock: str | None, name: str, value: str | None, detail: str) -> Finding:
        return Finding(
            problem=problem,
            lock=lock,
            owner_id=owner_id,
            field=name,
            value=value,
            detail=detail,
            entity=entity.kind,
            owner=owner,
        )

    findings = []
    for unique in entity.unique:
        name, value = unique.field, item.get(unique.field)
        if not isinstance(value, str):
            findings.append(found(MISSING_VALUE, None, name, None, f"{entity.kind} has no {name}"))
            continue
        current = _current_locks(unique, value)
        if current is None:
            detail = f"its {name} reads more ways than a value may lock"
            findings.append(found(TOO_MANY_READINGS, None, name, value, detail))
            continue
        for partition in current:
            lock = locks.get(partition)
            if lock is None:
                findings.append(found(MISSING_LOCK, partition, name, value, f"no lock for a reading of its {name}"))
            elif lock.get(OWNER) != owner:
                detail = f"lock owned by {lock.get(OWNER)!r}"
                findings.append(found(LOCK_HELD_BY_OTHER, partition, name, value, detail))
    return findings


def judge_page(page: list[Item], entities: Sequence[Entity]) -> tuple[list[Item], Owners, list[Finding]]:
    """One Scan page judged: (its locks, its owner items by entity, candidate findings still to be confirmed)."""
    locks = [item for item in page if _is_lock(item)]
    owners = [(entity, item) for item in page if (entity := _entity_of_item(item, entities)) is not None]
    if not locks and not owners:
        return locks, owners, []
    found_owners, held = _counterparts(locks, owners)
    candidates = [f for lock in locks if (f := _judge_lock(lock, found_owners.get(str(lock.get(OWNER)))))]
    for entity, item in owners:
        candidates += _judge_owner(entity, item, held)
    return locks, owners, candidates


def _declared(kind: str) -> Entity | None:
    return next((e for e in declared_entities() if e.kind == kind), None)


def _owner_key(finding: Finding) -> Key | None:
    entity = _declared(finding.entity)
    if entity is None:
        return None
    if finding.owner is not None:
        return entity.key_of_partition(finding.owner)
    if finding.owner_id is None or entity.owner_scoped:
        return None
    return entity.key(finding.owner_id)


def _still_broken(finding: Finding) -> Finding | None:
    """The same finding judged again from consistent point reads, or None if a write fixed it."""
    if finding.problem in (ORPHAN_LOCK, STALE_LOCK_KEY) and finding.lock is not None:
        lock = reads.get_item(keys.lock_key_of_partition(finding.lock))
        if lock is None:
            return None
        owner_key = _owner_key_of(lock)
        return _judge_lock(lock, reads.get_item(owner_key) if owner_key else None)
    owner_key = _owner_key(finding)
    if owner_key is None:
        return finding
    item = reads.get_item(owner_key)
    entity = _entity_of_item(item, declared_entities()) if item is not None else None
    if item is None or entity is None:
        return None  # the owner is gone: any lock it left is judged on its own
    locks = {}
    if finding.lock is not None:
        lock = reads.get_item(keys.lock_key_of_partition(finding.lock))
        if lock is not None:
            locks[lock[PK]] = lock
    judged = _judge_owner(entity, item, locks)
    return next((f for f in judged if f.field == finding.field and f.lock == finding.lock), None)


# --- repairing --------------------------------------------------------------------------------


def _no_longer_has(name: str, value: str) -> ConditionBase:
    return Attr(PK).not_exists() | Attr(name).not_exists() | Attr(name).ne(value)


def _repair_orphan(finding: Finding) -> bool:
    """Delete the lock only if its owner is still the one just read and that owner still lacks the value."""
    if finding.lock is None or finding.value is None:
        return False
    lock_key = keys.lock_key_of_partition(finding.lock)
    lock = reads.get_item(lock_key)
    if lock is None:
        return True  # already gone: nothing left to repair
    owner = lock.get(OWNER)
    same_owner = Attr(OWNER).not_exists() if owner is None else Attr(OWNER).eq(owner)
    actions = [writes.delete(lock_key, Attr(PK).exists() & same_owner)]
    owner_key = _owner_key_of(lock)
    if owner_key is not None:
        actions.append(writes.condition_check(owner_key, _no_longer_has(finding.field, finding.value)))
    return _repaired(actions)


def _repair_missing(finding: Finding) -> bool:
    owner_key = _owner_key(finding)
    entity = _declared(finding.entity)
    if owner_key is None or entity is None or finding.value is None:
        return False
    if finding.lock is None:
        return False
    protected = ProtectedValue(finding.field, entity.unique_field(finding.field).lock_kind, finding.value)
    still_has_value = Attr(PK).exists() & Attr(finding.field).eq(finding.value)
    actions = [
        writes.condition_check(owner_key, still_has_value),
        *uniqueness.reserve_locks(owner_key[PK], protected, [keys.lock_key_of_partition(finding.lock)]),
    ]
    return _repaired(actions)


def _repaired(actions: list[Action]) -> bool:
    """Run a repair whose conditions hold only while the problem still exists; False: they no longer held."""
    try:
        writes.transact_write(actions)
    except TransactionCancelled:
        return False
    return True


def _repair_stale_key(finding: Finding) -> bool:
    """Move the lock to the current keys in one transaction: the old lock deleted while still the owner's, each
    lock of the value's readings put if free (or checked to be the owner's already), the owner checked to still
    hold the value."""
    entity = _declared(finding.entity)
    if finding.lock is None or finding.value is None or finding.owner is None or entity is None:
        return False
    unique = entity.unique_field(finding.field)
    current = ProtectedValue(finding.field, unique.lock_kind, finding.value)
    held_by_owner = Attr(PK).exists() & Attr(OWNER).eq(finding.owner)
    take_current: list[Action] = []
    for key in _readable_keys(current):
        existing = reads.get_item(key)
        if existing is None:
            take_current += uniqueness.reserve_locks(finding.owner, current, [key])
        elif existing.get(OWNER) == finding.owner:
            take_current.append(writes.condition_check(key, held_by_owner))
        else:
            return False  # another owner holds a current key: two claimants, a person decides
    if not take_current:
        return False
    actions = [
        writes.delete(keys.lock_key_of_partition(finding.lock), held_by_owner),
        *take_current,
        writes.condition_check(
            entity.key_of_partition(finding.owner), Attr(PK).exists() & Attr(finding.field).eq(finding.value)
        ),
    ]
    return _repaired(actions)


def _repair(finding: Finding) -> bool:
    if finding.problem == ORPHAN_LOCK:
        return _repair_orphan(finding)
    if finding.problem == STALE_LOCK_KEY:
        return _repair_stale_key(finding)
    if finding.problem == MISSING_LOCK:
        return _repair_missing(finding)
    return False  # two claimants or a value-less owner: a person decides


# --- the audit --------------------------------------------------------------------------------


def audit_locks(*, repair: bool = False, entities: Sequence[Entity] | None = None) -> AuditReport:
    """Find (and with `repair=True`, safely fix) broken uniqueness locks of every audited entity.

    Page by page: each Scan page's locks are judged against their owners and its items against their
    locks, both read by key, so memory stays flat however big the table (findings aside).
    """
    audited = audited_entities(entities)
    report = AuditReport()
    for page in _pages_of_locks_and_owners(audited):
        audit_page(page, report, repair=repair, entities=audited)
    return report


def audit_page(page: list[Item], report: AuditReport, *, repair: bool, entities: Sequence[Entity]) -> None:
    """Judge one Scan page (any slice of the table) into `report`; ddbguard.domain.audit_scan pages by segment."""
    locks, owners, candidates = judge_page(page, entities)
    report.locks_scanned += len(locks)
    for entity, _ in owners:
        report.scanned_by_kind[entity.kind] = report.scanned_by_kind.get(entity.kind, 0) + 1
    for candidate in candidates:
        confirmed = _still_broken(candidate)
        if confirmed is None:
            continue
        if repair:
            confirmed = confirmed.replaced(repaired=_repair(confirmed))
        report.findings.append(confirmed)
