"""The benchmark rewrites only the sections it ran (bench/results.py), and runs its cold section only on an
interpreter without CPython's frame-chunk thrashing (bench/runtime_python.py): named or uv-managed, never built."""

from __future__ import annotations

import pytest

from bench import results, runtime_python

REPORT = """# ddbguard benchmarks

One run, then.

## 1. Calls

one

## 3b. Cold start

old cold

### Tracing

old tracing

## 3c. HTTP

http

## 8. Cost

cost
"""


def test_a_run_of_one_section_rewrites_that_section_and_keeps_every_other() -> None:
    new = results.merged(REPORT, ["## 3b. Cold start\n\nnew cold"])
    assert new == REPORT.replace("old cold\n\n### Tracing\n\nold tracing", "new cold")


def test_a_new_section_goes_where_its_number_puts_it_and_a_full_run_replaces_the_preamble() -> None:
    new = results.merged(REPORT, ["## 3e. Bodies\n\nbodies"], header="# ddbguard benchmarks\n\nOne run, now.")
    headings = [line for line in new.splitlines() if line.startswith("## ")]
    assert headings == ["## 1. Calls", "## 3b. Cold start", "## 3c. HTTP", "## 3e. Bodies", "## 8. Cost"]
    assert "One run, now." in new and "One run, then." not in new


@pytest.mark.parametrize("version", [(3, 13, 0), (3, 13, 12), (3, 12, 9), (3, 14, 0)])
def test_a_known_bad_or_other_interpreter_is_refused(version: tuple[int, int, int]) -> None:
    assert runtime_python.refusal(version) is not None


@pytest.mark.parametrize("version", [(3, 13, 13), (3, 13, 15)])
def test_a_fixed_313_is_accepted(version: tuple[int, int, int]) -> None:
    assert runtime_python.refusal(version) is None


def test_the_named_interpreter_is_checked_not_trusted(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    fake = tmp_path / "python3.13"
    fake.write_text("#!/bin/sh\necho 3 13 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv(runtime_python.OVERRIDE, str(fake))
    runtime_python.runtime_python.cache_clear()
    with pytest.raises(SystemExit, match="gh-142183"):
        runtime_python.runtime_python()
    runtime_python.runtime_python.cache_clear()
