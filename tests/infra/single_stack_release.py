"""The last release that held its routes in one stack, as `make deploy` handed it to CloudFormation: its synthesized
templates, committed (tests/infra/snapshots/single_stack_release/) so the upgrade from it is tested without its code.

That release is commit `ece2bcd` (COMMIT below), the first parent of the merge that moved the routes into route
groups. It does not change, so neither do the files; they are written once by

    python -m tests.infra.single_stack_release --write

which checks the commit out into a temporary git worktree and synthesizes it there with this venv (the same pins:
requirements.txt did not change since), once per environment below, and stores each template gzipped (about 30 KB
for prod's 550 KB) with the commit and context beside it in
`tests/infra/snapshots/single_stack_release/provenance.json`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_DIR = Path(__file__).resolve().parent / "snapshots" / "single_stack_release"
COMMIT = "ece2bcd74ee1ff7bee61b18b9c89b27182120732"
ONCALL_TOPIC = "arn:aws:sns:eu-west-1:444455556666:ddbguard-oncall"
# config/<env>.json of that commit, plus what its prod had to be told to synthesize (a pager).
CONTEXTS: dict[str, dict[str, Any]] = {
    "prod": {"environment": "prod", "alarmTopicArn": ONCALL_TOPIC},
    "dev": {"environment": "dev"},
}
STACK_ID = "DdbguardStack"

SYNTHESIZE = """
import json, sys
from infra.stack import build_app
app, stack = build_app(outdir=sys.argv[1], context=json.loads(sys.argv[2]))
app.synth()
"""


def template(environment: str) -> dict[str, Any]:
    """The release's template for `environment` (prod: full monitoring; dev: lean)."""
    path = SNAPSHOT_DIR / f"{environment}.template.json.gz"
    return dict(json.loads(gzip.decompress(path.read_bytes())))


def synthesize(checkout: Path, context: dict[str, Any], outdir: Path) -> dict[str, Any]:
    """The checkout's stack synthesized by this venv's Python, with the checkout's modules first on the path."""
    paths = [checkout, checkout / "functions", checkout / "functions" / "layer" / "python"]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(str(path) for path in paths)}
    environment |= {"JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20", "CDK_DISABLE_CLI_TELEMETRY": "true"}
    subprocess.run(
        [sys.executable, "-c", SYNTHESIZE, str(outdir), json.dumps(context)],
        cwd=checkout,
        env=environment,
        check=True,
    )
    return dict(json.loads((outdir / f"{STACK_ID}.template.json").read_text(encoding="utf-8")))


def write() -> None:
    SNAPSHOT_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        checkout = Path(scratch) / "release"
        subprocess.run(["git", "worktree", "add", "--detach", str(checkout), COMMIT], cwd=REPO_ROOT, check=True)
        try:
            for environment, context in CONTEXTS.items():
                synthesized = synthesize(checkout, context, Path(scratch) / f"cdk.out-{environment}")
                body = json.dumps(synthesized, indent=1).encode()
                (SNAPSHOT_DIR / f"{environment}.template.json.gz").write_bytes(gzip.compress(body, mtime=0))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=REPO_ROOT, check=True)
    provenance = {"commit": COMMIT, "stack": STACK_ID, "contexts": CONTEXTS}
    (SNAPSHOT_DIR / "provenance.json").write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="synthesize the release and write the snapshot")
    if parser.parse_args().write:
        write()
    for environment in CONTEXTS:
        resources = template(environment)["Resources"]
        print(f"{environment}: {len(resources)} resources")


if __name__ == "__main__":
    main()
