"""`make audit-locks [REPAIR=1]`: audit (and repair) the uniqueness locks of the local table.

Talks to the table the running `make run` serves (found through .local/run.json; DYNAMODB_PORT
and TABLE_NAME, when set, win). Prints every finding as a table; exits 1 when a finding is left
unrepaired, 2 when the table cannot be reached.
"""

from __future__ import annotations

import argparse
import sys

from botocore.exceptions import BotoCoreError, ClientError

from local.runtime_env import configure
from local.service_state import ServiceNotFound, find_table

COLUMNS = ("problem", "field", "value", "owner", "repaired", "detail")


def _rows(findings: list) -> list[tuple[str, ...]]:
    return [
        (
            f.problem,
            f.field or "-",
            f.value if f.value is not None else "-",
            f.owner_id or "-",
            "yes" if f.repaired else "no",
            f.detail,
        )
        for f in findings
    ]


def format_table(findings: list) -> str:
    rows = [COLUMNS, *_rows(findings)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make audit-locks", description=__doc__.splitlines()[0])
    parser.add_argument("--repair", action="store_true", help="fix what can be fixed safely (conditional writes)")
    args = parser.parse_args(argv)
    try:
        target = find_table()
    except ServiceNotFound as error:
        print(f"ddbguard: cannot audit: {error}", file=sys.stderr)
        return 2
    endpoint, table = target.endpoint, target.table
    configure(endpoint, table)
    import routes
    from ddbguard.domain import lock_audit
    from ddbguard.errors import Busy

    try:
        audited = lock_audit.audited_entities(routes.ENTITIES)
        report = lock_audit.audit_locks(repair=args.repair, entities=audited)
    except (BotoCoreError, ClientError, Busy) as error:
        print(
            f"ddbguard: cannot audit table {table} at {endpoint} (found through {target.source}; set DYNAMODB_PORT "
            f"and TABLE_NAME to audit another table): {error}",
            file=sys.stderr,
        )
        return 2
    summary = report.summary()
    # Items of every audited entity, by kind (0 for a kind with none yet): a new resource shows up here unasked.
    items = ", ".join(f"{report.scanned_by_kind.get(entity.kind, 0)} {entity.kind} items" for entity in audited)
    print(
        f"ddbguard: lock audit of {table}: {summary['locksScanned']} locks, {items}, "
        f"{summary['findings']} findings, {summary['repaired']} repaired, {summary['unrepaired']} unrepaired"
    )
    if report.findings:
        print(format_table(report.findings))
    if report.unrepaired and not args.repair:
        print("ddbguard: run `make audit-locks REPAIR=1` to repair what can be repaired safely.")
    return 1 if report.unrepaired else 0


if __name__ == "__main__":
    sys.exit(main())
