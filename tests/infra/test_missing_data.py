"""Every alarm's missing-data treatment, with its reason: no alarm returns to OK only because a metric stopped.

- Counts of events (errors, throttles, 5xx answers, busy answers, retries, audit findings) and statistics over
  requests (rates, p99 latency, concurrency): CloudWatch publishes no datapoint when nothing happened, so
  missing data is zero events and `notBreaching` is true; the alarm clears because the errors stopped.
- Levels that persist without activity (a queue's waiting messages, how far a stream reader is behind): the
  metric can stop while the level stays (SQS stops after 6 hours of inactivity), so `ignore` keeps the state
  until a datapoint says otherwise.
- Heartbeats (the age of the oldest unsettled value, reported by every sweep, 0 included): silence means the
  reporter stopped, so `breaching`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conftest import Synth

NOT_BREACHING, IGNORE, BREACHING = "notBreaching", "ignore", "breaching"
EVENTS = "events: no datapoint means none happened"
REQUESTS = "a statistic over requests: no datapoint means no requests"

# (alarm name pattern after the stack name, treatment, reason). Every alarm matches exactly one row.
MISSING_DATA: tuple[tuple[str, str, str], ...] = (
    (r"\w+-Fault-Count-Critical", NOT_BREACHING, f"function errors; {EVENTS}"),
    (r"\w+-Throttled-Count-Critical", NOT_BREACHING, f"function throttles; {EVENTS}"),
    (r"SweepPending-Throttled-Count-Warning", NOT_BREACHING, f"the sweeper's throttled runs (retried); {EVENTS}"),
    (r"AuditLocks-Fault-Count-Warning", NOT_BREACHING, f"the audit's step errors (its run retries them); {EVENTS}"),
    (r"AuditLocks-Throttled-Count-Warning", NOT_BREACHING, f"the audit's throttled steps (retried); {EVENTS}"),
    (r"\w+-Running-Tasks-High-Warning", NOT_BREACHING, "concurrent executions: no datapoint means none running"),
    (r"\w+-Latency-P99-Warning", NOT_BREACHING, f"p99 duration or latency; {REQUESTS}"),
    (r"Api\w*-Fault-Rate-Critical", NOT_BREACHING, f"5xx rate; {REQUESTS}"),
    (r"ApiStatus-ClientErrorRate-Warning", NOT_BREACHING, f"4xx rate from the access log; {REQUESTS}"),
    (r"Table-(Read|Write)-Throttled-Events-Warning", NOT_BREACHING, f"table throttles; {EVENTS}"),
    (r"TableGuards-TableSystemErrors-Critical", NOT_BREACHING, f"DynamoDB system errors, each term FILLed; {EVENTS}"),
    (r"Integrity-BusyRate-Critical", NOT_BREACHING, f"share of requests answered 503 busy, FILLed; {REQUESTS}"),
    (r"Pager-Test-Critical", NOT_BREACHING, "a metric never emitted: OK until make page-test sets ALARM"),
    (r"Integrity-TransactionRetry-Warning", NOT_BREACHING, f"transient-error retries; {EVENTS}"),
    (r"Integrity-LockAuditUnrepaired-Critical", NOT_BREACHING, f"unrepaired audit findings (hourly); {EVENTS}"),
    (
        r"Settlement-IteratorAge-Critical",
        IGNORE,
        "how far the stream reader is behind, a level: reported only while it reads batches",
    ),
    (
        r"Settlement-FailureQueue-Critical",
        IGNORE,
        "messages waiting in the on-failure queue, a level: SQS stops the metric after 6 h without activity while "
        "messages wait up to 14 days; only a datapoint of 0 (after the re-drive) clears it",
    ),
    (
        r"LockAuditCoverage-Uncovered-Warning",
        BREACHING,
        "a heartbeat: every audit run reports its uncovered segments, 0 included, so a day without one means no run",
    ),
    (
        r"Settlement-OldestUnsettled-Critical",
        BREACHING,
        "a heartbeat: every sweep reports it, 0 included, so silence means the sweeper stopped",
    ),
)


def _treatments(synth: Synth) -> dict[str, str]:
    prefix = f"{synth.stack.stack_name}-"
    return {
        value["Properties"]["AlarmName"].removeprefix(prefix): value["Properties"].get("TreatMissingData", "missing")
        for value in synth.of_type("AWS::CloudWatch::Alarm").values()
    }


def test_every_alarm_has_the_listed_missing_data_treatment(synth: Synth) -> None:
    treatments = _treatments(synth)
    assert len(treatments) > 100
    used: set[str] = set()
    for name, treatment in sorted(treatments.items()):
        rows = [row for row in MISSING_DATA if re.fullmatch(row[0], name)]
        assert len(rows) == 1, f"{name}: matches {len(rows)} rows of MISSING_DATA"
        pattern, expected, reason = rows[0]
        assert treatment == expected, f"{name}: {treatment}, but {expected} because {reason}"
        used.add(pattern)
    assert used == {row[0] for row in MISSING_DATA}  # no row lists an alarm the stack no longer has


def test_a_level_never_clears_on_silence_and_a_heartbeat_alarms_on_it(synth: Synth) -> None:
    treatments = _treatments(synth)
    assert treatments["Settlement-FailureQueue-Critical"] == IGNORE
    assert treatments["Settlement-IteratorAge-Critical"] == IGNORE
    assert treatments["Settlement-OldestUnsettled-Critical"] == BREACHING
