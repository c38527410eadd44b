"""The whole API as a Hypothesis state machine: random sequences through the real handlers on DynamoDB Local, each
answer compared with the executable model (tests/model/), the whole table checked after every step.

Three callers share accounts, ledgers and orders, and an admin reads; Idempotency-Keys come fresh, from a small
pool (so they are reused, with other bodies and on other resources), or not at all, and the last keyed request is
retried as a client that lost its answer would; requests land on fresh or warm execution environments. Around
them: settlement paused and resumed, the clock moved past a key's lifetime (with DynamoDB's TTL process deleting
some expired records), a DynamoDB answer lost after the write committed, and locks keyed by an earlier rule of
normalisation, which the audit must move. Each example runs on a table of its own.

Used by tests/integration/test_api_stateful.py (the CI tier) and `make soak` (as long as asked).
"""

from __future__ import annotations

import itertools
import os
import random
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import ddbguard.limits as limits
from ddbguard.domain import lock_audit
from ddbguard.store import clock, keys
from ddbguard.store.shapes import Key
from local.api_client import ApiClient, HttpAnswer
from local.dynamodb_local import local_client
from local.in_process import InProcessEnvironments
from local.invocation import running
from local.stream_settler import StreamSettler
from local.table import ensure_table
from tests.model.api import ApiModel
from tests.model.keys import KEY_LIFETIME_S
from tests.model.ledgers import Bounds
from tests.model.world import Answer, Unique
from tests.support.faults import lost_write_answers
from tests.support.table_invariants import check_table, scan_all
from tests.support.table_reads import attribute_values
from tests.support.ttl_process import delete_expired

CALLERS = ("alice", "bob", "carol")
ADMIN = "root"
# Low bounds, so that a short sequence reaches them: 6 unsettled movements per ledger, 4 of them incoming.
BOUNDS = Bounds(unsettled=6, incoming=4)
# k0, k1: every caller's pool, so keys come back; "last": the key the last keyed request sent, on whatever this is.
KEYS = ("fresh", "fresh", "fresh", "k0", "k1", "last", "last", "none")
FUNDS = 1_000  # what each caller's first account starts with
IF_MATCH = ("current", "current", "current", "current", "stale", "missing")
AMOUNTS = (1, 40, 150, 600, FUNDS)
FULLWIDTH = str.maketrans({chr(c): chr(c - 0x20 + 0xFF00) for c in range(0x21, 0x7F)})
# (as sent, as stored); None: shows nothing visible, so refused.
DISPLAY_NAMES = (
    ("Ada", "Ada"),
    ("  Grace  ", "Grace"),
    ("Zoe\u0308", "Zo\u00eb"),
    ("\u3164", None),
    ("\u115f\u1160", None),
    ("\uffa0", None),
    ("\u2800", None),
    ("\u034f", None),
    ("\ufe0f", None),
)
ORDER_STATUSES = ("CANCELLED", "SHIPPED", "DELIVERED", "PAID", "REFUNDED")


@dataclass
class Statistics:
    """What a run did, for `make soak`'s report."""

    sequences: int = 0
    invariant_checks: int = 0  # the whole table checked: once as each sequence starts, then after every step
    requests: int = 0

    @property
    def steps(self) -> int:
        return self.invariant_checks - self.sequences


@dataclass
class Step:
    """One request, and how the model answers it (`expect` sees the step, so a retry can change If-Match)."""

    method: str
    path: str
    sub: str
    expect: Callable[[Step, HttpAnswer], Answer]
    body: Any = None
    key: str | None = None
    if_match: int | None = None
    warm: bool = False
    groups: list[str] | None = None

    def describe(self) -> str:
        return f"{self.method} {self.path} as {self.sub} key={self.key} If-Match={self.if_match} body={self.body!r}"


