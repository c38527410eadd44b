"""Fault injection on the layer's real botocore client (DynamoDB Local stays real underneath).

- `dropped_responses`: the request reaches DynamoDB and commits, then the response is lost
  (a read timeout), `times` times in a row; botocore's own retries see it too.
- `lost_write_answers`: the same for the next `times` writes of any kind (a transaction or a single-item write).
- `timeouts_before_send`: the connection times out before the request is sent.
- `crash_after_write`: the process "dies" right after a successful write, before anything else
  runs (a BaseException, so nothing in the handler, Powertools included, can clean up).
- `blocked_writes`: a write waits on an event (to hold a request in flight).
- `transaction_conflicts`, `throttling`: what DynamoDB Local never answers, answered here
  without sending anything.
- `random_transaction_conflicts`: TransactionConflict on a share of one function's transactions
  (as a hot item meets them on real DynamoDB), the others sent as they are.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from botocore.awsrequest import AWSResponse, HTTPHeaders
from botocore.exceptions import ConnectTimeoutError, ReadTimeoutError
from botocore.httpsession import URLLib3Session
from botocore.retries.quota import RetryQuota
from botocore.retries.standard import RetryQuotaChecker


class SimulatedCrash(BaseException):
    """The Lambda was killed: not an Exception, so no `except Exception` handler runs."""


class Injection:
    """How many matching calls the fault hit (`injected`) and let through (`passed`)."""

    def __init__(self, times: int):
        self.remaining = times
        self.injected = 0
        self.passed = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.remaining <= 0:
                self.passed += 1
                return False
            self.remaining -= 1
            self.injected += 1
            return True


@contextmanager
def hooked(client, event: str, handler) -> Iterator[None]:
    """`handler` runs first on `event` of `client` while the block runs."""
    unique_id = f"ddbguard-fault-{id(handler)}-{event}"  # botocore keeps one registration per unique id
    client.meta.events.register_first(event, handler, unique_id=unique_id)
    try:
        yield
    finally:
        client.meta.events.unregister(event, unique_id=unique_id)


@contextmanager
def dropped_responses(client, operation: str = "TransactWriteItems", times: int = 1) -> Iterator[Injection]:
    budget = Injection(times)
    session = URLLib3Session(timeout=120)

    def send_then_lose_response(request, **_: object):
        if not budget.take():
            return None
        session.send(request)  # DynamoDB receives and applies it...
        raise ReadTimeoutError(endpoint_url=request.url)  # ...and the answer never arrives

    with hooked(client, f"before-send.dynamodb.{operation}", send_then_lose_response):
        yield budget


WRITE_OPERATIONS = ("TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem")


def _retry_quota(client) -> RetryQuota:
    """The client's retry quota (botocore's standard mode: a token bucket that a retry draws from)."""
    emitter = client.meta.events._emitter  # botocore keeps no public handle on it
    for handler in emitter._handlers.prefix_search("after-call.dynamodb.TransactWriteItems"):
        if isinstance(getattr(handler, "__self__", None), RetryQuotaChecker):
            return handler.__self__._quota
    raise LookupError("no retry quota on this client (is its retry mode standard?)")


@contextmanager
def lost_write_answers(client, times: int = 1) -> Iterator[Injection]:
    """The next `times` writes, whichever kind, reach DynamoDB and commit; their answers are lost.

    botocore draws its retry quota for each re-send and gives it back only when the re-send succeeds; a re-send
    that DynamoDB refuses (a cancelled transaction) keeps it. A Lambda environment's client rarely meets that, but
    this process's one client would meet it once per injected loss for the whole session, until botocore stopped
    retrying at all: so what the injected losses took is given back when the block ends.
    """
    budget = Injection(times)
    session = URLLib3Session(timeout=120)
    quota = _retry_quota(client)
    available = quota.available_capacity

    def send_then_lose_response(request, **_: object):
        if not budget.take():
            return None
        session.send(request)
        raise ReadTimeoutError(endpoint_url=request.url)

    try:
        with ExitStack() as hooks:
            for operation in WRITE_OPERATIONS:
                hooks.enter_context(hooked(client, f"before-send.dynamodb.{operation}", send_then_lose_response))
            yield budget
    finally:
        quota.release(max(0, available - quota.available_capacity))


@contextmanager
def timeouts_before_send(client, operation: str = "TransactWriteItems", times: int = 1) -> Iterator[Injection]:
    budget = Injection(times)

    def time_out(request, **_: object):
        if budget.take():
            raise ConnectTimeoutError(endpoint_url=request.url)
        return None

    with hooked(client, f"before-send.dynamodb.{operation}", time_out):
        yield budget


@contextmanager
def crash_after_write(client, operation: str = "TransactWriteItems", times: int = 1) -> Iterator[Injection]:
    budget = Injection(times)

    def crash(http_response, **_: object):
        if http_response.status_code == 200 and budget.take():
            raise SimulatedCrash(f"killed after a successful {operation}")

    with hooked(client, f"after-call.dynamodb.{operation}", crash):
        yield budget


@contextmanager
def blocked_writes(
    client, release: threading.Event, operation: str = "TransactWriteItems", *, holding: int | None = None
) -> Iterator[threading.Event]:
    """Every `operation` (or only the first `holding` of them) waits until `release` is set; the yielded event
    says one is waiting. The wait's timeout is a backstop for a failing test, never what a passing one waits for."""
    entered = threading.Event()
    held = itertools.count()

    def wait(request, **_: object):
        if holding is not None and next(held) >= holding:
            return None
        entered.set()
        release.wait(timeout=120)
        return None

    with hooked(client, f"before-send.dynamodb.{operation}", wait):
        yield entered


