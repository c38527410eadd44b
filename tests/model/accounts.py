"""Accounts: unique email and username, versioned changes, closing to incoming money, delete with the ledger.

- Email and username are unique by identity (case, width, spaces and look-alikes collapse to one); a taken value
  is 409 `unique_violation` naming every taken field. A change to the value the account already holds is free.
- Only the owner sees or changes an account (anyone else: 404, as if absent); admins may read any.
- A change or a delete names the version it read (If-Match): another is 412 with the account as it is.
- A display name shows at least one visible character; nothing else is checked of it.
- `closing` refuses transfers into the account (ledgers.py); the owner's own movements go on.
- A delete is refused while the ledger holds money (409 `balance_not_zero`) or while its movements wait for the
  settlement (409 `ledger_unsettled`); it takes the ledger's balance with it, keeps its entries, and the id is
  never given again.
"""

from __future__ import annotations

from typing import Any

from tests.model.keys import keyed
from tests.model.world import NOT_GIVEN, Account, Answer, KeyScope, Unique, World, refused

UNIQUE_FIELDS = ("email", "username")


def _not_found() -> Answer:
    return refused(404, "account_not_found")


def _taken(world: World, values: dict[str, Unique], me: Account | None = None) -> list[str]:
    return [
        name for name in UNIQUE_FIELDS if name in values and world.holder(name, values[name].identity) not in (None, me)
    ]


def create(
    world: World,
    caller: str,
    values: dict[str, Unique],
    display_name: str | None,
    *,
    scope: KeyScope | None,
    request: Any,
    assigned_id: str | None,
) -> Answer:
    def decide() -> Answer:
        if scope is not None and scope in world.made_by_key:
            return refused(409, "already_exists")  # the key's id was used: it names nothing new
        taken = _taken(world, values)
        if taken:
            return refused(409, "unique_violation", *taken)
        account = Account(assigned_id or NOT_GIVEN, caller, values["email"], values["username"], display_name)
        if assigned_id is None:
            return Answer(201, fields=account.public())  # the API created nothing: the comparison says so
        assert not world.id_was_used(assigned_id), f"account id {assigned_id} names a second life"
        world.accounts[assigned_id] = account
        if scope is not None:
            world.made_by_key[scope] = assigned_id
        return Answer(201, fields=account.public())

    return keyed(world, scope, request, decide)


def get(world: World, caller: str, account_id: str, *, is_admin: bool = False) -> Answer:
    account = world.accounts.get(account_id)
    if account is None or (account.owner != caller and not is_admin):
        return _not_found()
    return Answer(200, fields=account.public())


def listed(world: World, caller: str) -> set[str]:
    return {a.account_id for a in world.accounts.values() if a.owner == caller}


def change(
    world: World,
    caller: str,
    account_id: str,
    values: dict[str, Unique],
    other: dict[str, Any],
    if_match: int,
    *,
    scope: KeyScope | None,
    request: Any,
) -> Answer:
    """`values`: unique fields to change; `other`: displayName (its stored form) and closing."""

    def decide() -> Answer:
        account = world.account_of(caller, account_id)
        if account is None:
            return _not_found()
        if if_match != account.version:
            return _stale(account)
        taken = _taken(world, values, me=account)
        if taken:
            return refused(409, "unique_violation", *taken)
        for name, value in values.items():
            setattr(account, name, value)
        if "displayName" in other:
            account.display_name = other["displayName"]
        if "closing" in other:
            account.closing = other["closing"]
        account.version += 1
        return Answer(200, fields=account.public())

    return keyed(world, scope, request, decide)


def _stale(account: Account) -> Answer:
    current = {f"current.{name}": value for name, value in account.public().items()}
    return refused(412, "version_conflict", **current)


def delete(
    world: World, caller: str, account_id: str, if_match: int, *, scope: KeyScope | None, request: Any
) -> Answer:
    def decide() -> Answer:
        account = world.account_of(caller, account_id)
        if account is None:
            return _not_found()
        if if_match != account.version:
            return _stale(account)
        ledger = world.ledgers.get(account_id)
        if ledger is not None and (ledger.cleared or ledger.held):
            return refused(409, "balance_not_zero")
        if ledger is not None and ledger.unsettled:
            return refused(409, "ledger_unsettled")
        del world.accounts[account_id]
        world.ledgers.pop(account_id, None)
        world.deleted_accounts.add(account_id)
        return Answer(204)

    return keyed(world, scope, request, decide)
