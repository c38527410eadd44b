"""No email, username or display name in telemetry: every route runs with tracing on and logging at DEBUG, and
everything emitted is scanned for the personal values the requests used.

Scanned: every log record of ddbguard's Powertools logger and of the Powertools and X-Ray SDK libraries (as
formatted JSON, exception traces included), the metrics lines printed to stdout (EMF), and every X-Ray segment
and subsegment the SDK emits (captured in-process by replacing the recorder's emitter), serialized.
Not scanned: botocore's own DEBUG log, which prints whole request bodies by design and is never enabled.
"""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import aws_xray_sdk
import pytest
from aws_xray_sdk.core import patch, xray_recorder

import routes
from ddbguard import observability
from local.route_stories import sample_body


class CapturingEmitter:
    """Stands in for the UDP emitter: keeps every entity the recorder would send to the X-Ray daemon."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self._lock = threading.Lock()

    def send_entity(self, entity) -> None:
        with self._lock:
            self.sent.append(entity.serialize())

    def set_daemon_address(self, address) -> None:
        pass


@dataclass
class Telemetry:
    emitter: CapturingEmitter
    logs: io.StringIO
    capsys: pytest.CaptureFixture[str]
    stdout: list[str] = field(default_factory=list)

    def texts(self) -> dict[str, str]:
        self.stdout.append(self.capsys.readouterr().out)  # EMF metrics lines are printed
        return {"logs": self.logs.getvalue(), "metrics": "".join(self.stdout), "traces": "\n".join(self.emitter.sent)}

    def hits(self, values: list[str]) -> list[tuple[str, str]]:
        found = []
        for where, text in self.texts().items():
            lowered = text.lower()
            found += [(where, value) for value in values if value.lower() in lowered]
        return found


@pytest.fixture
def telemetry(dynamodb_local, capsys) -> Iterator[Telemetry]:
    """Tracing on (what Lambda does with POWERTOOLS_TRACE_DISABLED unset), DEBUG logs, all of it captured."""
    emitter = CapturingEmitter()
    previous_emitter = xray_recorder.emitter
    xray_recorder.configure(emitter=emitter, sampling=False, context_missing="LOG_ERROR")
    # The session's Tracer was built disabled (POWERTOOLS_TRACE_DISABLED, local/runtime_env.py), which turned the
    # X-Ray SDK off and skipped its patching; turn both on as in Lambda. Patching stays; the SDK goes off after.
    aws_xray_sdk.global_sdk_config.set_sdk_enabled(True)
    patch(("botocore",))
    buffer = io.StringIO()
    capture = logging.StreamHandler(buffer)
    capture.setFormatter(observability.logger.registered_formatter)
    watched = [logging.getLogger(observability.logger.name), logging.getLogger("aws_lambda_powertools")]
    watched.append(logging.getLogger("aws_xray_sdk"))
    levels = [(log, log.level) for log in watched]
    for log in watched:
        log.addHandler(capture)
        log.setLevel(logging.DEBUG)
    captured = Telemetry(emitter=emitter, logs=buffer, capsys=capsys)
    try:
        yield captured
    finally:
        for log, level in levels:
            log.removeHandler(capture)
            log.setLevel(level)
        aws_xray_sdk.global_sdk_config.set_sdk_enabled(False)
        xray_recorder.configure(emitter=previous_emitter)


class TracedApi:
    """The API client, each request inside a root segment as API Gateway's active tracing opens one."""

    def __init__(self, api) -> None:
        self._api = api
        self.routes: set[str] = set()

    def __call__(self, method: str, path: str, body=None, **kwargs):
        from local.server import find_route

        route, _parameters, _matched = find_route(method, path.split("?")[0])
        self.routes.add(route.key)
        xray_recorder.begin_segment("ddbguard-api")
        try:
            return self._api.request(method, path, body, **kwargs)
        finally:
            xray_recorder.end_segment()


