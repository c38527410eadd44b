"""Every template of a built `DdbguardStack` app, and the flattened view of them all (infra/assembly.py), for tests
that look for a resource wherever it is: in the parent or in a route group's nested stack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aws_cdk import NestedStack, Stack

from infra.assembly import flattened


def nested_stacks(stack: Stack) -> list[NestedStack]:
    """Every nested stack below `stack`, in construct order."""
    return [child for child in stack.node.find_all() if isinstance(child, NestedStack) and child is not stack]


def templates(stack: Stack, assembly_dir: Path) -> dict[str, dict[str, Any]]:
    """Stack construct path -> its template, read from the synthesized cloud assembly (parent first)."""
    import json

    return {
        each.node.path: json.loads((assembly_dir / each.template_file).read_text(encoding="utf-8"))
        for each in [stack, *nested_stacks(stack)]
    }


def synthesized(app: Any, stack: Stack) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(flattened template, every template by stack path) of a built app. cdk-nag runs here, as a validation
    plugin of the synthesis: an open finding anywhere, nested stacks included, raises."""
    from aws_cdk.assertions import Template

    Template.from_stack(stack)
    assembly_dir = Path(app.synth().directory)
    return flattened(assembly_dir, stack.artifact_id), templates(stack, assembly_dir)


def flat_template(app: Any, stack: Stack) -> dict[str, Any]:
    """The flattened template of a built app (see `synthesized`)."""
    return synthesized(app, stack)[0]
