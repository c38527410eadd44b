"""What the API holds, as the model sees it, and the answer it owes a request.

Values the model cannot choose (a new account's id, a hold's id) come from the system's own answer; the model
only checks that they are new. Unique values are identities (`Unique.identity`): two spellings a person reads as
the same value share one, whatever the normalisation does to reach it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OK_STATUSES = range(200, 300)
NOT_GIVEN = "<an id the API did not give>"


@dataclass(frozen=True)
class Answer:
    """What the API must answer: the status, the problem `code`, body fields with their values, the fields named by
    `errors[]` (in order) and, for a replay, the whole first answer (`first_body`) with `Idempotent-Replayed`."""

    status: int
    code: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    error_fields: tuple[str, ...] | None = None
    replayed: bool = False
    first_body: Any = None

    @property
    def ok(self) -> bool:
        return self.status in OK_STATUSES


def refused(status: int, code: str, *error_fields: str, **fields: Any) -> Answer:
    return Answer(status, code, fields, error_fields or None)


@dataclass(frozen=True)
class Unique:
    """A unique value: who it is (`identity`, what collides) and how it is stored (`stored`)."""

    identity: str
    stored: str


@dataclass
class Account:
    account_id: str
    owner: str
    email: Unique
    username: Unique
    display_name: str | None
    closing: bool = False
    version: int = 0

    def public(self) -> dict[str, Any]:
        return {
            "accountId": self.account_id,
            "email": self.email.stored,
            "username": self.username.stored,
            "displayName": self.display_name,
            "closing": self.closing,
            "version": self.version,
        }


@dataclass
class Ledger:
    owner: str
    cleared: int = 0
    held: int = 0
    version: int = 0
    unsettled: int = 0  # movements whose values wait for the settlement

    @property
    def available(self) -> int:
        return self.cleared - self.held

    def public(self) -> dict[str, Any]:
        return {
            "clearedCents": self.cleared,
            "holdCents": self.held,
            "availableCents": self.available,
            "version": self.version,
        }


@dataclass
class Hold:
    account_id: str
    owner: str
    amount: int
    status: str = "OPEN"


@dataclass
class Order:
    order_id: str
    owner: str
    account_id: str
    total: int
    status: str = "PENDING"
    version: int = 0
    moved_money: bool = False

    def public(self) -> dict[str, Any]:
        return {
            "orderId": self.order_id,
            "accountId": self.account_id,
            "status": self.status,
            "totalCents": self.total,
            "version": self.version,
        }


# An Idempotency-Key's scope: the caller, the route (`METHOD /path/{param}`) and the key itself.
KeyScope = tuple[str, str, str]


@dataclass
class KeyRecord:
    """What a key remembers of the request that first succeeded with it."""

    request: Any  # what was asked (path and body): the same key with another request is a reused key
    status: int
    body: Any  # the first answer's body, as the API gave it
    expires_at: float | None  # None: kept for good (a money movement's)


@dataclass
class World:
    now_s: float = 0.0
    settlement_paused: bool = False
    accounts: dict[str, Account] = field(default_factory=dict)
    ledgers: dict[str, Ledger] = field(default_factory=dict)  # open ledgers, by account id
    holds: dict[str, Hold] = field(default_factory=dict)
    orders: dict[tuple[str, str], Order] = field(default_factory=dict)  # (owner, order id) -> order
    keys: dict[KeyScope, KeyRecord] = field(default_factory=dict)
    awaiting_body: KeyScope | None = None  # the key whose first answer's body the API has just given
    # What deleted things leave behind: their ids (never given again) and their ledger entries (kept).
    deleted_accounts: set[str] = field(default_factory=set)
    deleted_orders: set[tuple[str, str]] = field(default_factory=set)
    entries: Counter[str] = field(default_factory=Counter)  # account id -> ledger entries written under it
    # The id a keyed create made, for good: the key derives it, so the key can never make another.
    made_by_key: dict[KeyScope, str] = field(default_factory=dict)

    def live_key(self, scope: KeyScope) -> KeyRecord | None:
        record = self.keys.get(scope)
        if record is None or (record.expires_at is not None and record.expires_at <= self.now_s):
            return None
        return record

    def account_of(self, caller: str, account_id: str) -> Account | None:
        account = self.accounts.get(account_id)
        return account if account is not None and account.owner == caller else None

    def ledger_of(self, caller: str | None, account_id: str) -> Ledger | None:
        """The open ledger of `account_id`, if `caller` owns it (None: anyone's)."""
        ledger = self.ledgers.get(account_id)
        return ledger if ledger is not None and caller in (None, ledger.owner) else None

    def holder(self, name: str, identity: str) -> Account | None:
        return next((a for a in self.accounts.values() if getattr(a, name).identity == identity), None)

    def id_was_used(self, account_id: str) -> bool:
        return account_id in self.accounts or account_id in self.deleted_accounts

    def settle(self) -> None:
        for ledger in self.ledgers.values():
            ledger.unsettled = 0