def spellings(value: str, identity: str, latin_twin: str | None = None) -> list[tuple[str, Unique]]:
    """Ways to write one value and what each is stored as: case, spaces, fullwidth; a Latin twin of a Cyrillic one."""
    local, _, domain = value.partition("@")
    stored = Unique(identity, value)
    written = [(value, stored), (value.upper(), stored), (f"  {value.capitalize()} ", stored)]
    if domain and local.isascii():
        written.append((local.translate(FULLWIDTH) + "@" + domain, stored))
    if latin_twin is not None:
        written.append((latin_twin, Unique(identity, latin_twin)))
    return written


def interleaved(values: list[list[tuple[str, Unique]]]) -> list[tuple[str, Unique]]:
    """Every spelling of every value, first spellings first, so that a small index reaches every value."""
    return [spelled for row in itertools.zip_longest(*values) for spelled in row if spelled is not None]


class ApiMachine(RuleBasedStateMachine):
    # Set by the test (fixtures of the session).
    endpoint: ClassVar[str] = ""
    ddb_client: ClassVar[Any] = None
    statistics: ClassVar[Statistics] = Statistics()

    def __init__(self) -> None:
        super().__init__()
        tag = uuid.uuid4().hex[:10]
        self.raw = local_client(self.endpoint, timeout=120)
        self.table = f"ddbguard-model-{tag}"
        self.clock_offset = {"s": 0.0}  # how far the layer's clock runs ahead (a_day_passes)
        ensure_table(self.raw, self.table)
        self.restore = self._point_the_layer_at_this_table()
        self.settler = StreamSettler(self.endpoint, self.table, self.raw)
        self.model = ApiModel(BOUNDS)
        self.fresh = ApiClient()
        self.warm = ApiClient(InProcessEnvironments(reuse=True))
        self.rng = random.Random(0)  # which expired records the TTL process deletes: the same on every replay
        emails = [spellings(f"user{i}@{tag}.io", f"e{i}") for i in range(3)]
        emails += [spellings(f"кот{i}@{tag}.io", f"c{i}", latin_twin=f"kot{i}@{tag}.io") for i in range(2)]
        self.email_spellings = interleaved(emails)
        self.username_spellings = interleaved([spellings(f"u{i}_{tag}", f"u{i}") for i in range(4)])
        self.account_ids: list[str] = []  # every id the API gave, in order (live and deleted)
        self.order_ids: list[tuple[str, str]] = []
        self.hold_ids: list[str] = []
        self.last_keyed: Step | None = None
        self.keyed: list[Step] = []  # every keyed write sent, in order (retried later, or its key reused)
        self.lose_next_answer = False
        self.statistics.sequences += 1

    def _point_the_layer_at_this_table(self) -> Callable[[], None]:
        """The layer writes this example's table, with low unsettled bounds and a clock the machine moves."""
        names = ("MAX_PENDING_ENTRIES", "MAX_INCOMING_PENDING_ENTRIES")
        before = (os.environ["TABLE_NAME"], [getattr(limits, name) for name in names], clock.now_s)
        os.environ["TABLE_NAME"] = self.table
        for name, bound in zip(names, (BOUNDS.unsettled, BOUNDS.incoming), strict=True):
            setattr(limits, name, bound)  # read at call time (ddbguard.limits)
        real_clock = before[2]
        setattr(clock, "now_s", lambda: real_clock() + self.clock_offset["s"])  # noqa: B010

        def restore() -> None:
            os.environ["TABLE_NAME"] = before[0]
            for name, bound in zip(names, before[1], strict=True):
                setattr(limits, name, bound)
            setattr(clock, "now_s", real_clock)  # noqa: B010

        return restore

    def teardown(self) -> None:
        self.restore()
        self.raw.delete_table(TableName=self.table)

    # --- sending and comparing ----------------------------------------------------------------

    def run(self, step: Step) -> HttpAnswer:
        client = self.warm if step.warm else self.fresh
        fault: AbstractContextManager[Any] = nullcontext()
        if self.lose_next_answer and step.method != "GET":
            fault, self.lose_next_answer = lost_write_answers(self.ddb_client), False
        with fault:
            real = client.request(
                step.method,
                step.path,
                step.body,
                sub=step.sub,
                groups=step.groups,
                idempotency_key=step.key,
                if_match=step.if_match,
            )
        self.statistics.requests += 1
        if not self.model.world.settlement_paused:
            self.settler.drain()  # settlement running: it keeps up between any two requests
        expected = step.expect(step, real)
        compare(step, real, expected)
        if expected.ok and not expected.replayed:
            self.model.remember_body(real.json)
        if step.key is not None and step.method != "GET":
            self.last_keyed = step
            self.keyed.append(step)
        return real

    def key(self, choice: str) -> str | None:
        """The Idempotency-Key a choice of KEYS names (a money route sent "none" answers 400)."""
        if choice == "last":
            return self.last_keyed.key if self.last_keyed is not None else None
        return {"fresh": f"k-{uuid.uuid4()}", "none": None}.get(choice, choice)

    def caller_of(self, owner: str | None, stranger: int, caller: str) -> str:
        """The owner, unless `stranger` is 0 (then `caller`, or the next caller when that is the owner)."""
        if owner is None:
            return caller
        if stranger:
            return owner
        return caller if caller != owner else CALLERS[(CALLERS.index(owner) + 1) % len(CALLERS)]

    def account(self, index: int) -> str:
        """A live account mostly (by position); sometimes a deleted one, or an id nobody was given."""
        live = [a for a in self.account_ids if a in self.model.world.accounts]
        gone = [a for a in self.account_ids if a not in self.model.world.accounts]
        if live and index < 12:
            return live[index % len(live)]
        if gone and index < 15:
            return gone[index % len(gone)]
        return "nobody-0"

    def owner_of(self, account_id: str) -> str | None:
        account = self.model.world.accounts.get(account_id)
        return account.owner if account is not None else None

    def version(self, choice: str, current: int | None) -> int | None:
        if choice == "missing":
            return None
        if current is None or choice == "stale":
            return (current or 0) + 1
        return current

    # --- accounts -----------------------------------------------------------------------------

    @initialize()
    def every_caller_has_a_funded_account(self) -> None:
        """Each caller starts with an account whose ledger holds FUNDS, so that money and orders move from step 1."""
        for index, caller in enumerate(CALLERS):
            self.create_account(caller, email=index, username=index, display=-1, key="fresh", warm=False)
            account_id = self.account_ids[-1]
            self.open_ledger(account=index, stranger=1, caller=caller, key="none")
            self.move_money("deposit", account=index, stranger=1, caller=caller, amount=FUNDS, key="fresh", warm=False)
            assert self.model.world.ledgers[account_id].cleared == FUNDS

    @rule(
        caller=st.sampled_from(CALLERS),
        email=st.integers(0, 18),
        username=st.integers(0, 7),
        display=st.integers(-3, len(DISPLAY_NAMES) - 1),
        key=st.sampled_from(KEYS),
        warm=st.booleans(),
    )
    def create_account(self, caller: str, email: int, username: int, display: int, key: str, warm: bool) -> None:
        email_sent, email_value = self.email_spellings[email % len(self.email_spellings)]
        username_sent, username_value = self.username_spellings[username % len(self.username_spellings)]
        display_name = DISPLAY_NAMES[display] if display >= 0 else None
        body: dict[str, Any] = {"email": email_sent, "username": username_sent}
        if display_name is not None:
            body["displayName"] = display_name[0]
        values = {"email": email_value, "username": username_value}

        def expect(step: Step, real: HttpAnswer) -> Answer:
            assigned = real.json.get("accountId") if real.status == 201 else None
            answer = self.model.create_account(
                caller, values, display_name, sent=body, key=step.key, assigned_id=assigned
            )
            if answer.status == 201 and not answer.replayed and assigned and assigned not in self.account_ids:
                self.account_ids.append(assigned)
            return answer

        self.run(Step("POST", "/accounts", caller, expect, body, self.key(key), warm=warm))

    @rule(account=st.integers(0, 15), stranger=st.integers(0, 4), caller=st.sampled_from(CALLERS), admin=st.booleans())
    def get_account(self, account: int, stranger: int, caller: str, admin: bool) -> None:
        account_id = self.account(account)
        caller = ADMIN if admin else self.caller_of(self.owner_of(account_id), stranger, caller)

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.get_account(caller, account_id, is_admin=admin)

        self.run(Step("GET", f"/accounts/{account_id}", caller, expect, groups=["admin"] if admin else None))

    @rule(caller=st.sampled_from(CALLERS))
    def list_accounts(self, caller: str) -> None:
        real = self.fresh.get("/accounts?limit=100", sub=caller)
        assert real.status == 200, real.json
        listed = {account["accountId"] for account in real.json["accounts"]}
        assert listed == self.model.list_accounts(caller), f"GET /accounts as {caller}: {listed}"

    @rule(
        account=st.integers(0, 15),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        email=st.integers(-19, 18),
        username=st.integers(-8, 7),
        display=st.integers(-len(DISPLAY_NAMES), len(DISPLAY_NAMES) - 1),
        closing=st.sampled_from([None, None, True, False]),
        if_match=st.sampled_from(IF_MATCH),
        key=st.sampled_from(KEYS),
        warm=st.booleans(),
    )
    def update_account(
        self,
        account: int,
        stranger: int,
        caller: str,
        email: int,
        username: int,
        display: int,
        closing: bool | None,
        if_match: str,
        key: str,
        warm: bool,
    ) -> None:
        """Changes any of email, username, displayName and closing (a negative choice leaves a field out)."""
        account_id = self.account(account)
        caller = self.caller_of(self.owner_of(account_id), stranger, caller)
        body: dict[str, Any] = {}
        values: dict[str, Unique] = {}
        other: dict[str, Any] = {}
        if email >= 0:
            body["email"], values["email"] = self.email_spellings[email % len(self.email_spellings)]
        if username >= 0:
            body["username"], values["username"] = self.username_spellings[username % len(self.username_spellings)]
        if display >= 0:
            body["displayName"], other["displayName"] = DISPLAY_NAMES[display][0], DISPLAY_NAMES[display]
        if closing is not None:
            body["closing"] = other["closing"] = closing
        held = self.model.world.accounts.get(account_id)

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.update_account(
                caller, account_id, values, other, sent=body, if_match=step.if_match, key=step.key
            )

        version = self.version(if_match, held.version if held else None)
        self.run(Step("PATCH", f"/accounts/{account_id}", caller, expect, body, self.key(key), version, warm))

    @rule(
        account=st.integers(0, 15),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        if_match=st.sampled_from(IF_MATCH),
        key=st.sampled_from(KEYS),
    )
    def delete_account(self, account: int, stranger: int, caller: str, if_match: str, key: str) -> None:
        account_id = self.account(account)
        caller = self.caller_of(self.owner_of(account_id), stranger, caller)
        held = self.model.world.accounts.get(account_id)

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.delete_account(caller, account_id, if_match=step.if_match, key=step.key)

        version = self.version(if_match, held.version if held else None)
        self.run(Step("DELETE", f"/accounts/{account_id}", caller, expect, key=self.key(key), if_match=version))

    # --- ledgers ------------------------------------------------------------------------------

    @rule(
        account=st.integers(0, 15),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        key=st.sampled_from(KEYS),
    )
    def open_ledger(self, account: int, stranger: int, caller: str, key: str) -> None:
        account_id = self.account(account)
        caller = self.caller_of(self.owner_of(account_id), stranger, caller)

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.open_ledger(caller, account_id, key=step.key)

        self.run(Step("POST", f"/accounts/{account_id}/ledger", caller, expect, key=self.key(key)))

    @rule(account=st.integers(0, 15), stranger=st.integers(0, 4), caller=st.sampled_from(CALLERS))
    def get_statement(self, account: int, stranger: int, caller: str) -> None:
        account_id = self.account(account)
        caller = self.caller_of(self.owner_of(account_id), stranger, caller)

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.get_statement(caller, account_id)

        self.run(Step("GET", f"/accounts/{account_id}/ledger", caller, expect))

    @rule(
        kind=st.sampled_from(["deposit", "deposit", "withdrawal", "hold"]),
        account=st.integers(0, 15),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        amount=st.sampled_from(AMOUNTS),
        key=st.sampled_from(KEYS),
        warm=st.booleans(),
    )
    def move_money(
        self, kind: str, account: int, stranger: int, caller: str, amount: int, key: str, warm: bool
    ) -> None:
        account_id = self.account(account)
        caller = self.caller_of(self.owner_of(account_id), stranger, caller)
        route = {"deposit": "deposits", "withdrawal": "withdrawals", "hold": "holds"}[kind]

        def expect(step: Step, real: HttpAnswer) -> Answer:
            hold_id = real.json.get("holdId") if kind == "hold" and real.status == 201 else None
            answer = self.model.move_money(caller, account_id, kind, amount, key=step.key, assigned_hold=hold_id)
            if hold_id is not None and not answer.replayed and hold_id not in self.hold_ids:
                self.hold_ids.append(hold_id)
            return answer

        path = f"/accounts/{account_id}/ledger/{route}"
        self.run(Step("POST", path, caller, expect, {"amountCents": amount}, self.key(key), warm=warm))

    @precondition(lambda self: self.hold_ids)
    @rule(
        hold=st.integers(0, 15),
        outcome=st.sampled_from(["CAPTURED", "RELEASED"]),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        key=st.sampled_from(KEYS),
    )
    def settle_hold(self, hold: int, outcome: str, stranger: int, caller: str, key: str) -> None:
        hold_id = self.hold_ids[hold % len(self.hold_ids)]
        held = self.model.world.holds[hold_id]
        caller = self.caller_of(held.owner, stranger, caller)
        verb = "capture" if outcome == "CAPTURED" else "release"

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.settle_hold(caller, held.account_id, hold_id, outcome, key=step.key)

        path = f"/accounts/{held.account_id}/ledger/holds/{hold_id}/{verb}"
        self.run(Step("POST", path, caller, expect, key=self.key(key)))

    @rule(
        sender=st.integers(0, 15),
        recipient=st.integers(0, 15),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        amount=st.sampled_from(AMOUNTS[:3]),
        key=st.sampled_from(KEYS),
        warm=st.booleans(),
    )
    def transfer(
        self, sender: int, recipient: int, stranger: int, caller: str, amount: int, key: str, warm: bool
    ) -> None:
        from_id, to_id = self.account(sender), self.account(recipient)
        caller = self.caller_of(self.owner_of(from_id), stranger, caller)
        body = {"fromAccountId": from_id, "toAccountId": to_id, "amountCents": amount}

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.transfer(caller, from_id, to_id, amount, key=step.key)

        self.run(Step("POST", "/transfers", caller, expect, body, self.key(key), warm=warm))

    @rule(victim=st.integers(0, 15), stranger=st.sampled_from(CALLERS), times=st.integers(1, 8))
    def a_stranger_sends_many_transfers(self, victim: int, stranger: str, times: int) -> None:
        """One cent at a time from a stranger's first account into another's, each answer compared: a stranger's
        transfers may fill only the incoming part of the victim's unsettled bound."""
        to_id = self.account(victim)
        sender = next((a for a in self.account_ids if self.owner_of(a) == stranger), None)
        if sender is None or sender == to_id:
            return
        for _ in range(times):
            body = {"fromAccountId": sender, "toAccountId": to_id, "amountCents": 1}

            def expect(step: Step, real: HttpAnswer) -> Answer:
                return self.model.transfer(stranger, sender, to_id, 1, key=step.key)

            self.run(Step("POST", "/transfers", stranger, expect, body, self.key("fresh")))

    # --- orders -------------------------------------------------------------------------------

    def order(self, index: int, caller: str) -> tuple[str, str]:
        """(owner, order id): a known order by position (live or deleted), or past them one nobody made."""
        if index < len(self.order_ids) and index < 12:
            return self.order_ids[index]
        if self.order_ids and index < 12:
            return self.order_ids[index % len(self.order_ids)]
        return caller, "nothing-0"

    @rule(
        account=st.integers(0, 15),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        quantity=st.integers(1, 3),
        price=st.sampled_from([100, 250, 700]),
        order_id=st.sampled_from([None, None, "o-1", "o-2"]),
        key=st.sampled_from(KEYS),
    )
    def create_order(
        self, account: int, stranger: int, caller: str, quantity: int, price: int, order_id: str | None, key: str
    ) -> None:
        account_id = self.account(account)
        caller = self.caller_of(self.owner_of(account_id), stranger, caller)
        line = {"sku": "sku-1", "quantity": quantity, "unitPriceCents": price}
        body: dict[str, Any] = {"accountId": account_id, "items": [line]}
        if order_id is not None:
            body["orderId"] = order_id

        def expect(step: Step, real: HttpAnswer) -> Answer:
            assigned = real.json.get("orderId") if real.status == 201 else None
            answer = self.model.create_order(
                caller, account_id, quantity * price, order_id, sent=body, key=step.key, assigned_id=assigned
            )
            if answer.status == 201 and not answer.replayed and assigned and (caller, assigned) not in self.order_ids:
                self.order_ids.append((caller, assigned))
            return answer

        self.run(Step("POST", "/orders", caller, expect, body, self.key(key)))

    @rule(order=st.integers(0, 15), stranger=st.integers(0, 4), caller=st.sampled_from(CALLERS))
    def get_order(self, order: int, stranger: int, caller: str) -> None:
        owner, order_id = self.order(order, caller)
        caller = self.caller_of(owner, stranger, caller)

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.get_order(caller, order_id)

        self.run(Step("GET", f"/orders/{order_id}", caller, expect))

    @rule(
        order=st.integers(0, 15),
        status=st.sampled_from(ORDER_STATUSES),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        if_match=st.sampled_from(IF_MATCH),
        key=st.sampled_from(KEYS),
        warm=st.booleans(),
    )
    def update_order_status(
        self, order: int, status: str, stranger: int, caller: str, if_match: str, key: str, warm: bool
    ) -> None:
        owner, order_id = self.order(order, caller)
        caller = self.caller_of(owner, stranger, caller)
        held = self.model.world.orders.get((caller, order_id))

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.update_order_status(caller, order_id, status, if_match=step.if_match, key=step.key)

        version = self.version(if_match, held.version if held else None)
        body = {"status": status}
        self.run(Step("PATCH", f"/orders/{order_id}", caller, expect, body, self.key(key), version, warm))

    @rule(
        order=st.integers(0, 15),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        if_match=st.sampled_from(IF_MATCH),
        key=st.sampled_from(KEYS),
    )
    def delete_order(self, order: int, stranger: int, caller: str, if_match: str, key: str) -> None:
        owner, order_id = self.order(order, caller)
        caller = self.caller_of(owner, stranger, caller)
        held = self.model.world.orders.get((caller, order_id))

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.delete_order(caller, order_id, if_match=step.if_match, key=step.key)

        version = self.version(if_match, held.version if held else None)
        self.run(Step("DELETE", f"/orders/{order_id}", caller, expect, key=self.key(key), if_match=version))

    @rule(
        order=st.integers(0, 15),
        refund=st.booleans(),
        stranger=st.integers(0, 4),
        caller=st.sampled_from(CALLERS),
        key=st.sampled_from(KEYS),
        warm=st.booleans(),
    )
    def pay_or_refund_order(self, order: int, refund: bool, stranger: int, caller: str, key: str, warm: bool) -> None:
        owner, order_id = self.order(order, caller)
        caller = self.caller_of(owner, stranger, caller)

        def expect(step: Step, real: HttpAnswer) -> Answer:
            return self.model.pay_or_refund_order(caller, order_id, refund=refund, key=step.key)

        path = f"/orders/{order_id}/{'refund' if refund else 'pay'}"
        self.run(Step("POST", path, caller, expect, key=self.key(key), warm=warm))

    # --- retries, time, settlement, faults, the audit -----------------------------------------

    @precondition(lambda self: self.last_keyed is not None)
    @rule(reread=st.booleans())
    def retry_last_keyed_request(self, reread: bool) -> None:
        """A client that lost its answer sends the same request with the same key again, on a fresh environment;
        a PATCH or DELETE with the If-Match it read since, when `reread`."""
        assert self.last_keyed is not None
        self.resend(self.last_keyed, reread)

    @precondition(lambda self: self.keyed)
    @rule(earlier=st.integers(0, 15), reread=st.booleans())
    def retry_an_earlier_keyed_request(self, earlier: int, reread: bool) -> None:
        """A client that sends, much later, a request it once sent with a key: after other changes of the same
        resource, after the resource was deleted, after the key's lifetime."""
        self.resend(self.keyed[earlier % len(self.keyed)], reread)

    def resend(self, sent: Step, reread: bool) -> None:
        step = replace(sent, warm=False)
        if step.if_match is not None and reread:
            step = replace(step, if_match=self.current_version(step))
        self.run(step)

    @precondition(lambda self: any(s.method == "PATCH" and s.path.startswith("/accounts/") for s in self.keyed))
    @rule(earlier=st.integers(0, 15), account=st.integers(0, 15), display=st.integers(0, 2), warm=st.booleans())
    def reuse_a_patch_key_on_another_change(self, earlier: int, account: int, display: int, warm: bool) -> None:
        """The key of an earlier account PATCH, sent by the same caller with another change (a display name), on
        one of their accounts, the same one or another: a key names one request for good."""
        patches = [s for s in self.keyed if s.method == "PATCH" and s.path.startswith("/accounts/")]
        sent = patches[earlier % len(patches)]
        mine = [a for a in self.account_ids if self.owner_of(a) == sent.sub] or [sent.path.split("/")[2]]
        account_id = mine[account % len(mine)]
        name = DISPLAY_NAMES[display]
        held = self.model.world.accounts.get(account_id)
        body = {"displayName": name[0]}

        def expect(step: Step, real: HttpAnswer) -> Answer:
            other = {"displayName": name}
            return self.model.update_account(
                sent.sub, account_id, {}, other, sent=body, if_match=step.if_match, key=step.key
            )

        version = held.version if held is not None else 0
        self.run(Step("PATCH", f"/accounts/{account_id}", sent.sub, expect, body, sent.key, version, warm))

    def current_version(self, step: Step) -> int | None:
        kind, item_id = step.path.split("/")[1:3]
        world = self.model.world
        held = world.accounts.get(item_id) if kind == "accounts" else world.orders.get((step.sub, item_id))
        return held.version if held is not None else step.if_match

    @rule()
    def pause_settlement(self) -> None:
        self.model.pause_settlement()

    @rule()
    def resume_settlement(self) -> None:
        self.settler.drain()
        self.model.resume_settlement()

    @rule(share=st.sampled_from([0.0, 0.5, 1.0]))
    def a_day_passes(self, share: float) -> None:
        """Past every key's lifetime; DynamoDB's TTL process deletes a share of the expired records meanwhile, and
        no execution environment lives that long."""
        self.model.advance_clock(KEY_LIFETIME_S + 3600)
        self.clock_offset["s"] += KEY_LIFETIME_S + 3600
        delete_expired(self.raw, self.table, clock.now_s(), share, self.rng)
        self.warm = ApiClient(InProcessEnvironments(reuse=True))

    @rule()
    def lose_the_next_answer(self) -> None:
        """The next write reaches DynamoDB and commits, and its answer never arrives (botocore sends it again)."""
        self.lose_next_answer = True

    @rule()
    def audit_finds_nothing(self) -> None:
        report = self.audit(repair=False)
        assert report.findings == [], report.findings

    @precondition(lambda self: self.lock_keyed_by_earlier_rule() is not None)
    @rule()
    def a_lock_from_an_earlier_rule_is_moved_by_the_audit(self) -> None:
        """An account's email lock as an earlier release keyed it (the normalised value itself, before look-alike
        skeletons): one audit with repair moves it to the current key, and the next finds nothing."""
        old_lock = self.lock_keyed_by_earlier_rule()
        assert old_lock is not None
        current, earlier = old_lock
        item = self.raw.get_item(TableName=self.table, Key=attribute_values(current), ConsistentRead=True)["Item"]
        self.raw.delete_item(TableName=self.table, Key=attribute_values(current))
        self.raw.put_item(TableName=self.table, Item={**item, "PK": {"S": earlier}})
        repaired = self.audit(repair=True)
        assert repaired.findings and repaired.clean, repaired.findings
        again = self.audit(repair=False)
        assert again.findings == [], again.findings

    def lock_keyed_by_earlier_rule(self) -> tuple[Key, str] | None:
        """One of an account's email locks and the key an earlier rule gave it (the value itself)."""
        for account in self.model.world.accounts.values():
            earlier = keys.lock_partition("EMAIL", account.email.stored)
            current = keys.lock_keys("EMAIL", account.email.stored)
            if earlier not in {key["PK"] for key in current}:
                return current[0], earlier
        return None

    def audit(self, *, repair: bool) -> lock_audit.AuditReport:
        with running("audit_locks"):
            return lock_audit.audit_locks(repair=repair)

    # --- after every step ---------------------------------------------------------------------

    @invariant()
    def the_table_agrees_with_the_model(self) -> None:
        settled = not self.model.world.settlement_paused
        if settled:
            self.settler.drain()
        check_table(scan_all(self.raw, self.table), self.model.world, settled=settled)
        self.statistics.invariant_checks += 1


