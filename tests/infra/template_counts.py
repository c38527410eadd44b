"""The counts at the top of docs/infra.md, from the synthesized template: `make regenerate` writes them.

`python -m tests.infra.template_counts --write` synthesizes the stack (default context, then the lean monitoring
profile) and rewrites the block between the `counts` markers; tests/infra/test_docs.py recomputes every number
and fails when one is stale, so a new route's function and alarms never need counting by hand.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[2] / "docs" / "infra.md"
BLOCK = re.compile(r"(<!-- counts: [^\n]*-->\n)(.*?)(\n<!-- /counts -->)", re.S)


def counts(stack: Any, template: dict[str, Any]) -> dict[str, int]:
    """functions, alarms, alarm metrics, dashboard and cdk-nag acknowledgements of one synthesized stack."""
    from aws_cdk import Validations

    resources = template["Resources"].values()
    alarms = [value["Properties"] for value in resources if value["Type"] == "AWS::CloudWatch::Alarm"]
    acknowledged = sum(
        len(dict(entry.data))
        for construct in stack.node.find_all()
        for entry in construct.node.metadata
        if entry.type == Validations.ACKNOWLEDGED_RULES_METADATA_KEY
    )
    return {
        "functions": sum(value["Type"] == "AWS::Lambda::Function" for value in resources),
        "alarms": len(alarms),
        "alarm metrics": sum(
            1 if "MetricName" in alarm else sum("MetricStat" in query for query in alarm["Metrics"]) for alarm in alarms
        ),
        "dashboard": sum(value["Type"] == "AWS::CloudWatch::Dashboard" for value in resources),
        "cdk-nag acknowledgements": acknowledged,
    }


def render(default: dict[str, int], lean: dict[str, int]) -> str:
    """The line docs/infra.md shows, in its words."""
    dashboards = "1 dashboard" if default["dashboard"] == 1 else f"{default['dashboard']} dashboards"
    lean_dashboard = "no dashboard" if lean["dashboard"] == 0 else f"**{lean['dashboard']} dashboard**"
    return (
        "**From the synthesized template** (default context; `tests/infra/test_docs.py` recomputes every number on "
        "this\nline and fails when one is stale): "
        f"**{default['functions']} functions**, **{default['alarms']} alarms** on "
        f"**{default['alarm metrics']} alarm metrics**, **{dashboards}**,\n"
        f"**{default['cdk-nag acknowledgements']} cdk-nag acknowledgements**; with `monitoringProfile=lean`: "
        f"**{lean['alarms']} alarms** on **{lean['alarm metrics']} alarm metrics**, {lean_dashboard}."
    )


def current_counts() -> tuple[dict[str, int], dict[str, int]]:
    from infra.stack import build_app
    from tests.infra.stack_templates import flat_template

    app, stack = build_app()
    lean_app, lean_stack = build_app(context={"monitoringProfile": "lean"})
    return (
        counts(stack, flat_template(app, stack)),
        counts(lean_stack, flat_template(lean_app, lean_stack)),
    )


def rewritten(text: str, line: str) -> str:
    if not BLOCK.search(text):
        raise ValueError("docs/infra.md has no counts block (<!-- counts: ... --> ... <!-- /counts -->)")
    return BLOCK.sub(lambda match: f"{match[1]}{line}{match[3]}", text, count=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="rewrite the counts block of docs/infra.md")
    args = parser.parse_args()
    line = render(*current_counts())
    if args.write:
        DOCS.write_text(rewritten(DOCS.read_text(encoding="utf-8"), line), encoding="utf-8")
        print(f"wrote the counts of {DOCS}")
    else:
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
