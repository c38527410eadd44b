"""CloudFormation's per-stack limits against the synthesized stack: how much room is left, and how many more
routes fit, measured by synthesizing the stack again with test-only routes added.

The figures live in docs/infra.md between the `headroom` markers; `tests/infra/test_headroom.py` fails when they
differ from the template. Regenerate after an infra change:

    make headroom        # = .venv/bin/python -m tests.infra.headroom --write
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from routes import ROUTES, Route
from table_patterns import ACCOUNTS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "infra.md"
BEGIN, END = "<!-- headroom:begin (make headroom) -->", "<!-- headroom:end -->"

# CloudFormation quotas per stack (a nested stack has its own).
MAX_RESOURCES = 500
MAX_TEMPLATE_BYTES = 1_000_000  # a template uploaded through S3, as cdk deploy does
MAX_OUTPUTS = 200
MAX_PARAMETERS = 200
LABELS = {
    "resources": "resources",
    "template_bytes": "template size (bytes)",
    "outputs": "outputs",
    "parameters": "parameters",
}
# How many test-only routes the second synthesis adds: few, because CDK refuses to synthesize a stack of more
# than 500 resources, and today's stack has room for only a few more.
ADDED_ROUTES = 5
# With many more routes the default stage budget (100 rps over every method) leaves each route's function less
# concurrency than the concurrency warning's threshold, which fails synthesis by design; the grown stack raises it
# (the same resources, other numbers).
MEASURE_CONTEXT = {"apiStageRateLimit": "1000", "apiStageBurstLimit": "2000"}


def generated_routes(count: int) -> tuple[Route, ...]:
    """Test-only routes of a made-up resource: a GET with a path parameter each, on its own path (the worst case:
    every route adds a path resource and its 405 mock)."""
    return tuple(
        Route(
            method="GET",
            path=f"/widgets{index}/{{widgetId}}",
            handler=f"widgets.get_widget_{index}",
            access={"GetItem": (ACCOUNTS,)},
        )
        for index in range(count)
    )


@contextmanager
def extra_routes(count: int) -> Iterator[None]:
    """The stack's modules read `ROUTES` at synthesis; add `count` routes for the duration."""
    from infra import functions

    original = functions.ROUTES
    functions.ROUTES = ROUTES + generated_routes(count)
    try:
        yield
    finally:
        functions.ROUTES = original


@dataclasses.dataclass(frozen=True)
class Usage:
    resources: int
    template_bytes: int
    outputs: int
    parameters: int

    @classmethod
    def of(cls, template: dict[str, Any]) -> Usage:
        return cls(
            resources=len(template.get("Resources", {})),
            template_bytes=len(json.dumps(template, indent=1).encode()),
            outputs=len(template.get("Outputs", {})),
            parameters=len(template.get("Parameters", {})),
        )


def synthesized(context: dict[str, Any]) -> dict[str, Any]:
    from aws_cdk.assertions import Template

    from infra.stack import build_app

    with tempfile.TemporaryDirectory() as outdir:
        _app, stack = build_app(outdir=outdir, context=context)
        return dict(Template.from_stack(stack).to_json())


def measure(base: dict[str, Any], grown: dict[str, Any]) -> dict[str, Any]:
    """Figures for docs/infra.md: today's use of each limit, what one route adds, how many more routes fit."""
    now, more = Usage.of(base), Usage.of(grown)
    growth_by_limit = {
        field.name: (getattr(more, field.name) - getattr(now, field.name)) / ADDED_ROUTES
        for field in dataclasses.fields(Usage)
    }
    limits = {
        "resources": MAX_RESOURCES,
        "template_bytes": MAX_TEMPLATE_BYTES,
        "outputs": MAX_OUTPUTS,
        "parameters": MAX_PARAMETERS,
    }
    rows = []
    for name, limit in limits.items():
        used = getattr(now, name)
        growth = growth_by_limit[name]
        fits = math.floor((limit - used) / growth) if growth > 0 else None
        per_route = round(growth) if float(round(growth, 1)).is_integer() or growth > 100 else round(growth, 1)
        rows.append({"limit": name, "max": limit, "used": used, "per_route": per_route, "more_routes": fits})
    more_routes = min(row["more_routes"] for row in rows if row["more_routes"] is not None)
    return {"routes": len(ROUTES), "rows": rows, "more_routes": more_routes}


def render(figures: dict[str, Any]) -> str:
    lines = [
        BEGIN,
        f"Measured on the default (full-monitoring) stack with its {figures['routes']} routes, and again with "
        f"{ADDED_ROUTES} test-only routes added:",
        "",
        "| CloudFormation limit per stack | limit | used now | each added route | room for more routes |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in figures["rows"]:
        fits = "unbounded" if row["more_routes"] is None else str(row["more_routes"])
        label = LABELS[row["limit"]]
        lines.append(f"| {label} | {row['max']:,} | {row['used']:,} | {row['per_route']:,} | {fits} |")
    lines += [
        "",
        f"**About {figures['more_routes']} more routes fit** in the one stack; the resource count runs out first.",
        END,
    ]
    return "\n".join(lines)


def grown_template() -> dict[str, Any]:
    with extra_routes(ADDED_ROUTES):
        return synthesized(MEASURE_CONTEXT)


def current_block() -> str:
    return render(measure(synthesized({}), grown_template()))


def documented_block() -> str:
    text = DOCS.read_text(encoding="utf-8")
    return BEGIN + text.split(BEGIN, 1)[1].split(END, 1)[0] + END


def write(block: str) -> None:
    text = DOCS.read_text(encoding="utf-8")
    before, rest = text.split(BEGIN, 1)
    DOCS.write_text(before + block + rest.split(END, 1)[1], encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="write the figures into docs/infra.md")
    block = current_block()
    if parser.parse_args().write:
        write(block)
        print(f"wrote the headroom figures into {DOCS}")
    else:
        print(block)


if __name__ == "__main__":
    main()