def _every_route(call: TracedApi, uid: str) -> list[str]:
    """Representative requests of every route, refusals that carry items included; returns the personal values."""
    ada_email, ada_name = f"ada.pii-{uid}@lovelace.example", f"ada_pii_{uid}"
    new_email, new_name = f"countess.pii-{uid}@lovelace.example", f"countess_pii_{uid}"
    bob_email, bob_name = f"bob.pii-{uid}@babbage.example", f"bob_pii_{uid}"
    display = f"Augusta Ada {uid}"
    sub, key = f"pii-{uid}", iter(range(1000))

    def idem() -> str:
        return f"pii-{uid}-{next(key)}"

    assert call("GET", "/health", sub=None).status == 200
    ada = call("POST", "/accounts", {"email": ada_email, "username": ada_name, "displayName": display}, sub=sub)
    assert ada.status == 201, ada.json
    ada_id = ada.json["accountId"]
    bob = call("POST", "/accounts", {"email": bob_email, "username": bob_name}, sub=sub, idempotency_key=idem())
    assert bob.status == 201, bob.json
    bob_id = bob.json["accountId"]
    taken = call("POST", "/accounts", {"email": ada_email.upper(), "username": ada_name}, sub=f"other-{uid}")
    assert taken.code == "unique_violation"
    assert call("POST", "/accounts", {"email": f"not an email {ada_email}", "username": "x"}, sub=sub).status == 422
    account = f"/accounts/{ada_id}"
    assert call("GET", account, sub=sub).status == 200
    assert call("GET", "/accounts?limit=5", sub=sub).status == 200  # the caller's list: emails in the body
    assert call("GET", account, sub=f"admin-{uid}", groups=["admin"]).status == 200
    assert call("GET", account, sub=f"other-{uid}").status == 404
    changed = call("PATCH", account, {"email": new_email, "username": new_name}, sub=sub, if_match=0)
    assert changed.status == 200, changed.json
    stale = call("PATCH", account, {"displayName": "stale"}, sub=sub, if_match=0)
    assert stale.code == "version_conflict"  # its body carries the current account, email included
    ledger = f"{account}/ledger"
    assert call("POST", ledger, sub=sub).status == 201
    assert call("POST", f"/accounts/{bob_id}/ledger", sub=sub).status == 201
    assert call("POST", f"{ledger}/deposits", {"amountCents": 5000}, sub=sub, idempotency_key=idem()).status == 201
    poor = call("POST", f"{ledger}/withdrawals", {"amountCents": 10**9}, sub=sub, idempotency_key=idem())
    assert poor.code == "insufficient_funds"
    assert call("POST", f"{ledger}/withdrawals", {"amountCents": 100}, sub=sub, idempotency_key=idem()).status == 201
    hold = call("POST", f"{ledger}/holds", {"amountCents": 200}, sub=sub, idempotency_key=idem())
    assert hold.status == 201, hold.json
    hold_path = f"{ledger}/holds/{hold.json['holdId']}"
    assert call("POST", f"{hold_path}/capture", sub=sub, idempotency_key=idem()).status == 200
    assert call("POST", f"{hold_path}/release", sub=sub, idempotency_key=idem()).code == "hold_settled"
    transfer = {"fromAccountId": ada_id, "toAccountId": bob_id, "amountCents": 300}
    assert call("POST", "/transfers", transfer, sub=sub, idempotency_key=idem()).status == 201
    assert call("GET", f"{ledger}?limit=2", sub=sub).status == 200
    lines = [{"sku": "BOOK-1843", "quantity": 1, "unitPriceCents": 100}]
    order = call("POST", "/orders", {"accountId": ada_id, "items": lines, "orderId": f"o-{uid}"}, sub=sub)
    assert order.status == 201, order.json
    order_path = f"/orders/o-{uid}"
    assert call("GET", order_path, sub=sub).status == 200
    assert call("POST", f"{order_path}/pay", sub=sub, idempotency_key=idem()).status == 200
    assert call("PATCH", order_path, {"status": "SHIPPED"}, sub=sub, if_match=1).status == 200
    assert call("DELETE", order_path, sub=sub, if_match=2).code == "invalid_transition"
    assert call("DELETE", account, sub=sub, if_match=1).code == "balance_not_zero"
    assert call("DELETE", f"/accounts/{bob_id}", sub=sub, if_match=0).code == "balance_not_zero"
    spare = call("POST", "/accounts", {"email": f"spare.{ada_email}", "username": f"spare_{ada_name}"}, sub=sub)
    assert call("DELETE", f"/accounts/{spare.json['accountId']}", sub=sub, if_match=0).status == 204
    _routes_not_walked_above(call, uid, sub)
    return [ada_email, ada_name, new_email, new_name, bob_email, bob_name, display, f"spare.{ada_email}"]


def _routes_not_walked_above(call: TracedApi, uid: str, sub: str) -> None:
    """Any route the walk above does not know (a resource added later) runs with its sample body on fresh ids."""
    for route in routes.ROUTES:
        if route.key in call.routes:
            continue
        path = route.path
        for name in route.path_parameters:
            path = path.replace(f"{{{name}}}", f"pii-{name}-{uid}")
        key = f"pii-{route.operation}-{uid}" if route.idempotency != "none" else None
        reply = call(route.method, path, sample_body(route), sub=sub, idempotency_key=key, if_match=0)
        assert reply.status < 500, (route.key, reply.json)


def test_no_personal_value_in_logs_metrics_or_traces(api, telemetry, uid):
    call = TracedApi(api)
    values = _every_route(call, uid)

    assert call.routes == {route.key for route in routes.ROUTES}
    texts = telemetry.texts()
    assert len(telemetry.emitter.sent) >= len(routes.ROUTES), "tracing was not on"
    assert '"operation": "TransactWriteItems"' in texts["traces"], texts["traces"][:3000]
    assert '"_aws"' in texts["metrics"], "no metrics were flushed"
    assert '"level":"DEBUG"' in texts["logs"].replace(" ", ""), "DEBUG logging was not on"
    assert telemetry.hits(values) == []


def test_the_scanner_finds_a_planted_value(api, telemetry, uid):
    planted = f"planted-{uid}@example.com"
    xray_recorder.begin_segment("ddbguard-api")
    xray_recorder.current_segment().put_metadata("planted", planted)
    xray_recorder.end_segment()
    observability.logger.debug("planted", extra={"value": planted.upper()})
    print(json.dumps({"planted": planted}))

    found = telemetry.hits([planted])
    assert set(found) == {("traces", planted), ("logs", planted), ("metrics", planted)}
