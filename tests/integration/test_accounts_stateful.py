"""A Hypothesis state machine drives sign-ups, unique-value changes and deletes from several callers
over a small pool of values (so collisions happen), and after every step reads the table:
every lock has exactly one live owner whose current value equals it, every account has both locks,
and every answer matches a simple model of who holds what.
"""

from __future__ import annotations

import os
import uuid

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

CALLERS = ("alice", "bob", "carol")
POOL = 4  # emails and usernames per example: small, so values collide
FULLWIDTH = str.maketrans({chr(c): chr(c - 0x20 + 0xFF00) for c in range(0x21, 0x7F)})


def spell(value: str, variant: int) -> str:
    """Another spelling of the same normalised value: case, surrounding spaces, fullwidth letters."""
    if variant == 1:
        return value.upper()
    if variant == 2:
        return f"  {value.capitalize()} "
    if variant == 3:
        local, at, rest = value.partition("@")
        return local.translate(FULLWIDTH) + at + rest
    return value


class AccountsMachine(RuleBasedStateMachine):
    api = None  # set by the test: the fixtures of this session
    raw_client = None

    def __init__(self) -> None:
        super().__init__()
        prefix = uuid.uuid4().hex[:10]  # every example has values of its own
        self.emails = [f"user{i}@{prefix}.io" for i in range(POOL)]
        self.usernames = [f"u{i}_{prefix}" for i in range(POOL)]
        self.live: dict[str, dict] = {}  # accountId -> the model of the account
        self.gone: set[str] = set()

    # --- the model ------------------------------------------------------------------------

    def holder(self, field: str, value: str) -> str | None:
        return next((aid for aid, acct in self.live.items() if acct[field] == value), None)

    def taken(self, wanted: dict[str, str], me: str | None = None) -> list[str]:
        return [f for f, v in wanted.items() if self.holder(f, v) not in (None, me)]

    # --- rules ----------------------------------------------------------------------------

    @rule(
        caller=st.sampled_from(CALLERS),
        email=st.integers(0, POOL - 1),
        username=st.integers(0, POOL - 1),
        variant=st.integers(0, 3),
    )
    def sign_up(self, caller, email, username, variant):
        wanted = {"email": self.emails[email], "username": self.usernames[username]}
        body = {"email": spell(wanted["email"], variant), "username": spell(wanted["username"], variant % 3)}
        reply = self.api.post("/accounts", body, sub=caller)
        taken = self.taken(wanted)
        if taken:
            assert reply.status == 409, reply.json
            assert sorted(e["field"] for e in reply.json["errors"]) == sorted(taken)
            return
        assert reply.status == 201, reply.json
        account = reply.json
        assert (account["email"], account["username"], account["version"]) == (*wanted.values(), 0)
        self.live[account["accountId"]] = {"sub": caller, **wanted, "version": 0}

    @precondition(lambda self: self.live)
    @rule(
        data=st.data(),
        fields=st.sampled_from([("email",), ("username",), ("email", "username"), ()]),
        as_owner=st.sampled_from([True, True, True, False]),
        stale=st.sampled_from([False, False, False, True]),
    )
    def change_unique_values(self, data, fields, as_owner, stale):
        # Insertion order, not sorted ids: ids are random, so a sorted order would differ on replay.
        account_id = data.draw(st.sampled_from(list(self.live)))
        model = self.live[account_id]
        caller = model["sub"] if as_owner else next(c for c in CALLERS if c != model["sub"])
        pools = {"email": self.emails, "username": self.usernames}
        wanted = {}
        for field in fields:
            # Half the time aim at a value someone else holds now: collisions are the point.
            held = sorted(a[field] for aid, a in self.live.items() if aid != account_id)
            choices = held if held and data.draw(st.booleans()) else pools[field]
            wanted[field] = data.draw(st.sampled_from(choices))
        body = {f: spell(v, 1) for f, v in wanted.items()} or {"displayName": "renamed"}
        if_match = model["version"] + 1 if stale else model["version"]
        reply = self.api.patch(f"/accounts/{account_id}", body, sub=caller, if_match=if_match)
        if not as_owner:
            assert reply.status == 404, reply.json
            return
        if stale:
            assert reply.status == 412, reply.json
            assert reply.json["current"]["version"] == model["version"]
            assert (reply.json["current"]["email"], reply.json["current"]["username"]) == (
                model["email"],
                model["username"],
            )
            return
        taken = self.taken(wanted, me=account_id)
        if taken:
            assert reply.status == 409, reply.json
            assert sorted(e["field"] for e in reply.json["errors"]) == sorted(taken)
            return
        assert reply.status == 200, reply.json
        model.update(wanted, version=model["version"] + 1)
        assert (reply.json["email"], reply.json["username"], reply.json["version"]) == (
            model["email"],
            model["username"],
            model["version"],
        )

    @precondition(lambda self: self.live)
    @rule(data=st.data(), as_owner=st.sampled_from([True, True, True, False]))
    def delete(self, data, as_owner):
        # Insertion order, not sorted ids: ids are random, so a sorted order would differ on replay.
        account_id = data.draw(st.sampled_from(list(self.live)))
        model = self.live[account_id]
        caller = model["sub"] if as_owner else next(c for c in CALLERS if c != model["sub"])
        reply = self.api.delete(f"/accounts/{account_id}", sub=caller, if_match=model["version"])
        if not as_owner:
            assert reply.status == 404, reply.json
            return
        assert reply.status == 204, reply.json
        del self.live[account_id]
        self.gone.add(account_id)

    # --- the invariant, from the table ----------------------------------------------------

    @invariant()
    def locks_and_accounts_agree(self):
        table = os.environ["TABLE_NAME"]
        lock_keys = [("EMAIL", v) for v in self.emails] + [("HANDLE", v) for v in self.usernames]
        account_ids = sorted(self.live) + sorted(self.gone)
        keys = [{"PK": {"S": f"UNIQ#{k}#{v}"}, "SK": {"S": "LOCK"}} for k, v in lock_keys]
        keys += [{"PK": {"S": f"ACCT#{aid}"}, "SK": {"S": "PROFILE"}} for aid in account_ids]
        found = self.raw_client.batch_get_item(RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
        assert not found.get("UnprocessedKeys")
        items = {item["PK"]["S"]: item for item in found["Responses"][table]}
        stored_accounts = {
            aid: items[f"ACCT#{aid}"] for aid in account_ids if f"ACCT#{aid}" in items
        }  # every account the table holds, of those this example made
        assert set(stored_accounts) == set(self.live)
        fields = {"EMAIL": "email", "HANDLE": "username"}
        for kind, value in lock_keys:
            lock = items.get(f"UNIQ#{kind}#{value}")
            holder = self.holder(fields[kind], value)
            if lock is None:
                assert holder is None, f"{holder} lacks its {kind} lock {value}"
                continue
            owner = lock["owner"]["S"].removeprefix("ACCT#")
            assert owner in stored_accounts, f"lock {value} owned by missing account {owner}"
            assert stored_accounts[owner][fields[kind]]["S"] == value, f"lock {value} is stale for {owner}"
            assert owner == holder
        for aid, item in stored_accounts.items():
            assert int(item["version"]["N"]) == self.live[aid]["version"]
            for kind, field in fields.items():
                lock = items.get(f"UNIQ#{kind}#{item[field]['S']}")
                assert lock is not None and lock["owner"]["S"] == f"ACCT#{aid}", f"{aid} lacks its {field} lock"


def test_accounts_state_machine_keeps_locks_and_accounts_consistent(api, raw_client):
    machine = type("Accounts", (AccountsMachine,), {"api": api, "raw_client": raw_client})
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=15,
            stateful_step_count=20,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
