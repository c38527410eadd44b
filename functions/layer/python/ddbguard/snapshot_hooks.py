"""SnapStart runtime hooks: what must be fresh in each environment restored from one snapshot.

With SnapStart, Lambda runs the init phase once, snapshots the process, and resumes every new execution environment
from that copy. Whatever init left in memory is then shared by all of them:
- `random`'s state: the jitter of retries (ddbguard.store.transient, botocore's own) would repeat in lockstep
  across environments; reseeded after restore from the OS (fresh entropy in each restored microVM).
- the DynamoDB client: its connection pool and the credentials it resolved belong to the snapshot; dropped after
  restore, so the next call builds a fresh client.
Ids themselves are drawn per call from `os.urandom` (ddbguard.store.ids), never from state kept since init.

The hooks go to `snapshot_restore_py` (part of Lambda's Python runtimes) when it is importable; where it is absent
nothing restores the process, so nothing is kept (tests/integration/test_snapstart_restore.py runs them through the
library, as Lambda does).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

__all__ = ["after_restore", "before_snapshot"]


def _runtime_hooks() -> Any:
    try:
        import snapshot_restore_py  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:  # not on Lambda (and not installed): nothing restores this process
        return None
    return snapshot_restore_py


def after_restore(hook: Callable[[], Any]) -> Callable[[], Any]:
    """Run `hook` in every environment resumed from a snapshot (usable as a decorator)."""
    runtime = _runtime_hooks()
    if runtime is not None:
        runtime.register_after_restore(hook)
    return hook


def before_snapshot(hook: Callable[[], Any]) -> Callable[[], Any]:
    """Run `hook` once before Lambda takes the snapshot: work done there is in every restored copy."""
    runtime = _runtime_hooks()
    if runtime is not None:
        runtime.register_before_snapshot(hook)
    return hook


@after_restore
def _fresh_random_state() -> None:
    random.seed()  # from os.urandom
