"""The "Sizes" table of docs/infra.md, from the synthesized assets: `make regenerate` writes it.

`python -m tests.infra.asset_sizes --write` synthesizes the stack and rewrites the block between the `asset-sizes`
markers (`infra.cost_documents.rewritten`, as for the cost figures); tests/infra/test_docs.py measures its own
synth the same way and fails when the block is stale, so a resource added to the layer never leaves a size to
edit by hand. The sizes are what `make sizes` prints (scripts/stack_report.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra import cost_documents
from infra.dependency_layer import tree_size
from scripts.stack_report import LAMBDA_UNZIPPED_LIMIT_MB

DOCS = Path(__file__).resolve().parents[2] / "docs" / "infra.md"


@dataclass(frozen=True)
class AssetSizes:
    """Unzipped megabytes (10^6 bytes) of the two layers and of the code every function shares."""

    dependencies: float
    shared: float
    code: float


def _size_mb(path: Path) -> float:
    return tree_size(path) / 1_000_000


def measured(resources: Mapping[str, Any], asset_dir: Callable[[dict[str, Any]], Path]) -> AssetSizes:
    """The sizes of a synthesized template's assets; `asset_dir` finds the staged folder of a `Code`/`Content`."""
    layers = {
        value["Properties"]["Description"]: _size_mb(asset_dir(value["Properties"]["Content"]))
        for value in resources.values()
        if value["Type"] == "AWS::Lambda::LayerVersion"
    }
    (dependencies,) = [size for description, size in layers.items() if description.startswith("Pinned runtime")]
    (shared,) = [size for description, size in layers.items() if description.startswith("ddbguard and")]
    any_function = next(value for value in resources.values() if value["Type"] == "AWS::Lambda::Function")
    return AssetSizes(dependencies, shared, _size_mb(asset_dir(any_function["Properties"]["Code"])))


def render(sizes: AssetSizes) -> str:
    """The table docs/infra.md shows, in its words."""
    total = sizes.dependencies + sizes.shared + sizes.code
    return "\n".join(
        [
            "| asset | unzipped |",
            "| --- | ---: |",
            "| dependencies layer (botocore is about two thirds of it; without the X-Ray SDK unless "
            f"`tracing=xray-sdk`; with its bytecode) | {sizes.dependencies:.1f} MB |",
            "| shared layer (`ddbguard`, `ddbguard_api`, `ddbguard_jobs`, the look-alike data; with its bytecode) | "
            f"{sizes.shared:.1f} MB |",
            "| function code (the same asset for every function: `functions/` without the layer and tests; with its "
            f"bytecode) | {sizes.code:.2f} MB |",
            f"| each function, code plus both layers | {total:.1f} MB of {LAMBDA_UNZIPPED_LIMIT_MB} MB |",
        ]
    )


def rewritten(text: str, table: str) -> str:
    """docs/infra.md's text with its `asset-sizes` block holding `table` (the generated blocks' one writer)."""
    return cost_documents.rewritten(text, {"asset-sizes": table})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="rewrite the asset-sizes block of docs/infra.md")
    args = parser.parse_args()
    from tests.infra.conftest import synthesize

    with tempfile.TemporaryDirectory(prefix="cdk.out-") as outdir:
        synth = synthesize(Path(outdir))
        table = render(measured(synth.resources, synth.asset_dir))
    if args.write:
        DOCS.write_text(rewritten(DOCS.read_text(encoding="utf-8"), table), encoding="utf-8")
        print(f"wrote the asset sizes of {DOCS}")
    else:
        sys.stdout.write(table + "\n")


if __name__ == "__main__":
    main()
