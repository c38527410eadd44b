"""CloudFormation's per-stack limits against every stack of the service, today and with 100 more routes.

Two syntheses: the default stack with the route table as it is, and a prod-like one (full monitoring, SnapStart,
CORS, an on-call topic) with 100 test-only routes added: 25 made-up entities, each with create, get, change and
delete (`routes.crud_routes`), under two tags so that route groups fill up and split. Every stack (the parent and
each route group's nested stack) is measured as CloudFormation receives it: its resources, outputs, parameters and
template file as `cdk synth` writes it.

The figures live in docs/infra.md between the `headroom` markers; tests/infra/test_hundred_routes.py fails when they
differ from the templates. Regenerate after an infra change:

    make headroom        # = .venv/bin/python -m tests.infra.headroom --write
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from infra.route_stacks import ROUTES_PER_STACK
from routes import ROUTES, Route, crud_routes

DOCS = Path(__file__).resolve().parents[2] / "docs" / "infra.md"
BEGIN, END = "<!-- headroom:begin (make headroom) -->", "<!-- headroom:end -->"

# CloudFormation quotas per stack; a nested stack has its own. The template limit is 1 MB (1,048,576 bytes) for a
# template read from S3, as cdk deploy uploads them; counted here as 1,000,000 to keep a margin.
MAX_RESOURCES = 500
MAX_TEMPLATE_BYTES = 1_000_000
MAX_OUTPUTS = 200
MAX_PARAMETERS = 200

ADDED_ENTITIES = 25  # x create, get, change, delete = 100 routes
ADDED_ROUTES = 4 * ADDED_ENTITIES
# Two tags, so groups fill to their limit and a tag's routes split over several nested stacks.
AREAS = ("lab", "shop")
# Prod-like: full monitoring and an on-call topic (as config/prod.json asks), SnapStart (a version and an alias per
# route function) and CORS (a preflight mock per path): the most resources a route can cost. With many more routes
# the default stage budget (100 rps over every method) leaves each route less than its concurrency warning's
# threshold, which fails synthesis by design; a stage serving 119 routes gets a budget to match.
GROWN_CONTEXT: dict[str, Any] = {
    "environment": "prod",
    "alarmTopicArn": "arn:aws:sns:us-east-1:111122223333:oncall",
    "sesFromEmail": "no-reply@example.com",
    "snapStart": "true",
    "corsAllowedOrigins": "https://app.example.com",
    "apiStageRateLimit": "1000",
    "apiStageBurstLimit": "2000",
}


@contextmanager
def added_routes() -> Iterator[tuple[Route, ...]]:
    """The route table plus 100 test-only routes. Their entities are declared for the duration only: a declaration
    registers its kind (ddbguard.guards.entity), and nothing outside this measure may see them."""
    from ddbguard.guards import entity as declarations
    from ddbguard.guards.entity import OWNER_SCOPED_IDS, Entity
    from ddbguard.guards.fields import integer, text

    declared = dict(declarations._DECLARED)
    try:
        added: list[Route] = []
        for index in range(ADDED_ENTITIES):
            kind = f"gadget{index}"
            gadget = Entity(
                kind,
                ids=OWNER_SCOPED_IDS,
                fields={"name": text("A gadget"), "size": integer(3, minimum=1, maximum=9)},
            )
            area = AREAS[index * len(AREAS) // ADDED_ENTITIES]
            added += crud_routes(gadget, f"/{area}/{kind}s")
        yield (*ROUTES, *added)
    finally:
        declarations._DECLARED.clear()
        declarations._DECLARED.update(declared)


@dataclasses.dataclass(frozen=True)
class Usage:
    """One stack's use of CloudFormation's per-stack limits."""

    stack: str  # construct id: the parent's, or a route group's
    routes: int
    resources: int
    template_bytes: int
    outputs: int
    parameters: int

    @classmethod
    def of(cls, stack: str, routes: int, template: dict[str, Any], template_file: Path) -> Usage:
        return cls(
            stack=stack,
            routes=routes,
            resources=len(template.get("Resources", {})),
            template_bytes=template_file.stat().st_size,  # the file `cdk deploy` uploads
            outputs=len(template.get("Outputs", {})),
            parameters=len(template.get("Parameters", {})),
        )

    def headroom(self) -> dict[str, float]:
        """Share of each limit still free, 0..1."""
        return {
            "resources": 1 - self.resources / MAX_RESOURCES,
            "template_bytes": 1 - self.template_bytes / MAX_TEMPLATE_BYTES,
            "outputs": 1 - self.outputs / MAX_OUTPUTS,
            "parameters": 1 - self.parameters / MAX_PARAMETERS,
        }


def usages(stack: Any, assembly: Path) -> list[Usage]:
    """Every stack of a synthesized app (its cloud assembly in `assembly`), parent first."""
    import json

    from tests.infra.stack_templates import nested_stacks

    found = []
    for each in [stack, *nested_stacks(stack)]:
        path = assembly / each.template_file
        routes = len(getattr(each, "routes", ()))
        found.append(Usage.of(each.node.id, routes, json.loads(path.read_text(encoding="utf-8")), path))
    return found


def synthesized(routes: Sequence[Route] = ROUTES, context: dict[str, Any] | None = None) -> list[Usage]:
    from aws_cdk.assertions import Template

    from infra.stack import build_app

    with tempfile.TemporaryDirectory() as outdir:
        app, stack = build_app(outdir=outdir, context=context or {}, routes=routes)
        Template.from_stack(stack)  # cdk-nag runs here: an open finding in any stack raises
        return usages(stack, Path(app.synth().directory))


def grown_usages() -> list[Usage]:
    with added_routes() as routes:
        return synthesized(routes, GROWN_CONTEXT)


def _row(usage: Usage, label: str | None = None) -> str:
    tightest = min(usage.headroom().values())
    return (
        f"| {label or usage.stack} | {usage.routes or 'none (paths only)'} | {usage.resources} | "
        f"{usage.template_bytes:,} | "
        f"{usage.outputs} | {usage.parameters} | {tightest:.0%} |"
    )


def render(today: Sequence[Usage], grown: Sequence[Usage]) -> str:
    header = [
        "| stack | routes | resources (of 500) | template bytes (of 1,000,000) | outputs (of 200) | "
        "parameters (of 200) | headroom of its tightest limit |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    parent, groups = grown[0], grown[1:]
    fullest = max(groups, key=lambda usage: (usage.resources, usage.template_bytes))
    largest = max(groups, key=lambda usage: usage.template_bytes)
    total_routes = sum(usage.routes for usage in groups)
    lines = [
        BEGIN,
        f"Today, default context ({sum(usage.routes for usage in today[1:])} routes in {len(today) - 1} route groups):",
        "",
        *header,
        *(_row(usage) for usage in today),
        "",
        f"With {ADDED_ROUTES} test-only routes added ({total_routes} routes in {len(groups)} route groups), prod-like: "
        "full monitoring, an on-call topic, SnapStart, CORS:",
        "",
        *header,
        _row(parent),
        _row(fullest, f"{fullest.stack} (the group with the most resources)"),
    ]
    if largest != fullest:
        lines.append(_row(largest, f"{largest.stack} (the largest group template)"))
    lines += [
        "",
        f"Every one of the {len(grown)} stacks is within every limit. The parent grows with paths, not routes (a path "
        "resource, its 405 mock and with CORS its preflight, plus one nested stack resource per group); a group "
        f"stops at {ROUTES_PER_STACK} routes.",
        END,
    ]
    return "\n".join(lines)


def current_block() -> str:
    return render(synthesized(), grown_usages())


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
