"""The lock audit at any table size: parallel Scan segments, each resumable across invocations.

A run is `total_segments` segments. Each segment is scanned page by page and every page judged by
`lock_audit.audit_page`; when the time left runs short, the segment stops after a whole page and returns a
`Continuation` (segment, total, the Scan's own LastEvaluatedKey) that the next invocation resumes from. So one
invocation never outlives its timeout, memory stays flat (one page and the findings), and the work spreads over
as many concurrent invocations as there are segments. Deployed, a Step Functions state machine (infra/audit.py)
fans the segments out with a Distributed Map and loops each segment's continuations through the segment worker
(functions/audit/audit_locks.py), keeping the continuation as its checkpoint; `audit_in_parallel` runs a whole run
in threads of one process (local tools, the benchmark).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple, TypedDict

from ddbguard.domain import lock_audit
from ddbguard.domain.lock_audit import AuditReport
from ddbguard.guards.entity import Entity
from ddbguard.store import audit_checkpoints
from ddbguard.store.segment_scan import WireKey, scan_segment_page

__all__ = [
    "PAGE_SECONDS_RESERVE",
    "Continuation",
    "ContinuationEvent",
    "SegmentResult",
    "audit_in_parallel",
    "audit_segment",
    "merge",
]

# A page of 1000 items with its by-key reads takes well under this on DynamoDB; stop before the last one.
PAGE_SECONDS_RESERVE = 30.0


class ContinuationEvent(TypedDict):
    """A continuation as the state machine carries it from one invocation to the next: the segment, and where it
    goes on as an opaque checkpoint token (ddbguard.store.audit_checkpoints), never the Scan's key, which may be a
    lock's (`UNIQ#EMAIL#<address>`) and would put personal data into the execution's history."""

    segment: int
    totalSegments: int
    checkpoint: str | None


class Continuation(NamedTuple):
    """Where one segment of a run goes on: what a resumed invocation receives."""

    segment: int
    total_segments: int
    start_key: WireKey | None = None

    def to_event(self) -> ContinuationEvent:
        """The event the state machine carries: the start key kept in the table, its token in the event."""
        token = audit_checkpoints.save(self.start_key) if self.start_key else None
        return ContinuationEvent(segment=self.segment, totalSegments=self.total_segments, checkpoint=token)

    @classmethod
    def from_event(cls, event: Mapping[str, object]) -> Continuation:
        """From the state machine's event (JSON): the fields of `ContinuationEvent`, checked, the checkpoint's key
        read back from the table."""
        if "segment" not in event or "totalSegments" not in event:
            raise ValueError(
                "not a segment of an audit run: the worker takes {segment, totalSegments, checkpoint} from the audit's "
                "state machine; start a run with the stack's AuditRunInput (docs/operations.md, 'Long jobs')"
            )
        segment, total, token = _whole(event["segment"]), _whole(event["totalSegments"]), event.get("checkpoint")
        if total < 1 or not 0 <= segment < total:
            raise ValueError(f"segment {segment} of {total} is not a segment of a run")
        if token is not None and not isinstance(token, str):
            raise ValueError("checkpoint is not a token this audit made")
        return cls(segment, total, audit_checkpoints.load(token) if token else None)


def _whole(value: object) -> int:
    if isinstance(value, int | float | str):
        return int(value)
    raise ValueError(f"{value!r} is not a segment number")


@dataclass
class SegmentResult:
    report: AuditReport
    pages: int
    # None: the segment is done; otherwise the next invocation's starting point.
    next: Continuation | None


def audit_segment(
    where: Continuation,
    *,
    repair: bool,
    seconds_left: Callable[[], float] = lambda: float("inf"),
    reserve_s: float = PAGE_SECONDS_RESERVE,
    page_size: int = 1000,
    max_pages: int | None = None,
    entities: Sequence[Entity] | None = None,
) -> SegmentResult:
    """Audit one segment from `where`, page by page, until it is done, fewer than `reserve_s` seconds are left, or
    `max_pages` pages were audited."""
    audited = lock_audit.audited_entities(entities)
    report = AuditReport()
    start_key, pages = where.start_key, 0
    while True:
        page, start_key = scan_segment_page(
            lock_audit.audited_items(audited),
            segment=where.segment,
            total_segments=where.total_segments,
            start_key=start_key,
            page_size=page_size,
        )
        lock_audit.audit_page(page, report, repair=repair, entities=audited)
        pages += 1
        if start_key is None:
            return SegmentResult(report, pages, None)
        if seconds_left() < reserve_s or (max_pages is not None and pages >= max_pages):
            return SegmentResult(report, pages, Continuation(where.segment, where.total_segments, start_key))


def merge(reports: list[AuditReport]) -> AuditReport:
    merged = AuditReport()
    for report in reports:
        merged.locks_scanned += report.locks_scanned
        for kind, scanned in report.scanned_by_kind.items():
            merged.scanned_by_kind[kind] = merged.scanned_by_kind.get(kind, 0) + scanned
        merged.findings.extend(report.findings)
    return merged


def audit_in_parallel(
    total_segments: int, *, repair: bool = False, page_size: int = 1000, entities: Sequence[Entity] | None = None
) -> AuditReport:
    """A whole run in this process: one thread per segment, each to its end."""

    def one(segment: int) -> AuditReport:
        where: Continuation | None = Continuation(segment, total_segments)
        reports = []
        while where is not None:
            result = audit_segment(where, repair=repair, page_size=page_size, entities=entities)
            reports.append(result.report)
            where = result.next
        return merge(reports)

    with ThreadPoolExecutor(max_workers=total_segments, thread_name_prefix="audit-segment") as pool:
        return merge(list(pool.map(one, range(total_segments))))
