"""Logs for people: Powertools' own JSON records, EMF and REPORT lines each become one readable line; LOG_FORMAT=json
keeps them as deployed."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
import uuid

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit

from local.lambda_runtime import report_line
from local.log_lines import ReadableLogs, for_people, readable_record, readable_report


def _logger(printed: io.StringIO, level: str = "INFO") -> Logger:
    """A Powertools Logger of its own (a service name Powertools has not set up yet) printing into `printed`."""
    return Logger(service=f"log-lines-{uuid.uuid4().hex}", level=level, logger_handler=logging.StreamHandler(printed))


def _records(*calls: tuple[str, str, dict]) -> list[str]:
    """What Powertools Logger prints for these calls (its real output, not a hand-written sample)."""
    printed = io.StringIO()
    logger = _logger(printed, "DEBUG")
    logger.append_keys(function_name="ddbguard-withdraw", cold_start=True)
    for level, message, extra in calls:
        getattr(logger, level)(message, extra=extra)
    return printed.getvalue().splitlines()


def test_a_record_is_time_function_level_message_and_its_own_keys():
    (line,) = _records(("info", "POST /accounts", {"status": 201, "calls": 1}))
    assert json.loads(line)["service"].startswith("log-lines-")
    readable = readable_record(line)
    assert readable is not None
    assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3} withdraw +INFO +POST /accounts  status=201  calls=1", readable)
    assert "cold_start" not in readable and "service" not in readable  # Powertools' own keys stay out


def test_an_exception_keeps_its_traceback_indented_below_its_line():
    printed = io.StringIO()
    logger = _logger(printed)
    try:
        raise KeyError("boom")
    except KeyError:
        logger.exception("unexpected error")
    readable = readable_record(printed.getvalue().strip(), "deposit")
    assert readable is not None
    first, *trace = readable.splitlines()
    assert re.fullmatch(r"\S+ deposit +ERROR unexpected error", first), first
    assert trace and all(line.startswith("    ") for line in trace) and "KeyError: 'boom'" in trace[-1]


def test_a_report_line_names_the_function():
    line = report_line("abc", 12.3, 400.0)
    assert line.startswith("REPORT RequestId: abc\tDuration: 12.30 ms\tBilled Duration: 13 ms")
    readable = readable_report(line, "deposit")
    assert readable is not None
    assert re.fullmatch(
        r"\S+ deposit +REPORT 12\.30 ms \(billed 13 ms\), init 400\.00 ms, memory \d+ of 256 MB", readable
    )


def test_the_stream_rewrites_records_metrics_and_reports_even_when_written_in_pieces():
    target = io.StringIO()
    stream = ReadableLogs(target, "withdraw")
    (record,) = _records(("warning", "busy", {"reason": "conflicts"}))
    emitter = Metrics(namespace="ddbguard", service="ddbguard")
    emitter.clear_metrics()  # the metric set is shared in the process: another test's may be left in it
    emitter.add_metric(name="Deposits", unit=MetricUnit.Count, value=2)
    emf = io.StringIO()
    with contextlib.redirect_stdout(emf):
        emitter.flush_metrics()
    for text in (record[:10], record[10:] + "\n", emf.getvalue(), "ddbguard: a plain line\n", "no newline yet"):
        stream.write(text)
    stream.flush()
    lines = target.getvalue().splitlines()
    assert re.fullmatch(r"\S+ withdraw +WARNING busy  reason=conflicts", lines[0]), lines
    assert lines[1:] == [
        "METRICS ddbguard: Deposits=2 Count (service=ddbguard)",
        "ddbguard: a plain line",
        "no newline yet",
    ]


def test_log_format_json_keeps_the_lines_as_deployed_and_emf_1_the_metrics(monkeypatch):
    target = io.StringIO()
    monkeypatch.setenv("LOG_FORMAT", "json")
    assert for_people(target) is target
    monkeypatch.delenv("LOG_FORMAT")
    monkeypatch.setenv("EMF", "1")
    stream = for_people(target)
    assert isinstance(stream, ReadableLogs) and stream.raw_metrics
    stream.write('{"_aws": {"CloudWatchMetrics": []}}\n')
    assert target.getvalue() == '{"_aws": {"CloudWatchMetrics": []}}\n'
