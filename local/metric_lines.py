"""Powertools metrics in a terminal: each CloudWatch EMF document (one JSON line) as one readable line.

Deployed, Powertools Metrics prints Embedded Metric Format JSON to stdout and CloudWatch turns it into metrics. In a
terminal that JSON is noise around the logs, so `make run` (its execution environments) and `make sweep` print
`METRICS <namespace>: Name=value Unit, ... (dimension=value, ...)` instead; `EMF=1` keeps the JSON as deployed.
Everything else written passes through unchanged.
"""

from __future__ import annotations

import json
import os
from typing import Any, TextIO

RAW_VARIABLE = "EMF"


def readable(line: str) -> str | None:
    """One readable line for an EMF document, or None when `line` is not one."""
    if '"_aws"' not in line:
        return None
    try:
        document = json.loads(line)
        directives = document["_aws"]["CloudWatchMetrics"]
    except (ValueError, KeyError, TypeError):
        return None
    parts: list[str] = []
    for directive in directives:
        metrics = ", ".join(
            f"{metric['Name']}={_value(document.get(metric['Name']))} {metric.get('Unit', 'None')}"
            for metric in directive.get("Metrics", [])
        )
        dimensions = sorted({name for group in directive.get("Dimensions", []) for name in group})
        where = ", ".join(f"{name}={document.get(name)}" for name in dimensions)
        parts.append(f"METRICS {directive.get('Namespace', '')}: {metrics}" + (f" ({where})" if where else ""))
    return "\n".join(parts)


def _value(value: Any) -> str:
    values = value if isinstance(value, list) else [value]
    return "+".join(f"{v:g}" if isinstance(v, int | float) else str(v) for v in values)


class ReadableMetrics:
    """A text stream that writes through to `target`, each complete EMF line made readable."""

    def __init__(self, target: TextIO):
        self.target = target
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        while "\n" in self._pending:
            line, self._pending = self._pending.split("\n", 1)
            self.target.write((readable(line) or line) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.target.write(self._pending)
            self._pending = ""
        self.target.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding...: the target's
        return getattr(self.target, name)


def for_people(stream: TextIO) -> TextIO:
    """`stream`, with metrics made readable unless EMF=1 asks for the JSON as deployed."""
    if os.environ.get(RAW_VARIABLE) == "1":
        return stream
    return ReadableMetrics(stream)  # type: ignore[return-value]  # duck-typed: what print() and Powertools use
