"""The lock audit: every lock has one live owner whose current value it equals, and no account lacks its locks.

Normal writes keep this true by construction (locks change only in the account's own
transaction); the audit is the safety net for anything that bypassed them (a manual edit, a
restore, a bug). It reads lock items (`UNIQ#...`) and account items with a filtered Scan, the
only way to see every lock, and reports:

- `orphan_lock`: the lock's owner account is gone, or its current value is not the lock's value;
- `missing_lock`: an account's value has no lock at all;
- `lock_held_by_other`: an account's value is locked by another account (two accounts claim one
  value; a person must decide, so this is never repaired);
- `missing_value`: an account without an email or username (never repaired either).

A Scan is not a snapshot, so a write racing it can look broken: every finding is confirmed with
consistent point reads before it is reported. Repairs are conditional transactions that hold
only while the problem still exists: an orphan lock is deleted only if its owner is still the
same and that owner still lacks the value (ConditionCheck on the account in the same
transaction); a missing lock is put only if nobody holds it and the account still has the value.
A repair whose condition fails changed nothing and stays reported as unrepaired.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.domain.accounts import UNIQUE_FIELDS, owner_of
from ddbguard.guards import uniqueness
from ddbguard.guards.uniqueness import ProtectedValue
from ddbguard.store import keys, reads, writes
from ddbguard.store.schema import LOCK_OWNER as OWNER
from ddbguard.store.schema import PARTITION_KEY, SORT_KEY
from ddbguard.store.shapes import Action, Item
from ddbguard.store.writes import TransactionCancelled

ORPHAN_LOCK = "orphan_lock"
MISSING_LOCK = "missing_lock"
LOCK_HELD_BY_OTHER = "lock_held_by_other"
MISSING_VALUE = "missing_value"
_FIELD_BY_KIND = {kind: name for name, kind in UNIQUE_FIELDS.items()}
_ACCOUNT_SORT = keys.account_key("-")[SORT_KEY]


@dataclass(frozen=True)
class Finding:
    problem: str
    lock: str | None  # the lock's partition key
    account_id: str | None
    field: str
    value: str | None
    detail: str
    repaired: bool = False


@dataclass
class AuditReport:
    locks_scanned: int = 0
    accounts_scanned: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def unrepaired(self) -> list[Finding]:
        return [finding for finding in self.findings if not finding.repaired]

    @property
    def clean(self) -> bool:
        return not self.unrepaired

    def summary(self) -> dict[str, Any]:
        by_problem: dict[str, int] = {}
        for finding in self.findings:
            by_problem[finding.problem] = by_problem.get(finding.problem, 0) + 1
        return {
            "locksScanned": self.locks_scanned,
            "accountsScanned": self.accounts_scanned,
            "findings": len(self.findings),
            "repaired": len(self.findings) - len(self.unrepaired),
            "unrepaired": len(self.unrepaired),
            "byProblem": by_problem,
        }


# --- reading ----------------------------------------------------------------------------------


def _pages_of_locks_and_accounts() -> Iterator[list[Item]]:
    """Every lock and account item, one Scan page at a time (filtered on the key prefixes, consistent)."""
    condition = Attr(PARTITION_KEY).begins_with(keys.LOCK_PREFIX) | (
        Attr(PARTITION_KEY).begins_with(keys.ACCOUNT_PREFIX) & Attr(SORT_KEY).eq(_ACCOUNT_SORT)
    )
    return reads.scan_pages(condition)


def _by_partition(found: list[Item]) -> dict[str, Item]:
    return {item[PARTITION_KEY]: item for item in found}


def _counterparts(locks: list[Item], accounts: list[Item]) -> tuple[dict[str, Item], dict[str, Item]]:
    """The page's locks' owner accounts and its accounts' locks, read by key (BatchGetItem): what a lock
    or an account is judged against, without holding the whole table in memory."""
    owner_ids = {owner_id for lock in locks if (owner_id := _account_id(lock.get(OWNER)))}
    owners = _by_partition(reads.get_items([keys.account_key(owner_id) for owner_id in sorted(owner_ids)]))
    lock_keys = {
        keys.lock_key(kind, value)["PK"]: keys.lock_key(kind, value)
        for account in accounts
        for name, kind in UNIQUE_FIELDS.items()
        if isinstance(value := account.get(name), str)
    }
    held = _by_partition(reads.get_items(list(lock_keys.values())))
    return owners, held


def _lock_parts(partition: str) -> tuple[str, str]:
    """(kind, value) of a lock partition key `UNIQ#<KIND>#<value>`; the value may contain '#'."""
    kind, _, value = partition[len(keys.LOCK_PREFIX) :].partition("#")
    return kind, value


def _account_id(owner: Any) -> str | None:
    if isinstance(owner, str) and owner.startswith(keys.ACCOUNT_PREFIX):
        return owner[len(keys.ACCOUNT_PREFIX) :]
    return None


def _is_lock(item: dict[str, Any]) -> bool:
    return item[PARTITION_KEY].startswith(keys.LOCK_PREFIX) and item[SORT_KEY] == keys.LOCK_SORT


# --- judging ----------------------------------------------------------------------------------


def _judge_lock(lock: dict[str, Any], account: dict[str, Any] | None) -> Finding | None:
    partition = lock[PARTITION_KEY]
    kind, value = _lock_parts(partition)
    name = _FIELD_BY_KIND.get(kind)
    if name is None:
        return None  # another entity's lock: not the account audit's business
    account_id = _account_id(lock.get(OWNER))
    if account is None:
        return Finding(ORPHAN_LOCK, partition, account_id, name, value, f"owner {lock.get(OWNER)!r} does not exist")
    if not isinstance(account.get(name), str) or keys.lock_key(kind, account[name])[PARTITION_KEY] != partition:
        # The detail names no value: findings are logged, and values are personal data (`value` carries it).
        return Finding(ORPHAN_LOCK, partition, account_id, name, value, f"owner's {name} is now another value")
    return None


def _judge_account(account: dict[str, Any], locks: dict[str, dict[str, Any]]) -> list[Finding]:
    account_id = str(account.get("accountId") or _account_id(account[PARTITION_KEY]))
    findings = []
    for name, kind in UNIQUE_FIELDS.items():
        value = account.get(name)
        if not isinstance(value, str):
            findings.append(Finding(MISSING_VALUE, None, account_id, name, None, f"account has no {name}"))
            continue
        partition = keys.lock_key(kind, value)[PARTITION_KEY]
        lock = locks.get(partition)
        if lock is None:
            findings.append(Finding(MISSING_LOCK, partition, account_id, name, value, f"no lock for its {name}"))
        elif lock.get(OWNER) != owner_of(account_id):
            findings.append(
                Finding(LOCK_HELD_BY_OTHER, partition, account_id, name, value, f"lock owned by {lock.get(OWNER)!r}")
            )
    return findings


def _still_broken(finding: Finding) -> Finding | None:
    """The same finding judged again from consistent point reads, or None if a write fixed it."""
    if finding.problem == ORPHAN_LOCK and finding.lock is not None:
        lock = reads.get_item(keys.lock_key(*_lock_parts(finding.lock)))
        if lock is None:
            return None
        owner_id = _account_id(lock.get(OWNER))
        return _judge_lock(lock, reads.get_item(keys.account_key(owner_id)) if owner_id else None)
    if finding.account_id is None:
        return finding
    account = reads.get_item(keys.account_key(finding.account_id))
    if account is None:
        return None  # the account is gone: any lock it left is judged on its own
    locks = {}
    if finding.value is not None:
        lock = reads.get_item(keys.lock_key(UNIQUE_FIELDS[finding.field], finding.value))
        if lock is not None:
            locks[lock[PARTITION_KEY]] = lock
    return next((f for f in _judge_account(account, locks) if f.field == finding.field), None)


# --- repairing --------------------------------------------------------------------------------


def _no_longer_has(name: str, value: str) -> ConditionBase:
    return Attr(PARTITION_KEY).not_exists() | Attr(name).not_exists() | Attr(name).ne(value)


def _repair_orphan(finding: Finding) -> bool:
    """Delete the lock only if its owner is still the one just read and that owner still lacks the value."""
    if finding.lock is None or finding.value is None:
        return False
    lock_key = keys.lock_key(*_lock_parts(finding.lock))
    lock = reads.get_item(lock_key)
    if lock is None:
        return True  # already gone: nothing left to repair
    owner = lock.get(OWNER)
    same_owner = Attr(OWNER).not_exists() if owner is None else Attr(OWNER).eq(owner)
    actions = [writes.delete(lock_key, Attr(PARTITION_KEY).exists() & same_owner)]
    owner_id = _account_id(owner)
    if owner_id is not None:
        actions.append(writes.condition_check(keys.account_key(owner_id), _no_longer_has(finding.field, finding.value)))
    return _repaired(actions)


def _repair_missing(finding: Finding) -> bool:
    if finding.account_id is None or finding.value is None:
        return False
    protected = ProtectedValue(finding.field, UNIQUE_FIELDS[finding.field], finding.value)
    still_has_value = Attr(PARTITION_KEY).exists() & Attr(finding.field).eq(finding.value)
    actions = [
        writes.condition_check(keys.account_key(finding.account_id), still_has_value),
        *uniqueness.reserve_unique_values(owner_of(finding.account_id), [protected]),
    ]
    return _repaired(actions)


def _repaired(actions: list[Action]) -> bool:
    """Run a repair whose conditions hold only while the problem still exists; False: they no longer held."""
    try:
        writes.transact_write(actions)
    except TransactionCancelled:
        return False
    return True


def _repair(finding: Finding) -> bool:
    if finding.problem == ORPHAN_LOCK:
        return _repair_orphan(finding)
    if finding.problem == MISSING_LOCK:
        return _repair_missing(finding)
    return False  # two claimants or a value-less account: a person decides


# --- the audit --------------------------------------------------------------------------------


def audit_locks(*, repair: bool = False) -> AuditReport:
    """Find (and with `repair=True`, safely fix) broken uniqueness locks of accounts.

    Page by page: each Scan page's locks are judged against their owners and its accounts against
    their locks, both read by key, so memory stays flat however big the table (findings aside).
    """
    report = AuditReport()
    for page in _pages_of_locks_and_accounts():
        locks = [item for item in page if _is_lock(item)]
        accounts = [item for item in page if item[PARTITION_KEY].startswith(keys.ACCOUNT_PREFIX)]
        report.locks_scanned += len(locks)
        report.accounts_scanned += len(accounts)
        if not locks and not accounts:
            continue
        owners, held = _counterparts(locks, accounts)
        candidates = [f for lock in locks if (f := _judge_lock(lock, owners.get(str(lock.get(OWNER)))))]
        for account in accounts:
            candidates += _judge_account(account, held)
        for candidate in candidates:
            confirmed = _still_broken(candidate)
            if confirmed is None:
                continue
            if repair:
                confirmed = replace(confirmed, repaired=_repair(confirmed))
            report.findings.append(confirmed)
    return report
