"""docs/infra.md's "First deploy" section lists every context key the stack reads, with its default."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from aws_cdk.assertions import Template

from infra import settings
from infra.stack import build_app
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
    _app, lean_stack = build_app(context={"monitoringProfile": "lean"})
    lean = counts(lean_stack, dict(Template.from_stack(lean_stack).to_json()))
    assert documented_lean == {"alarm": lean["alarms"], "alarm metric": lean["alarm metrics"]}
    assert lean["dashboard"] == 0


@pytest.mark.parametrize("stale", ["19 functions", "120 alarms", "128 alarm metrics", "45 acknowledged"])
def test_no_stale_count_is_left_in_the_docs(stale: str) -> None:
    assert stale not in DOCS.read_text(encoding="utf-8")
