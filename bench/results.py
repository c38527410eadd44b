"""The benchmark's report: machine and versions, then one table per section, as Markdown."""

from __future__ import annotations

import datetime
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from local.dynamodb_local import find_jar

RESULTS = Path(__file__).with_name("results.md")


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> str:
    jar = find_jar().parent.name.removeprefix("dynamodb_local_")
    return (
        f"{os.cpu_count()} cores ({_cpu_model()}), Python {platform.python_version()}, "
        f"boto3 {_version('boto3')}, Powertools {_version('aws-lambda-powertools')}, "
        f"PynamoDB {_version('pynamodb')}, DynamoDB Local {jar} (in memory, same machine), "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, load average {_load()} "
        "(the cores are shared: other work on the machine inflates absolute times)"
    )


def _load() -> str:
    try:
        return "/".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def table(headers: list[str], rows: list[list[Any]]) -> str:
    def cell(value: Any) -> str:
        return f"{value:.2f}" if isinstance(value, float) else str(value).replace("|", "/")

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _section_number(block: str) -> str:
    """`3b` for a block headed `## 3b. Cold start ...`."""
    return block.removeprefix("## ").split(".", 1)[0]


def _number_key(number: str) -> tuple[int, str]:
    digits = "".join(character for character in number if character.isdigit())
    return int(digits or 0), number[len(digits) :]


def merged(current: str, sections: list[str], header: str | None = None) -> str:
    """`current` (the report) with each of `sections` (each headed `## <number>. ...`) in place of its namesake, a
    new one placed by its number, and every other section kept: a run of some sections rewrites only those. The
    preamble becomes `header` when given (a run of every section)."""
    preamble, *blocks = ("\n" + current).split("\n## ")
    by_number = {_section_number(block): "## " + block.strip("\n") for block in blocks}
    for section in sections:
        by_number[_section_number(section)] = section.strip("\n")
    ordered = [by_number[number] for number in sorted(by_number, key=_number_key)]
    return "\n\n".join([header if header is not None else preamble.strip("\n"), *ordered]) + "\n"


def write_sections(sections: list[str], header: str | None = None) -> Path:
    """Rewrite, in bench/results.md, the sections given (and the preamble, given `header`); keep the rest."""
    current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# ddbguard benchmarks (`make bench`)\n"
    RESULTS.write_text(merged(current, sections, header), encoding="utf-8")
    return RESULTS


def command_line() -> str:
    return "python -m bench " + " ".join(sys.argv[1:])