def compare(step: Step, real: HttpAnswer, expected: Answer) -> None:
    where = step.describe()
    if expected.replayed:
        first = (expected.status, expected.first_body)
        assert (real.status, real.json) == first, f"{where}: a replay answered {real.status} {real.json}, first {first}"
        assert real.header("Idempotent-Replayed") == "true", f"{where}: a replay not marked as one"
        return
    assert real.status == expected.status, f"{where}: answered {real.status} {real.json}, model says {expected}"
    assert real.header("Idempotent-Replayed") is None, f"{where}: marked as a replay"
    if expected.code is not None:
        assert real.code == expected.code, f"{where}: code {real.code} {real.json}, model says {expected.code}"
    for name, value in expected.fields.items():
        found = _lookup(real.json, name)
        assert found == value, f"{where}: {name} is {found!r}, model says {value!r} ({real.json})"
    if expected.error_fields is not None:
        fields = [error.get("field") for error in real.json.get("errors", [])]
        assert fields == list(expected.error_fields), f"{where}: errors name {fields}, model says {expected}"


def _lookup(body: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        body = body.get(part) if isinstance(body, dict) else None
    return body


@contextmanager
def machine_for(endpoint: str, ddb_client: Any) -> Iterator[type[ApiMachine]]:
    """The machine class bound to this session's DynamoDB Local, with fresh statistics."""
    yield type("Api", (ApiMachine,), {"endpoint": endpoint, "ddb_client": ddb_client, "statistics": Statistics()})
