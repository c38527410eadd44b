"""The templates of a synthesized cloud assembly (cdk.out): the stack's and each nested stack's, as CloudFormation
receives them, and one flattened view of them all.

`cdk synth` writes each nested stack (a route group, infra/route_stacks.py) as a file asset of the parent:
`<parent>.assets.json` maps the hash in the nested stack resource's `TemplateURL` to the file. Reads files only,
so `make synth`'s report, scripts/stack_report.py and the tests see the same thing; it imports no CDK (the stack's
construct id, `DdbguardStack`, is the caller's to pass).

The flattened view inlines each nested stack into the parent: a nested template's `Ref` to one of its parameters
becomes the parent's expression passed to that parameter, and the parent's `Fn::GetAtt` of a nested output becomes
the output's value. A role's statements then name the table as `Fn::GetAtt` of the table, as if every resource
shared one template. Logical ids are unique across the templates (checked here).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NESTED_STACK = "AWS::CloudFormation::Stack"
_ASSET_HASH = re.compile(r"([0-9a-f]{64})\.json")


@dataclass(frozen=True)
class StackTemplate:
    logical_id: str  # the nested stack resource's logical id in the parent; the parent's own: its stack id
    path: Path  # the template file `cdk deploy` uploads
    template: dict[str, Any]
    parameters: dict[str, Any]  # a nested stack's parameters, as the parent passes them


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def stack_templates(assembly: Path, stack_id: str) -> list[StackTemplate]:
    """The parent's template first, then each nested stack's, in the parent's resource order."""
    parent_path = assembly / f"{stack_id}.template.json"
    parent = _read(parent_path)
    files = _read(assembly / f"{stack_id}.assets.json")["files"]
    found = [StackTemplate(stack_id, parent_path, parent, {})]
    for logical_id, resource in parent.get("Resources", {}).items():
        if resource["Type"] != NESTED_STACK:
            continue
        (asset_hash,) = _ASSET_HASH.findall(json.dumps(resource["Properties"]["TemplateURL"]))
        path = assembly / files[asset_hash]["source"]["path"]
        found.append(StackTemplate(logical_id, path, _read(path), resource["Properties"].get("Parameters", {})))
    return found


def flattened(assembly: Path, stack_id: str) -> dict[str, Any]:
    """The parent's template with every nested stack's resources inlined (see the module's docstring)."""
    parent, *nested = stack_templates(assembly, stack_id)
    merged: dict[str, Any] = dict(parent.template.get("Resources", {}))
    outputs: dict[str, dict[str, Any]] = {}
    for each in nested:
        template = substitute(each.template, each.parameters, {})
        for resource_id, resource in template.get("Resources", {}).items():
            if resource_id in merged:
                raise ValueError(f"logical id {resource_id} is in two templates")
            merged[resource_id] = resource
        outputs[each.logical_id] = {name: output["Value"] for name, output in template.get("Outputs", {}).items()}
    return substitute({**parent.template, "Resources": merged}, {}, outputs)


def substitute(value: Any, parameters: dict[str, Any], outputs: dict[str, dict[str, Any]]) -> Any:
    """`value` with each `Ref` of a parameter and each `Fn::GetAtt` of a nested output replaced by what it stands
    for."""
    if isinstance(value, dict):
        if set(value) == {"Ref"} and value["Ref"] in parameters:
            return parameters[value["Ref"]]
        attribute = value.get("Fn::GetAtt")
        if len(value) == 1 and isinstance(attribute, list) and attribute[0] in outputs:
            return outputs[attribute[0]][str(attribute[1]).removeprefix("Outputs.")]
        return {key: substitute(item, parameters, outputs) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, parameters, outputs) for item in value]
    return value
