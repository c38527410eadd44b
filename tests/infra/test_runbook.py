"""docs/operations.md works as written: one section per Critical alarm (what it means, the first command, how to
know it is fixed), every output it reads exists, functions come from outputs, long jobs run asynchronously."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .conftest import REPO_ROOT

if TYPE_CHECKING:
    from conftest import Synth

RUNBOOK = REPO_ROOT / "docs" / "operations.md"
# `## \`ddbguard-<env>-<what>-Critical\``; <Function> and <Route> stand for a construct id.
HEADING = re.compile(r"^## `ddbguard-<env>-(?P<what>[^`]+)`$", re.M)
PLACEHOLDERS = {"<Function>": "[A-Za-z]+", "<Route>": "[A-Za-z]*"}


def _sections() -> dict[str, str]:
    """Alarm-name pattern (after the stack name) -> the section's text."""
    text = RUNBOOK.read_text(encoding="utf-8")
    matches = list(HEADING.finditer(text))
    sections = {}
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = text[match.end() : end].split("\n## ", 1)[0]
        pattern = re.escape(match["what"])
        for placeholder, regex in PLACEHOLDERS.items():
            pattern = pattern.replace(re.escape(placeholder), regex)
        sections[pattern] = body
    return sections


def _critical_alarms(synth: Synth) -> list[str]:
    prefix = f"{synth.stack.stack_name}-"
    names = [value["Properties"]["AlarmName"] for value in synth.of_type("AWS::CloudWatch::Alarm").values()]
    return sorted(name.removeprefix(prefix) for name in names if name.endswith("-Critical"))


def test_every_critical_alarm_has_its_section(synth: Synth) -> None:
    sections = _sections()
    critical = _critical_alarms(synth)
    assert len(critical) > 50
    for name in critical:
        matching = [pattern for pattern in sections if re.fullmatch(pattern, name)]
        assert len(matching) == 1, f"{name}: {len(matching)} sections in docs/operations.md"
    for pattern in sections:  # no section for an alarm the stack no longer has
        assert any(re.fullmatch(pattern, name) for name in critical), pattern


def test_each_section_says_what_it_means_the_first_command_and_when_it_is_fixed() -> None:
    for pattern, body in _sections().items():
        words = " ".join(body.split())
        assert "Means:" in words, pattern
        assert "First command" in words and "```bash" in body, pattern
        assert "Fixed when" in words, pattern


def test_every_output_the_runbook_reads_is_one_of_the_stacks(synth: Synth) -> None:
    text = RUNBOOK.read_text(encoding="utf-8")
    named = set(re.findall(r"\bout (\w+)", text)) | set(re.findall(r"OutputKey=='(\w+)'", text))
    outputs = set(synth.json["Outputs"])
    assert {"SweeperFunctionName", "SettlementFunctionName", "AuditFunctionName", "SettlementFailureQueueUrl"} <= named
    assert named <= outputs, named - outputs


def test_functions_come_from_outputs_and_long_jobs_run_asynchronously() -> None:
    text = RUNBOOK.read_text(encoding="utf-8")
    assert "describe-stack-resources" not in text.replace("unlike `describe-stack-resources`", "")
    invokes = re.findall(r"aws lambda invoke[^\n]*(?:\\\n[^\n]*)*", text)
    assert invokes
    for invoke in invokes:
        assert "--invocation-type Event" in invoke, invoke
