"""Execution environments inside this process, for the tests and the demo seeder (`local.api_client`).

Tests count, block and fault-inject the calls of ddbguard's own boto3 client, which they can reach only in
their own process, so here handlers run on the caller's threads. Each invocation gets an environment of its
own: by default a fresh copy of its handler module, so nothing an earlier invocation left there (the
Powertools idempotency cache included) answers it, which is the case of a request that lands on another
environment; with `reuse=True`, an idle copy that served earlier ones (a warm environment), or a new one when
all are busy.

Powertools keeps the Metrics set at class level, shared by every copy in a process. Deployed, and behind the
local HTTP server (`local.environments`), an environment is a process running one invocation at a time, so that
is harmless. Here invocations run at once on threads, so this module gives each thread its own metric set,
without a line in the handlers or the layer.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

from local.invocation import running
from local.lambda_context import LambdaContext

Handler = Any  # (event, context) -> response
_create_lock = threading.Lock()  # module copies import layer modules on first use: one at a time


class _PerThread(MutableMapping[str, Any]):
    """A dict whose contents are each thread's own, starting from `initial`."""

    def __init__(self, initial: dict[str, Any]):
        self._initial = dict(initial)
        self._local = threading.local()

    @property
    def _data(self) -> dict[str, Any]:
        data = getattr(self._local, "data", None)
        if data is None:
            data = self._local.data = dict(self._initial)
        return data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._data))

    def __len__(self) -> int:
        return len(self._data)


_metrics_per_thread = False


def _give_each_thread_its_metric_set() -> None:
    global _metrics_per_thread
    with _create_lock:
        if _metrics_per_thread:
            return
        from ddbguard.observability import metrics

        for name in ("metric_set", "dimension_set", "metadata_set"):
            own = _PerThread(getattr(metrics.provider, name))
            setattr(metrics.provider, name, own)
            setattr(metrics, name, own)
        _metrics_per_thread = True


def new_environment(handler_module: str) -> Handler:
    """A fresh copy of the handler module (not in sys.modules), its `handler`."""
    with _create_lock:
        spec = importlib.util.find_spec(handler_module)
        assert spec is not None and spec.loader is not None, handler_module
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module.handler


class InProcessEnvironments:
    """`invoke(route, event, context)` on a thread of this process (see the module doc)."""

    def __init__(self, *, reuse: bool = False):
        self.reuse = reuse
        self._idle: dict[str, list[Handler]] = {}
        self._lock = threading.Lock()
        _give_each_thread_its_metric_set()

    @contextmanager
    def _environment(self, handler_module: str) -> Iterator[Handler]:
        if not self.reuse:
            yield new_environment(handler_module)
            return
        with self._lock:
            idle = self._idle.setdefault(handler_module, [])
            handler = idle.pop() if idle else None
        if handler is None:
            handler = new_environment(handler_module)
        try:
            yield handler
        finally:
            with self._lock:
                self._idle[handler_module].append(handler)

    def invoke(self, route: Any, event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        with self._environment(route.handler) as handler, running(route.operation):
            return handler(event, context)

    def close(self) -> None:
        with self._lock:
            self._idle.clear()
