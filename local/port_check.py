"""Before `make run` starts anything: are its two ports free, and if not, is it ourselves already running?

A second `make run` in the same clone finds the first in the state file and says so; a port held by some other
program is named with the variable that moves it. Nothing is started, seeded or written before this passes.
"""

from __future__ import annotations

import socket

from local.dynamodb_local import free_port
from local.service_state import RunningService, read_state


def port_taken(port: int, host: str) -> bool:
    """Whether something listens on `port` at `host` (SO_REUSEADDR: a closed socket in TIME_WAIT is no owner)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def already_running(service: RunningService) -> str:
    return (
        f"ddbguard: `make run` is already running (pid {service.pid}) at {service.api_url}, table "
        f"{service.table} at {service.dynamodb_endpoint}. Use that one, stop it (Ctrl-C in its terminal, or "
        f"kill {service.pid}), or start a second beside it with other ports and its own data, e.g. "
        f"PORT={free_port()} DYNAMODB_PORT={free_port()} DDB_DATA_DIR=memory make run"
    )


def taken(port: int, variable: str) -> str:
    return (
        f"ddbguard: port {port} is taken by another program, not by a `make run` of this clone; "
        f"set {variable} to a free port, e.g. {variable}={free_port()} make run"
    )


def port_problem(api_port: int, dynamodb_port: int) -> str | None:
    """Why `make run` cannot start on these ports, or None. DynamoDB Local listens on every interface."""
    service = read_state()
    if service is not None and (service.api_port == api_port or service.dynamodb_port == dynamodb_port):
        return already_running(service)
    if port_taken(api_port, "127.0.0.1"):
        return taken(api_port, "PORT")
    if port_taken(dynamodb_port, "0.0.0.0"):
        return taken(dynamodb_port, "DYNAMODB_PORT")
    return None
