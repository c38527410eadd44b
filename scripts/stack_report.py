#!/usr/bin/env python3
"""Read a synthesized cloud assembly (cdk.out) and report what `make destroy` keeps or what gets uploaded.

python scripts/stack_report.py retained [cdk.out]   resources that stay after `cdk destroy` (Retain policies)
python scripts/stack_report.py sizes [cdk.out]      unzipped size of each function's code and layers
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from infra.assembly import flattened

STACK = "DdbguardStack"
LAMBDA_UNZIPPED_LIMIT_MB = 250


def _template(assembly: Path) -> dict[str, Any]:
    """The stack's template with its route groups' nested stacks inlined (infra/assembly.py)."""
    return flattened(assembly, STACK)


def _asset_dir(assembly: Path, location: dict[str, Any]) -> Path:
    manifest = json.loads((assembly / f"{STACK}.assets.json").read_text(encoding="utf-8"))
    return assembly / manifest["files"][location["S3Key"].removesuffix(".zip")]["source"]["path"]


def _size_mb(path: Path) -> float:
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file()) / 1_000_000


def retained(assembly: Path) -> None:
    for logical_id, resource in _template(assembly)["Resources"].items():
        if resource.get("DeletionPolicy") in {"Retain", "RetainExceptOnCreate"}:
            path = resource.get("Metadata", {}).get("aws:cdk:path", logical_id)
            print(f"{resource['Type']:32} {path}")


def sizes(assembly: Path) -> None:
    resources = _template(assembly)["Resources"]
    layers = {
        key: (
            value.get("Metadata", {}).get("aws:cdk:path", key),
            _size_mb(_asset_dir(assembly, value["Properties"]["Content"])),
        )
        for key, value in resources.items()
        if value["Type"] == "AWS::Lambda::LayerVersion"
    }
    for path, size in layers.values():
        print(f"layer    {size:7.1f} MB  {path}")
    for value in resources.values():
        if value["Type"] != "AWS::Lambda::Function":
            continue
        properties = value["Properties"]
        code = _size_mb(_asset_dir(assembly, properties["Code"]))
        attached = sum(layers[layer["Ref"]][1] for layer in properties.get("Layers", []) if "Ref" in layer)
        total = code + attached
        print(
            f"function {code:7.2f} MB code, {total:6.1f} MB with layers "
            f"(limit {LAMBDA_UNZIPPED_LIMIT_MB} MB)  {properties['Handler']}"
        )


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in {"retained", "sizes"}:
        print(__doc__, file=sys.stderr)
        return 2
    assembly = Path(sys.argv[2] if len(sys.argv) > 2 else "cdk.out")
    if not (assembly / f"{STACK}.template.json").is_file():
        print(f"{assembly} holds no {STACK} template: run `make synth` first", file=sys.stderr)
        return 1
    {"retained": retained, "sizes": sizes}[sys.argv[1]](assembly)
    return 0


if __name__ == "__main__":
    sys.exit(main())
