"""`make run DEBUG=<function>[,<function>...]` (or `DEBUG=1`, every function): a debugger on the running server.

Each chosen function runs in one execution environment (a process, local.environments) that listens for a
debugger (debugpy, the Debug Adapter Protocol VS Code and PyCharm speak) on 127.0.0.1, one port per function from
DEBUG_PORT [5678] in the route table's order, printed at start. Attach, set a breakpoint in the handler or anywhere
in the layer, and send a request: it stops there, on the server, with the real API Gateway event. The environment
starts listening before it imports the handler. A chosen function keeps one environment (Lambda would start a
second beside a busy one; a second would need a second port), so a request waits while another sits on a
breakpoint. A hot reload starts a fresh environment on the same port once the old one is idle.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

HOST = "127.0.0.1"
PORT_VARIABLE = "DDBGUARD_DEBUG_PORT"  # set for an environment process: listen there
SELECTION_VARIABLE = "DEBUG"
FIRST_PORT_VARIABLE = "DEBUG_PORT"
DEFAULT_FIRST_PORT = 5678
EVERY_FUNCTION = ("1", "all", "true", "yes")


class UnknownFunction(ValueError):
    """DEBUG names something no route serves."""


def debug_ports(selection: str, operations: Iterable[str], first_port: int = DEFAULT_FIRST_PORT) -> dict[str, int]:
    """operation -> its debug port, for a DEBUG value (`1`: every operation; else names, comma-separated)."""
    every = list(operations)
    wanted = selection.strip()
    if not wanted or wanted == "0":
        return {}
    if wanted.lower() in EVERY_FUNCTION:
        chosen = every
    else:
        names = [name.strip() for name in wanted.split(",") if name.strip()]
        unknown = [name for name in names if name not in every]
        if unknown:
            raise UnknownFunction(
                f"DEBUG={selection}: no function {', '.join(unknown)}; name one or more of: {', '.join(every)} "
                "(or DEBUG=1 for all)"
            )
        chosen = [name for name in every if name in names]  # the route table's order: stable ports
    return {name: first_port + index for index, name in enumerate(chosen)}


def from_environment(operations: Iterable[str]) -> dict[str, int]:
    """The ports `make run` gives each chosen function, from DEBUG and DEBUG_PORT."""
    first = int(os.environ.get(FIRST_PORT_VARIABLE) or DEFAULT_FIRST_PORT)
    return debug_ports(os.environ.get(SELECTION_VARIABLE, ""), operations, first)


def attach_lines(ports: dict[str, int]) -> list[str]:
    """What `make run` prints: where to attach, per function."""
    if not ports:
        return []
    lines = ["ddbguard: debugger (debugpy): attach to"]
    lines += [f"  {name:<20} {HOST}:{port}" for name, port in ports.items()]
    lines.append("  (VS Code: README, 'A debugger on the running server'; the environment starts at its first request)")
    return lines


def listen_for_debugger(function: str, port: int) -> bool:
    """In an environment process: listen on `port`; False (and a line saying why) when it cannot."""
    import debugpy

    try:
        debugpy.listen((HOST, port))
    except (OSError, RuntimeError) as error:
        print(f"ddbguard: {function}: no debugger on {HOST}:{port} ({error}); serving without one", file=sys.stderr)
        return False
    print(f"ddbguard: {function} (pid {os.getpid()}) listens for a debugger on {HOST}:{port}", file=sys.stderr)
    return True
