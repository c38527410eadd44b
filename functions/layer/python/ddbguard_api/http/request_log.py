"""The one INFO line each request logs: its route, status and outcome, and nothing a client sent.

    {"level": "INFO", "message": "POST /accounts/{accountId}/ledger/withdrawals", "status": 409,
     "code": "insufficient_funds", "guard": "guards.money", "calls": 1, ...Lambda context}

`code` is the problem's machine-readable code (absent on success); `guard` the module of the layer that refused
(the innermost frame of the refusal in `ddbguard.guards`, `ddbguard.domain`, `ddbguard.store` or, as `edge.*`,
the HTTP edge); `calls` the DynamoDB calls the request made (ddbguard.store.call_log); `replayed` marks an answer
repeated under an Idempotency-Key. The route is the template, never the path: no id, email or body reaches the
line (tests/integration/test_telemetry_pii.py scans it at every level).
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from ddbguard.observability import logger
from ddbguard_api.http.replies import REPLAYED_HEADER

if TYPE_CHECKING:
    from ddbguard_api.http.proxy_events import ProxyResponse

__all__ = ["Outcome", "log_request", "refused_by"]

_LAYER_PACKAGES = ("ddbguard.guards.", "ddbguard.domain.", "ddbguard.store.")
_EDGE_PACKAGE = "ddbguard_api."


class Outcome:
    """Why a request was answered as it was, filled in where the answer is decided."""

    __slots__ = ("code", "guard")

    def __init__(self) -> None:
        self.code: str | None = None
        self.guard: str | None = None

    def refused(self, code: str, error: BaseException) -> None:
        self.code = code
        self.guard = refused_by(error.__traceback__)


def refused_by(trace: TracebackType | None) -> str | None:
    """The innermost layer module on the refusal's traceback: `guards.money`, `domain.orders`, or for the edge
    (`ddbguard_api.http.headers`) edge.headers."""
    found = None
    while trace is not None:
        module = str(trace.tb_frame.f_globals.get("__name__", ""))
        if module.startswith(_LAYER_PACKAGES):
            found = module.removeprefix("ddbguard.")
        elif module.startswith(_EDGE_PACKAGE) and module != "ddbguard_api.http.endpoint":
            found = "edge." + module.rsplit(".", 1)[-1]  # ddbguard_api.http.headers: edge.headers
        trace = trace.tb_next
    return found


def log_request(route_key: str, response: ProxyResponse, outcome: Outcome, calls: int) -> None:
    status = response["statusCode"]
    line: dict[str, object] = {"status": status}
    if outcome.code is not None:
        line["code"] = outcome.code
    if outcome.guard is not None:
        line["guard"] = outcome.guard
    line["calls"] = calls
    if response["multiValueHeaders"].get(REPLAYED_HEADER) == ["true"]:
        line["replayed"] = True
    logger.info(route_key, extra=line)
