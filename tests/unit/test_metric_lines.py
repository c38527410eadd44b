"""Metrics in a terminal: Powertools' own EMF output becomes one readable line (the stream: test_log_lines.py)."""

from __future__ import annotations

import contextlib
import io
import json

from aws_lambda_powertools.metrics import Metrics, MetricUnit

from local.metric_lines import readable


def _emf_of(*metrics: tuple[str, float, MetricUnit]) -> str:
    """What Powertools prints when it flushes these metrics (its real output, not a hand-written sample)."""
    emitter = Metrics(namespace="ddbguard", service="ddbguard")
    emitter.clear_metrics()  # the metric set is shared in the process: another test's may be left in it
    for name, value, unit in metrics:
        emitter.add_metric(name=name, unit=unit, value=value)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        emitter.flush_metrics()
    return printed.getvalue()


def test_an_emf_document_becomes_one_line_with_names_values_units_and_dimensions():
    emf = _emf_of(("WithdrawalRefused", 1, MetricUnit.Count), ("SettleSeconds", 0.25, MetricUnit.Seconds))
    assert json.loads(emf)["_aws"]["CloudWatchMetrics"]
    line = readable(emf.strip())
    assert line == "METRICS ddbguard: WithdrawalRefused=1 Count, SettleSeconds=0.25 Seconds (service=ddbguard)"
