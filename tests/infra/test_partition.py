"""No ARN assumes the `aws` partition: every one is built from the stack's partition (and region and account).

The same template then deploys to aws-cn or aws-us-gov (cdk.json targets `aws` and `aws-cn`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conftest import Synth

REPO_ROOT = Path(__file__).resolve().parents[2]
HARD_CODED = "arn:" + "aws:"  # split so this file does not match its own search


def _infra_sources() -> list[Path]:
    return [*sorted((REPO_ROOT / "infra").rglob("*")), REPO_ROOT / "app.py", REPO_ROOT / "cdk.json"]


def test_no_hard_coded_partition_in_infra() -> None:
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in _infra_sources()
        if path.is_file() and "__pycache__" not in path.parts and HARD_CODED in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_no_hard_coded_partition_in_the_templates(synth: Synth, custom_synth: Synth) -> None:
    for template in (synth.json, custom_synth.json):
        assert HARD_CODED not in json.dumps(template)


def _arn_joins(node: Any) -> list[list[Any]]:
    """The parts of every Fn::Join whose literal pieces start an ARN."""
    found: list[list[Any]] = []
    if isinstance(node, dict):
        join = node.get("Fn::Join")
        if isinstance(join, list) and len(join) == 2 and isinstance(join[1], list):
            parts = join[1]
            if any(isinstance(part, str) and "arn:" in part for part in parts):
                found.append(parts)
        for value in node.values():
            found.extend(_arn_joins(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_arn_joins(value))
    return found


def test_every_built_arn_takes_the_stacks_partition(synth: Synth) -> None:
    joins = _arn_joins(synth.json["Resources"])
    assert joins
    for parts in joins:
        for index, part in enumerate(parts):
            if isinstance(part, str) and "arn:" in part:
                assert part.endswith("arn:"), parts
                assert parts[index + 1] == {"Ref": "AWS::Partition"}, parts
    literal_arns = [
        value
        for value in json.dumps(synth.json["Resources"]).split('"')
        if value.startswith("arn:") and value != "arn:"
    ]
    assert literal_arns == []
