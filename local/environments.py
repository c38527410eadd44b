"""Execution environments as Lambda keeps them: a pool of OS processes per function, one invocation at a time each.

A request takes an idle environment of its function, or starts a new one (a cold start: a fresh interpreter
imports the handler, `local.lambda_runtime`) while the function has fewer than `max_per_function`; past
that it waits for one to come free, as a function at its concurrency limit would make it wait locally
(deployed, API Gateway would answer 429 instead). Module state and Powertools' class-level state are each
process's own, exactly as deployed. An environment whose process dies is dropped; the next request starts
another. `replace(...)` (hot reload, local/code_watcher.py) retires a function's environments: idle ones stop
at once, busy ones finish their invocation first, and the next request starts a fresh one (a cold start).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import IO, Any, cast

from local.debugging import PORT_VARIABLE as DEBUG_PORT_VARIABLE
from local.lambda_context import LambdaContext
from local.paths import ROOT

DEFAULT_MAX_PER_FUNCTION = int(os.environ.get("DDBGUARD_LOCAL_ENVIRONMENTS", "8"))
STOP_WAIT_S = 3.0


class InvocationFailed(Exception):
    """The handler raised (Lambda's error payload in `payload`), or its environment died."""

    def __init__(self, message: str, payload: dict[str, Any] | None = None):
        super().__init__(message)
        self.payload = payload or {}


class ProcessEnvironment:
    """One execution environment: a `local.lambda_runtime` process serving one handler module."""

    def __init__(self, handler: str, quiet: bool, generation: int = 0, debug_port: int | None = None):
        self.handler = handler
        self.generation = generation  # the code version it imported (FunctionEnvironments.generation)
        env = None if debug_port is None else {**os.environ, DEBUG_PORT_VARIABLE: str(debug_port)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "local.lambda_runtime", handler],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if quiet else None,
            cwd=ROOT,
            start_new_session=True,  # Ctrl-C reaches the server, which stops its environments itself
        )
        self._requests = cast(IO[bytes], self.process.stdin)
        self._replies = cast(IO[bytes], self.process.stdout)

    @property
    def pid(self) -> int:
        return self.process.pid

    def invoke(self, event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        invocation = {
            "event": event,
            "context": {
                "function_name": context.function_name,
                "timeout_s": context.timeout_s,
                "aws_request_id": context.aws_request_id,
            },
        }
        try:
            self._requests.write(json.dumps(invocation).encode() + b"\n")
            self._requests.flush()
            line = self._replies.readline()
        except OSError as error:
            raise InvocationFailed(f"{self.handler}: its environment is gone ({error})") from None
        if not line:
            raise InvocationFailed(f"{self.handler}: its environment exited (code {self.process.poll()})")
        reply = json.loads(line)
        if "error" in reply:
            failure = reply["error"]
            raise InvocationFailed(f"{self.handler}: {failure['errorType']}: {failure['errorMessage']}", failure)
        return cast(dict[str, Any], reply["response"])

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """Close its stdin (the runtime ends after the invocation in flight), kill it if it lingers."""
        self.begin_stop()
        self.finish_stop()

    def begin_stop(self) -> None:
        with suppress(OSError):
            self._requests.close()

    def finish_stop(self) -> None:
        try:
            self.process.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._replies.close()


class FunctionEnvironments:
    """The environments of one function."""

    def __init__(self, handler: str, max_environments: int, quiet: bool, debug_port: int | None = None):
        self.handler = handler
        # Under a debugger, one environment: a second one would need a port of its own (local.debugging).
        self.max_environments = 1 if debug_port is not None else max_environments
        self.quiet = quiet
        self.debug_port = debug_port
        self.idle: list[ProcessEnvironment] = []
        self.busy: set[ProcessEnvironment] = set()
        self._changed = threading.Condition()
        self.closed = False
        self.generation = 0  # grows on every code change; environments of older generations are not reused

    def _take(self) -> ProcessEnvironment:
        with self._changed:
            while True:
                if self.closed:
                    raise InvocationFailed(f"{self.handler}: the server is stopping")
                while self.idle and not self.idle[-1].alive():
                    self.idle.pop()
                if self.idle:
                    environment = self.idle.pop()  # the warmest one
                    break
                if len(self.busy) < self.max_environments:
                    environment = ProcessEnvironment(self.handler, self.quiet, self.generation, self.debug_port)
                    break
                self._changed.wait()
            self.busy.add(environment)
            return environment

    def _give_back(self, environment: ProcessEnvironment, healthy: bool) -> None:
        with self._changed:
            self.busy.discard(environment)
            kept = healthy and not self.closed and environment.generation == self.generation
            if kept:
                self.idle.append(environment)
            self._changed.notify()
        if not kept:
            environment.stop()

    def retire(self) -> list[ProcessEnvironment]:
        """The code changed: no environment started before now is used again. Returns the idle ones, to stop;
        a busy one finishes its invocation (nothing in flight is dropped) and is stopped when given back."""
        with self._changed:
            self.generation += 1
            idle, self.idle = self.idle, []
            self._changed.notify_all()  # a waiter may now start a fresh environment in a retired one's place
        return idle

    @contextmanager
    def environment(self) -> Iterator[ProcessEnvironment]:
        environment = self._take()
        healthy = False
        try:
            yield environment
            healthy = True
        except InvocationFailed as failed:
            healthy = environment.alive() and bool(failed.payload)  # a handler error leaves it up
            raise
        finally:
            self._give_back(environment, healthy)

    def close(self) -> list[ProcessEnvironment]:
        """No more invocations; the idle environments, for the caller to stop."""
        with self._changed:
            self.closed = True
            idle, self.idle = self.idle, []
            self._changed.notify_all()
        return idle


class ProcessEnvironments:
    """Every function's environments, started lazily; `invoke(route, event, context)` runs one invocation."""

    def __init__(
        self,
        *,
        quiet: bool = False,
        max_per_function: int = DEFAULT_MAX_PER_FUNCTION,
        debug_ports: Mapping[str, int] | None = None,
    ):
        self.quiet = quiet
        self.max_per_function = max_per_function
        self.debug_ports = dict(debug_ports or {})  # handler module -> the port its environment listens on
        self._functions: dict[str, FunctionEnvironments] = {}
        self._lock = threading.Lock()

    def function(self, handler: str) -> FunctionEnvironments:
        with self._lock:
            found = self._functions.get(handler)
            if found is None:
                found = self._functions[handler] = FunctionEnvironments(
                    handler, self.max_per_function, self.quiet, self.debug_ports.get(handler)
                )
            return found

    def invoke(self, route: Any, event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        with self.function(route.handler).environment() as environment:
            return environment.invoke(event, context)

    def replace(self, handlers: Collection[str] | None = None) -> int:
        """Retire the environments of `handlers` (None: of every function), so that their next invocation is a
        cold start on the code as it is now; returns how many environments were running them."""
        with self._lock:
            functions = [f for name, f in self._functions.items() if handlers is None or name in handlers]
        busy = sum(len(function.busy) for function in functions)
        idle = [environment for function in functions for environment in function.retire()]
        _stop_all(idle)
        return busy + len(idle)

    def close(self) -> None:
        """Stop every idle environment; a busy one stops when its invocation ends."""
        with self._lock:
            functions = list(self._functions.values())
        _stop_all([environment for function in functions for environment in function.close()])


def _stop_all(environments: list[ProcessEnvironment]) -> None:
    for environment in environments:  # all at once: each ends as soon as its stdin closes
        environment.begin_stop()
    for environment in environments:
        environment.finish_stop()
