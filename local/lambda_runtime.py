"""One Lambda execution environment: a process that imports one handler, then runs one invocation at a time.

`python -m local.lambda_runtime <handler module>` is started by `local.environments` when a request finds no
idle environment of its function. It imports the handler module first (the Init phase: a real cold start, in
a fresh interpreter), then reads invocations from stdin, one JSON line each, and answers each on the stdout it
was given, one JSON line each. What the handler prints (Powertools logs, and metrics made readable by
`local.metric_lines`) goes to stderr, followed
after each invocation by a line shaped like Lambda's REPORT line. An exception raised by the handler is
answered as Lambda's error payload (`errorType`, `errorMessage`, `stackTrace`) and the environment stays up.
It ends when stdin closes.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import sys
import time
import traceback
from typing import IO, Any

from local.lambda_context import LambdaContext
from local.metric_lines import for_people

MEMORY_SIZE_MB = LambdaContext.memory_limit_in_mb


def report_line(request_id: str, duration_ms: float, init_ms: float | None) -> str:
    """Lambda's REPORT line: duration, billed duration, memory size, max memory used, init duration."""
    max_used_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # KiB on Linux
    fields = [
        f"REPORT RequestId: {request_id}",
        f"Duration: {duration_ms:.2f} ms",
        f"Billed Duration: {max(1, int(duration_ms + 0.999))} ms",
        f"Memory Size: {MEMORY_SIZE_MB} MB",
        f"Max Memory Used: {max_used_mb} MB",
    ]
    if init_ms is not None:
        fields.append(f"Init Duration: {init_ms:.2f} ms")
    return "\t".join(fields)


def _error_payload(error: BaseException) -> dict[str, Any]:
    return {
        "errorType": type(error).__name__,
        "errorMessage": str(error),
        "stackTrace": traceback.format_exception(error),
    }


def serve(handler_name: str, requests: IO[bytes], replies: IO[bytes]) -> None:
    started = time.perf_counter()
    handler = importlib.import_module(handler_name).handler
    init_ms: float | None = (time.perf_counter() - started) * 1000
    for line in requests:
        invocation = json.loads(line)
        context = LambdaContext(**invocation["context"])
        started = time.perf_counter()
        try:
            reply: dict[str, Any] = {"response": handler(invocation["event"], context)}
        except Exception as error:  # Lambda reports the error to the caller; the environment stays
            traceback.print_exc()
            reply = {"error": _error_payload(error)}
        duration_ms = (time.perf_counter() - started) * 1000
        sys.stdout.flush()
        print(report_line(context.aws_request_id, duration_ms, init_ms), file=sys.stderr, flush=True)
        init_ms = None
        replies.write(json.dumps(reply).encode() + b"\n")
        replies.flush()


def main() -> int:
    # The protocol keeps the stdout this process was given; the handler's own prints go to stderr.
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    sys.stdout = for_people(sys.stdout)  # metrics as one readable line each (local.metric_lines)
    serve(sys.argv[1], sys.stdin.buffer, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
