"""One Lambda execution environment: a process that imports one handler, then runs one invocation at a time.

`python -m local.lambda_runtime <handler module>` is started by `local.environments` when a request finds no
idle environment of its function. It imports the handler module first (the Init phase: a real cold start, in
a fresh interpreter), then reads invocations from stdin, one JSON line each, and answers each on the stdout it
was given, one JSON line each. What the handler prints (Powertools logs and metrics, made readable by
`local.log_lines` unless LOG_FORMAT=json) goes to stderr, followed after each invocation by Lambda's REPORT line,
whose memory figure is this process's own peak. An exception raised by the handler is answered as Lambda's error
payload (`errorType`, `errorMessage`, `stackTrace`) and the environment stays up. It ends when stdin closes.
With DDBGUARD_DEBUG_PORT set (`make run DEBUG=<function>`, local.debugging) it first listens for a debugger there.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import sys
import time
import traceback
from pathlib import Path
from typing import IO, Any

from local.debugging import PORT_VARIABLE as DEBUG_PORT_VARIABLE
from local.debugging import listen_for_debugger
from local.lambda_context import LambdaContext
from local.log_lines import for_people

MEMORY_SIZE_MB = LambdaContext.memory_limit_in_mb


def peak_memory_mb() -> int:
    """This process's own peak resident memory, as Lambda measures an environment's.

    `VmHWM` is the peak of this process's address space, which starts anew at exec. `ru_maxrss` is not: Linux
    carries it across fork and exec, so an environment started by a 100 MB server reported the server's 100 MB.
    """
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024  # kB
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // (1024 * 1024) if sys.platform == "darwin" else peak // 1024  # bytes on macOS, KiB on Linux


def report_line(request_id: str, duration_ms: float, init_ms: float | None) -> str:
    """Lambda's REPORT line: duration, billed duration, memory size, max memory used, init duration."""
    max_used_mb = peak_memory_mb()
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
    debug_port = os.environ.get(DEBUG_PORT_VARIABLE)
    if debug_port:  # before the handler's import, so a breakpoint in its Init code stops too
        listen_for_debugger(handler_name.rsplit(".", 1)[-1], int(debug_port))
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
        print(report_line(context.aws_request_id, duration_ms, init_ms), flush=True)
        init_ms = None
        replies.write(json.dumps(reply).encode() + b"\n")
        replies.flush()


def main() -> int:
    # The protocol keeps the stdout this process was given; the handler's own prints go to stderr.
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    function = sys.argv[1].rsplit(".", 1)[-1]
    # Logs, metrics and REPORT as one readable line each (local.log_lines); LOG_FORMAT=json: as deployed.
    sys.stdout = for_people(sys.stdout, function)
    serve(sys.argv[1], sys.stdin.buffer, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
