"""Whether the current request was answered from an earlier attempt of the same request.

The domain recognises replays in its own writes (a money movement's request marker, a create
whose derived id already exists); the HTTP edge turns the flag into `Idempotent-Replayed: true`.
A context variable, because the local server runs one handler per thread.
"""

from __future__ import annotations

from contextvars import ContextVar

_replayed: ContextVar[bool] = ContextVar("ddbguard_replayed", default=False)


def mark_replayed() -> None:
    _replayed.set(True)


def reset() -> None:
    _replayed.set(False)


def was_replayed() -> bool:
    return _replayed.get()
