"""The one-line summary `make synth` ends with: cdk-nag findings (acknowledged / open) and cfn-lint's result.

Reads what `cdk synth` left in cdk.out/: acknowledgements from the stack's metadata (one per finding and resource
they cover, nested stacks included), open findings from CDK's validation report (written when a plugin such as
cdk-nag reports), and lints every template (the stack's and each nested stack's) with cfn-lint. Exits non-zero
when synthesis failed, a finding is open or cfn-lint objects.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from infra import constants
from infra.assembly import stack_templates

ACKNOWLEDGED = "aws:cdk:acknowledged-rules"


def acknowledged_count(cdk_out: Path, stack_id: str = constants.STACK_ID) -> int | None:
    """Acknowledgements in the stack's metadata; None when this synth wrote none (it failed before: `make synth`
    deletes the last synth's reports first, so no earlier count is shown as this one's)."""
    path = cdk_out / f"{stack_id}.metadata.json"
    if not path.exists():
        return None
    metadata: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))
    return sum(
        len(entry.get("data") or {})
        for entries in metadata.values()
        for entry in entries
        if entry["type"] == ACKNOWLEDGED
    )


def open_count(cdk_out: Path) -> int:
    path = cdk_out / "validation-report.json"
    if not path.exists():
        return 0
    report = json.loads(path.read_text(encoding="utf-8"))
    return sum(
        max(1, len(violation.get("violatingResources") or violation.get("violatingConstructs") or []))
        for plugin in report.get("pluginReports", [])
        for violation in plugin.get("violations", [])
    )


def cfn_lint_settings() -> dict:
    """`.cfnlintrc.yaml`, the one place cfn-lint's regions, extra rule sets and ignored rules (each with its reason)
    are set."""
    import yaml

    return yaml.safe_load(constants.CFN_LINT_CONFIG.read_text(encoding="utf-8"))


def cfn_lint_findings(template: Path) -> list[str]:
    from cfnlint.api import ManualArgs, lint_file

    settings = cfn_lint_settings()
    config = ManualArgs(
        regions=settings["regions"],
        ignore_checks=settings["ignore_checks"],
        append_rules=settings.get("append_rules", []),
    )
    return [str(match) for match in lint_file(template, config=config)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cdk-status", type=int, default=0, help="exit status of `cdk synth`")
    parser.add_argument("--cdk-out", type=Path, default=constants.REPO_ROOT / "cdk.out")
    # The example service's stack too (`make example`: examples/service/cdk.out, ProjectsService).
    parser.add_argument("--stack", default=constants.STACK_ID, help=f"the stack's construct id [{constants.STACK_ID}]")
    args = parser.parse_args(argv)
    template = args.cdk_out / f"{args.stack}.template.json"
    acknowledged, still_open = acknowledged_count(args.cdk_out, args.stack), open_count(args.cdk_out)
    if args.cdk_status != 0 and still_open == 0:
        still_open = -1  # synthesis failed before any report was written
    lint = None
    if args.cdk_status == 0 and template.exists():
        # The parent's template and each route group's nested one, each as CloudFormation receives it.
        lint = [
            finding for each in stack_templates(args.cdk_out, args.stack) for finding in cfn_lint_findings(each.path)
        ]
    for finding in lint or []:
        print(finding)
    lint_text = "not run" if lint is None else ("clean" if not lint else f"{len(lint)} findings")
    open_text = "synthesis failed" if still_open < 0 else f"{still_open} open"
    acknowledged_text = "no acknowledgements written" if acknowledged is None else f"{acknowledged} acknowledged"
    ignored = ", ".join(cfn_lint_settings()["ignore_checks"])
    label = "ddbguard" if args.stack == constants.STACK_ID else args.stack
    print(f"{label} synth: cdk-nag {acknowledged_text} / {open_text}; cfn-lint {lint_text} ({ignored} ignored)")
    return 0 if args.cdk_status == 0 and still_open == 0 and lint == [] else 1


if __name__ == "__main__":
    sys.exit(main())
