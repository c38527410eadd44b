"""One `make run` per data folder: the first claims the folder, a second one is refused with the first's pid and URL.

Two DynamoDB Local processes on one `-dbPath` would write the same SQLite file behind each other's back. The claim is
an exclusive `flock` on a file inside the folder, held for as long as `make run` lives: the kernel releases it when the
process ends, however it ends, so a crashed run leaves no stale claim to clean up by hand. The file also names who
holds it, for the refusal.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

CLAIM_FILE = "ddbguard-run.lock"


@dataclass(frozen=True)
class Holder:
    pid: int
    api_url: str


class DataFolderInUse(RuntimeError):
    def __init__(self, folder: Path, holder: Holder | None):
        self.folder = folder
        self.holder = holder
        who = f"`make run` (pid {holder.pid}) at {holder.api_url}" if holder else "another `make run`"
        super().__init__(
            f"the data folder {folder} is in use by {who}. Use that one, stop it (Ctrl-C in its terminal"
            + (f", or kill {holder.pid}" if holder else "")
            + "), or give this one its own data: DDB_DATA_DIR=memory or DDB_DATA_DIR=<another folder>"
        )


class DataFolderClaim:
    """Held while this process serves from `folder`; `release()` (or the process's end) frees it."""

    def __init__(self, folder: Path, handle: IO[str]):
        self.folder = folder
        self._handle: IO[str] | None = handle

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()  # closing the descriptor drops the flock; the file stays (unlinking it would race a claimer)


def claim_data_folder(folder: Path, api_url: str) -> DataFolderClaim:
    """Claim `folder` for this process, or raise DataFolderInUse naming the holder."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / CLAIM_FILE
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held open for the process's lifetime
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = _holder(handle.read())
        handle.close()
        raise DataFolderInUse(folder, holder) from None
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps(asdict(Holder(pid=os.getpid(), api_url=api_url))) + "\n")
    handle.flush()
    return DataFolderClaim(folder, handle)


def _holder(text: str) -> Holder | None:
    try:
        return Holder(**json.loads(text))
    except (ValueError, TypeError):  # written half-way, or by something else
        return None
