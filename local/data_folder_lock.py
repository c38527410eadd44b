"""One `make run` per data folder: the first claims the folder, a second one is refused with the first's pid and URL.

Two DynamoDB Local processes on one `-dbPath` would write the same SQLite file behind each other's back. The claim is
an exclusive `flock` on a file inside the folder, held for as long as the folder is in use: `make run` holds it and
hands the descriptor to its DynamoDB Local, so the claim lasts until both have ended, however they end (a `make run`
killed with SIGKILL leaves its DynamoDB Local running, and the folder stays claimed). The kernel releases it with the
last holder, so nothing stale is left to clean up by hand. The file also names who holds it, for the refusal.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

from local.service_state import process_alive

CLAIM_FILE = "ddbguard-run.lock"


@dataclass(frozen=True)
class Holder:
    pid: int
    api_url: str


class DataFolderInUse(RuntimeError):
    def __init__(self, folder: Path, holder: Holder | None, left_behind: list[int]):
        self.folder = folder
        self.holder = holder
        if holder is not None and not process_alive(holder.pid) and left_behind:
            pids = " ".join(str(pid) for pid in left_behind)
            message = (
                f"the data folder {folder} is in use by a DynamoDB Local (pid {pids}) left behind by a `make run` "
                f"(pid {holder.pid}) that is gone: stop it with `kill {pids}`, then `make run` again"
            )
        else:
            who = f"`make run` (pid {holder.pid}) at {holder.api_url}" if holder else "another `make run`"
            message = (
                f"the data folder {folder} is in use by {who}. Use that one, stop it (Ctrl-C in its terminal"
                + (f", or kill {holder.pid}" if holder else "")
                + "), or give this one its own data: DDB_DATA_DIR=memory or DDB_DATA_DIR=<another folder>"
            )
        super().__init__(message)


class DataFolderClaim:
    """Held while this process serves from `folder`; `release()` (or the process's end) frees it."""

    def __init__(self, folder: Path, handle: IO[str]):
        self.folder = folder
        self._handle: IO[str] | None = handle

    def fileno(self) -> int:
        """The descriptor that holds the claim, for DynamoDB Local to inherit."""
        assert self._handle is not None, "released"
        return self._handle.fileno()

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
        raise DataFolderInUse(folder, holder, dynamodb_local_processes(folder)) from None
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


def dynamodb_local_processes(folder: Path) -> list[int]:
    """Pids of the DynamoDB Local processes serving `folder` (Linux /proc; elsewhere none are found)."""
    wanted = str(folder.resolve()).encode()
    found = []
    for process in Path("/proc").glob("[0-9]*"):
        try:
            argv = (process / "cmdline").read_bytes().split(b"\0")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if any(arg.endswith(b"DynamoDBLocal.jar") for arg in argv) and wanted in argv:
            found.append(int(process.name))
    return sorted(found)
