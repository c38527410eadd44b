"""The cost and capacity figures of docs/infra.md and docs/capacity.md, from infra/cost_model.py and the
synthesized templates of prod and dev (`make regenerate` runs `python -m tests.infra.cost_figures --write`;
tests/infra/test_cost_model.py fails when a document differs from what this writes)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from infra import cost_documents, cost_model
from routes import ROUTES
from tests.infra.conftest import PROD_CONTEXT  # what `make synth ENV=prod` must still be told (pager, sender)
from tests.infra.template_counts import counts


def facts(stack: Any, template: dict[str, Any]) -> cost_model.TemplateFacts:
    counted = counts(stack, template)
    return cost_model.TemplateFacts.of(template, counted["alarm metrics"], counted["dashboard"])


def edge_sizing() -> cost_model.EdgeSizing:
    return cost_model.EdgeSizing.from_config(routes=len(ROUTES), mock_methods=len({route.path for route in ROUTES}))


def code_facts() -> cost_model.CodeFacts:
    """The figures the code fixes, from where the code keeps them."""
    from ddbguard import limits
    from ddbguard.guards.settlement import ENTRIES_PER_TRANSACTION
    from infra.audit import RUN_TIMEOUT
    from tests.infra import headroom

    return cost_model.CodeFacts(
        pending_bound=limits.MAX_PENDING_ENTRIES,
        settlement_batch=ENTRIES_PER_TRANSACTION,
        balance_max_bytes=limits.MAX_BALANCE_BYTES,
        audit_run_hours=RUN_TIMEOUT.to_hours(),
        stack_resources=headroom.MAX_RESOURCES,
        template_bytes=headroom.MAX_TEMPLATE_BYTES,
        added_routes=headroom.ADDED_ROUTES,
    )


def expected_documents(prod: cost_model.TemplateFacts, dev: cost_model.TemplateFacts) -> dict[Path, str]:
    return cost_documents.documents(prod, dev, edge_sizing(), cost_model.BenchShapes.read(), code_facts())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="rewrite the generated blocks of both documents")
    args = parser.parse_args()
    from infra.stack import build_app
    from tests.infra.stack_templates import flat_template

    synthesized = []
    for context in (PROD_CONTEXT, {"environment": "dev"}):
        app, stack = build_app(context=context)
        synthesized.append(facts(stack, flat_template(app, stack)))
    for path, text in expected_documents(*synthesized).items():
        if args.write:
            path.write_text(text, encoding="utf-8")
            print(f"wrote the figures of {path}")
        elif path.read_text(encoding="utf-8") != text:
            print(f"{path} differs from the model: run with --write")


if __name__ == "__main__":
    main()
