"""docs/infra.md's "First deploy" section lists every context key the stack reads, with its default."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from infra import settings
from infra.stack import build_app
from tests.infra import asset_sizes
from tests.infra.stack_templates import flat_template
from tests.infra.template_counts import counts

if TYPE_CHECKING:
    from conftest import Synth

DOCS = Path(__file__).resolve().parents[2] / "docs" / "infra.md"


def _rendered(default: Any) -> str:
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    return "(none)" if default == "" else f"`{default}`"


def _first_deploy_rows() -> dict[str, list[str]]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## First deploy", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells
    return rows


def test_every_context_key_is_documented_with_its_default() -> None:
    rows = _first_deploy_rows()
    assert set(rows) == {key.name for key in settings.ALL_KEYS}
    for key in settings.ALL_KEYS:
        assert rows[key.name][1] == _rendered(key.default), key.name
        assert rows[key.name][2], key.name


def test_context_keys_are_unique() -> None:
    names = [key.name for key in settings.ALL_KEYS]
    assert len(names) == len(set(names))


def _documented_counts() -> tuple[dict[str, int], dict[str, int]]:
    """The bold counts of the line at the top of docs/infra.md: (default context, lean profile)."""
    text = DOCS.read_text(encoding="utf-8")
    line = text.split("**From the synthesized template**", 1)[1].split("\n\n", 1)[0].replace("\n", " ")
    default_part, lean_part = line.split("monitoringProfile=lean", 1)
    pairs = lambda part: {what: int(n) for n, what in re.findall(r"\*\*(\d+) ([a-z -]+?)s?\*\*", part)}  # noqa: E731
    return pairs(default_part), pairs(lean_part)


def test_the_counts_in_the_docs_are_the_templates(synth: Synth) -> None:
    documented, documented_lean = _documented_counts()
    actual = counts(synth.stack, synth.json)
    assert documented == {
        key.removesuffix("s") if key != "alarm metrics" else "alarm metric": value for key, value in actual.items()
    }
    lean_app, lean_stack = build_app(context={"monitoringProfile": "lean"})
    lean = counts(lean_stack, flat_template(lean_app, lean_stack))
    assert documented_lean == {"alarm": lean["alarms"], "alarm metric": lean["alarm metrics"]}
    assert lean["dashboard"] == 0


@pytest.mark.parametrize("stale", ["19 functions", "120 alarms", "128 alarm metrics", "45 acknowledged"])
def test_no_stale_count_is_left_in_the_docs(stale: str) -> None:
    assert stale not in DOCS.read_text(encoding="utf-8")


def test_the_docs_name_every_ignored_cfn_lint_rule() -> None:
    import yaml

    from infra import constants

    ignored = yaml.safe_load(constants.CFN_LINT_CONFIG.read_text(encoding="utf-8"))["ignore_checks"]
    paragraph = DOCS.read_text(encoding="utf-8").split("cfn-lint reads `.cfnlintrc.yaml`", 1)[1].split("\n\n", 1)[0]
    assert ignored
    for rule in ignored:
        assert f"`{rule}`" in paragraph, rule


def test_the_functions_that_can_read_the_whole_table_are_the_ones_the_docs_name(synth: Synth) -> None:
    scanners = set()
    for props in synth.of_type("AWS::Lambda::Function").values():
        actions = [a for s in synth.role_statements(props["Properties"]) for a in synth.as_list(s["Action"])]
        if "dynamodb:Scan" in actions:
            scanners.add(props["Properties"]["Handler"])
    assert scanners == {"audit.audit_locks.handler"}
    assert "the audit is the one function that can read the whole table" in DOCS.read_text(encoding="utf-8")


def test_the_idle_alarm_cost_is_the_templates(synth: Synth) -> None:
    """The cost table's alarm row: $0.10 per alarm metric, counted from the full and the lean template."""
    text = DOCS.read_text(encoding="utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith("| CloudWatch alarms |")]
    full, lean = (int(n) for n in re.findall(r"(\d+) / (\d+) alarm metrics", row)[0])
    full_cost, lean_cost = (float(n) for n in re.findall(r"\$(\d+\.\d\d)", row)[-2:])
    documented, documented_lean = _documented_counts()
    assert (full, lean) == (documented["alarm metric"], documented_lean["alarm metric"])
    assert (full_cost, lean_cost) == (round(full * 0.10, 2), round(lean * 0.10, 2))


def test_the_documented_sizes_are_the_synthesized_assets(synth: Synth) -> None:
    """The "Sizes" table, from the staged assets of the template (what `make sizes` prints)."""
    text = DOCS.read_text(encoding="utf-8")
    table = asset_sizes.render(asset_sizes.measured(synth.resources, synth.asset_dir))
    assert text == asset_sizes.rewritten(text, table), "docs/infra.md: run `make regenerate`"
