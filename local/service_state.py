"""Where the running `make run` is: its ports and table, in a state file every local tool reads.

`make run` writes `.local/run.json` once it serves. `make invoke`,
`make audit-locks`, `make token`, `make seed` and `make browse` read it, so they reach the table
that `make run` serves whatever ports it was given. Explicit variables still win: `DYNAMODB_PORT`
(and `TABLE_NAME`) name a DynamoDB Local directly. `DDBGUARD_STATE_FILE` moves the file (tests
use it to keep their servers apart from yours).

Two `make run`s may serve side by side (other ports, other data; one data folder serves one `make run`, see
local/data_folder_lock.py): each also registers itself in `.local/run.d/<pid>.json`. The newest one is in
`.local/run.json`; when one stops it removes only its own entry, and if `.local/run.json` named it, the newest survivor
takes its place, so the tools keep finding a running service. A reader that finds the process `.local/run.json` names
gone (killed, not stopped) falls back to the newest live entry too.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from local.dynamodb_local import port_in_use
from local.paths import ROOT

STATE_FILE_VARIABLE = "DDBGUARD_STATE_FILE"
DEFAULT_TABLE = "ddbguard"
HOW_TO_START = (
    "start it with `make run` (in another terminal), or set DYNAMODB_PORT (and TABLE_NAME) "
    "to a DynamoDB Local that has the table"
)


def state_path() -> Path:
    return Path(os.environ.get(STATE_FILE_VARIABLE) or ROOT / ".local" / "run.json")


@dataclass(frozen=True)
class RunningService:
    pid: int
    api_url: str
    api_port: int
    dynamodb_endpoint: str
    dynamodb_port: int
    table: str


class ServiceNotFound(RuntimeError):
    """Nothing answers where the tools were told to look; the message says what to do."""


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    return True


def registry_path() -> Path:
    """The folder where every running `make run` of this state file registers itself (run.json -> run.d/)."""
    path = state_path()
    return path.with_name(f"{path.stem}.d")


def _write_atomically(path: Path, service: RunningService) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(asdict(service), indent=2) + "\n")
    temporary.replace(path)  # readers never see half a file


def write_state(service: RunningService) -> Path:
    _write_atomically(registry_path() / f"{service.pid}.json", service)
    path = state_path()
    _write_atomically(path, service)
    return path


def remove_state(pid: int) -> None:
    """Forget this process; if `.local/run.json` named it, name the newest survivor there instead (or remove it)."""
    (registry_path() / f"{pid}.json").unlink(missing_ok=True)
    current = _read(state_path())
    if current is not None and current.pid != pid and process_alive(current.pid):
        return  # another `make run` took over the file: it is still right
    survivor = _newest_registered()
    if survivor is not None:
        _write_atomically(state_path(), survivor)
    else:
        state_path().unlink(missing_ok=True)


def read_state(*, check_alive: bool = True) -> RunningService | None:
    """The running service, or None when none is registered alive (with check_alive=False: run.json as it is)."""
    service = _read(state_path())
    if not check_alive:
        return service
    if service is not None and process_alive(service.pid):
        return service
    return _newest_registered()


def _read(path: Path) -> RunningService | None:
    try:
        return RunningService(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _newest_registered() -> RunningService | None:
    """The most recently started live `make run` in the registry; entries of dead processes are left to their owner
    or ignored (a pid may be reused, but a reused pid is no `make run` answering on those ports: callers check)."""
    entries = []
    for path in registry_path().glob("*.json"):
        service = _read(path)
        try:
            if service is not None and process_alive(service.pid):
                entries.append((path.stat().st_mtime_ns, service))
        except FileNotFoundError:  # its owner stopped meanwhile
            continue
    return max(entries, key=lambda entry: entry[0])[1] if entries else None


@dataclass(frozen=True)
class TableTarget:
    endpoint: str
    table: str
    source: str  # what told us where to look, for messages
    explicit: bool  # named by DYNAMODB_PORT rather than found in the state file


def find_table() -> TableTarget:
    """The DynamoDB Local and table to use; ServiceNotFound (with what to do) when nothing answers."""
    table_variable = os.environ.get("TABLE_NAME")
    port_variable = os.environ.get("DYNAMODB_PORT")
    if port_variable:
        try:
            port = int(port_variable)
        except ValueError:
            raise ServiceNotFound(f"DYNAMODB_PORT={port_variable!r} is not a port number") from None
        endpoint = f"http://127.0.0.1:{port}"
        if not port_in_use(port):
            raise ServiceNotFound(
                f"nothing answers at {endpoint} (DYNAMODB_PORT={port}): start `make run DYNAMODB_PORT={port}`, "
                "or unset DYNAMODB_PORT to use the running `make run`"
            )
        running = read_state()
        table = table_variable or (running.table if running and running.dynamodb_port == port else DEFAULT_TABLE)
        return TableTarget(endpoint, table, f"DYNAMODB_PORT={port}", explicit=True)
    running = read_state()
    if running is None:
        raise ServiceNotFound(f"no local service is running (no {_shown(state_path())}): {HOW_TO_START}")
    if not port_in_use(running.dynamodb_port):
        raise ServiceNotFound(
            f"`make run` (pid {running.pid}) is not answering on DynamoDB port {running.dynamodb_port}: {HOW_TO_START}"
        )
    return TableTarget(
        running.dynamodb_endpoint, table_variable or running.table, f"make run (pid {running.pid})", explicit=False
    )


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)
