"""Powertools metrics in a terminal: each CloudWatch EMF document (one JSON line) as one readable line.

Deployed, Powertools Metrics prints Embedded Metric Format JSON to stdout and CloudWatch turns it into metrics. In a
terminal that JSON is noise around the logs, so `make run` (its execution environments and the stream settler),
`make invoke` and `make sweep` print `METRICS <namespace>: Name=value Unit, ... (dimension=value, ...)` instead,
through the readable stream of local.log_lines; `EMF=1` (or `LOG_FORMAT=json`) keeps the JSON as deployed.
"""

from __future__ import annotations

import json
from typing import Any

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
