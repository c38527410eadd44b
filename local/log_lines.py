"""Logs for people in a terminal: each Powertools JSON record, EMF document and REPORT line as one readable line.

Deployed, a function writes JSON (Powertools Logger), Embedded Metric Format documents (Powertools Metrics) and
Lambda's tab-separated REPORT line, for CloudWatch to index. In a terminal that is noise, so `make run`, `make
invoke` and `make sweep` print, unless `LOG_FORMAT=json` asks for the lines as deployed:

    13:52:01.412 withdraw      INFO  POST /accounts/{accountId}/ledger/withdrawals 409  code=insufficient_funds ...
    13:52:01.415 withdraw      REPORT 12.31 ms (billed 13 ms), init 402.10 ms, memory 61 of 256 MB
    METRICS ddbguard: InsufficientFunds=1 Count (service=ddbguard)

time (local), function, level, message, then the record's own keys (what the code chose to add, not the dozen
keys Powertools adds to every record); an exception's traceback follows its line, indented. Anything else passes
through unchanged. `EMF=1` keeps only the metrics as deployed (local.metric_lines).
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from typing import Any, TextIO

from local.metric_lines import RAW_VARIABLE as RAW_METRICS_VARIABLE
from local.metric_lines import readable as readable_metrics

FORMAT_VARIABLE = "LOG_FORMAT"
FUNCTION_PREFIX = "ddbguard-"
# Keys Powertools adds to every record (Lambda context, service, location...): known from the line's place.
_STANDARD_KEYS = frozenset(
    {
        "level",
        "location",
        "message",
        "timestamp",
        "service",
        "sampling_rate",
        "cold_start",
        "function_name",
        "function_memory_size",
        "function_arn",
        "function_request_id",
        "correlation_id",
        "xray_trace_id",
        "exception",
        "exception_name",
        "stack_trace",
    }
)
FUNCTION_WIDTH = 19  # the longest operation name, update_order_status
LEVEL_WIDTH = 5


def raw_requested() -> bool:
    """`LOG_FORMAT=json`: the lines exactly as deployed."""
    return os.environ.get(FORMAT_VARIABLE, "").lower() == "json"


def _clock(timestamp: Any) -> str:
    """Powertools' `2026-12-01 13:52:01,412+0000` as local `13:52:01.412`; now, when there is none."""
    moment = None
    if isinstance(timestamp, str):
        try:
            moment = datetime.strptime(timestamp, "%Y-%m-%d %H:%M:%S,%f%z").astimezone()
        except ValueError:
            moment = None
    moment = moment or datetime.now().astimezone()
    return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def _value(value: Any) -> str:
    return value if isinstance(value, str) and value and " " not in value else json.dumps(value, ensure_ascii=False)


def function_label(function_name: Any, default: str) -> str:
    name = function_name if isinstance(function_name, str) and function_name else default
    return name.removeprefix(FUNCTION_PREFIX)


def readable_prefix(function: str, level: str, timestamp: Any = None) -> str:
    """`13:52:01.412 withdraw            INFO `: the start of every readable line."""
    return f"{_clock(timestamp)} {function:<{FUNCTION_WIDTH}} {level:<{LEVEL_WIDTH}}"


def readable_record(line: str, function: str = "") -> str | None:
    """One readable line (and an exception's traceback below it) for a Powertools JSON record, else None."""
    if not line.startswith("{") or '"level"' not in line:
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or "level" not in record or "message" not in record:
        return None
    keys = "  ".join(f"{name}={_value(value)}" for name, value in record.items() if name not in _STANDARD_KEYS)
    label = function_label(record.get("function_name"), function)
    head = f"{readable_prefix(label, str(record['level']), record.get('timestamp'))} {record['message']}"
    text = f"{head}  {keys}" if keys else head
    trace = record.get("exception")
    if isinstance(trace, str) and trace:
        text += "\n" + "\n".join(f"    {part}" for part in trace.splitlines())
    return text


def readable_report(line: str, function: str) -> str | None:
    """Lambda's REPORT line (tab-separated `Name: value`) as one readable line naming the function."""
    if not line.startswith("REPORT RequestId: "):
        return None
    fields = dict(part.split(": ", 1) for part in line.split("\t") if ": " in part)
    duration, billed = fields.get("Duration", "?"), fields.get("Billed Duration", "?")
    text = f"{readable_prefix(function, 'REPORT')} {duration} (billed {billed})"
    if "Init Duration" in fields:
        text += f", init {fields['Init Duration']}"
    used, size = fields.get("Max Memory Used", "?"), fields.get("Memory Size", "?")
    return text + f", memory {used.removesuffix(' MB')} of {size}"


class ReadableLogs:
    """A text stream that writes through to `target`, each complete line made readable (see the module doc)."""

    def __init__(self, target: TextIO, function: str = "", *, raw_metrics: bool = False):
        self.target = target
        self.function = function
        self.raw_metrics = raw_metrics
        self._pending = ""

    def _line(self, line: str) -> str:
        found = readable_record(line, self.function) or readable_report(line, self.function or "?")
        if found is None and not self.raw_metrics:
            found = readable_metrics(line)
        return line if found is None else found

    def write(self, text: str) -> int:
        self._pending += text
        while "\n" in self._pending:
            line, self._pending = self._pending.split("\n", 1)
            self.target.write(self._line(line) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.target.write(self._pending)
            self._pending = ""
        self.target.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding...: the target's
        return getattr(self.target, name)


def for_people(stream: TextIO, function: str = "") -> TextIO:
    """`stream` with readable lines, unless LOG_FORMAT=json asks for them as deployed (EMF=1: metrics only)."""
    if raw_requested():
        return stream
    raw_metrics = os.environ.get(RAW_METRICS_VARIABLE) == "1"
    return ReadableLogs(stream, function, raw_metrics=raw_metrics)  # type: ignore[return-value]  # duck-typed