class _RawBody:
    def __init__(self, data: bytes):
        self._data = data

    def stream(self, **_: object) -> Iterator[bytes]:
        yield self._data


def _error_response(request, status: int, body: dict) -> AWSResponse:
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "injected-fault"}
    return AWSResponse(request.url, status, HTTPHeaders.from_dict(headers), _RawBody(data))


@contextmanager
def _answering(client, operation: str, times: int, error_body) -> Iterator[Injection]:
    """The first `times` calls of `operation` get HTTP 400 with `error_body(request)`; nothing is sent."""
    budget = Injection(times)

    def answer(request, **_: object):
        return _error_response(request, 400, error_body(request)) if budget.take() else None

    with hooked(client, f"before-send.dynamodb.{operation}", answer):
        yield budget


def transaction_conflicts(client, times: int = 1, reason: str = "TransactionConflict"):
    """TransactWriteItems answers TransactionCanceledException whose reasons are all `reason`
    (what DynamoDB says when another transaction holds an item); nothing is sent or written."""

    def cancelled(request) -> dict:
        actions = len(json.loads(request.body)["TransactItems"])
        return {
            "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
            "message": f"Transaction cancelled, please refer cancellation reasons for specific reasons [{reason}]",
            "CancellationReasons": [{"Code": reason, "Message": "injected"} for _ in range(actions)],
        }

    return _answering(client, "TransactWriteItems", times, cancelled)


def throttling(client, operation: str = "TransactWriteItems", times: int = 1):
    """`operation` answers ThrottlingException (botocore retries it itself, then ddbguard does)."""
    throttled = {
        "__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException",
        "message": "Rate of requests exceeds",
    }
    return _answering(client, operation, times, lambda request: throttled)


def _conflict_body(request) -> dict:
    actions = len(json.loads(request.body)["TransactItems"])
    return {
        "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        "message": "Transaction cancelled, please refer cancellation reasons for specific reasons",
        "CancellationReasons": [{"Code": "TransactionConflict", "Message": "injected"} for _ in range(actions)],
    }


@contextmanager
def random_transaction_conflicts(client, rate: float, function: str, seed: int = 22) -> Iterator[Injection]:
    """Each TransactWriteItems made while `function`'s handler runs is cancelled with TransactionConflict
    with probability `rate` (nothing is sent); the others, and every other function's, reach DynamoDB."""
    from local.invocation import current_function

    budget = Injection(10**9)
    rng = random.Random(seed)
    lock = threading.Lock()

    def maybe_conflict(request, **_: object):
        if current_function.get() != function:
            return None
        with lock:
            hit = rng.random() < rate
        if not hit:
            with budget._lock:
                budget.passed += 1
            return None
        budget.take()
        return _error_response(request, 400, _conflict_body(request))

    with hooked(client, "before-send.dynamodb.TransactWriteItems", maybe_conflict):
        yield budget
