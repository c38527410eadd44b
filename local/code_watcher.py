"""Hot reload for `make run`: watch functions/ and retire the execution environments whose code changed.

Polling with the standard library: functions/ holds about a hundred files, so a stat of each every half second costs
nothing measurable, works on every filesystem (bind mounts and network folders included, where inotify stays silent)
and adds no dependency. A changed handler module retires its own function's environments; any other change (the
layer, the routes/ package, an area's shared module) retires every function's, since any handler may import it. The next
request to a retired function is a fresh cold start on the new code; invocations in flight finish on the old one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

POLL_INTERVAL_S = 0.5
WATCHED_SUFFIXES = (".py", ".json")  # code, and data files a handler may read at import

Snapshot = dict[Path, tuple[int, int]]


def snapshot(folder: Path) -> Snapshot:
    """Each watched file's (modification time, size)."""
    found: Snapshot = {}
    for path in folder.rglob("*"):
        if path.suffix not in WATCHED_SUFFIXES or "__pycache__" in path.parts:
            continue
        try:
            status = path.stat()
        except FileNotFoundError:  # removed while we walked
            continue
        found[path] = (status.st_mtime_ns, status.st_size)
    return found


def changed_files(before: Snapshot, after: Snapshot) -> list[Path]:
    """Files added, removed or changed between two snapshots, sorted."""
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def affected_handlers(changed: Iterable[Path], folder: Path, handlers: Iterable[str]) -> set[str] | None:
    """The handler modules (e.g. `ledger.deposit`) whose environments must go; None means every one."""
    known = set(handlers)
    affected: set[str] = set()
    for path in changed:
        module = ".".join(path.relative_to(folder).with_suffix("").parts)
        if module not in known:
            return None
        affected.add(module)
    return affected


class CodeWatcher:
    """Calls `on_change(changed files)` from its own thread after files under `folder` change."""

    def __init__(self, folder: Path, on_change: Callable[[list[Path]], None], interval_s: float = POLL_INTERVAL_S):
        self.folder = folder
        self.on_change = on_change
        self.interval_s = interval_s
        self._seen = snapshot(folder)

    def run(self, stop: threading.Event) -> None:
        while not stop.wait(self.interval_s):
            current = snapshot(self.folder)
            changed = changed_files(self._seen, current)
            self._seen = current
            if changed:
                self.on_change(changed)
