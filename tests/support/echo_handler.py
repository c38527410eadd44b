"""A stand-in Lambda handler for the execution-environment tests: says which process served it and how often."""

from __future__ import annotations

import os
import time
from typing import Any

invocations = 0  # module state: one count per execution environment


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global invocations
    invocations += 1
    time.sleep(event.get("sleep_s", 0))
    if event.get("raise"):
        raise RuntimeError("asked to fail")
    return {"pid": os.getpid(), "invocations": invocations, "requestId": context.aws_request_id}
