"""The sweeper: settle every balance whose `pending` values are older than a bound, whatever the stream did.

The stream's settlement is the fast path; this is the one that cannot be lost. It runs on a schedule (and as
`make sweep`), finds balances with a non-empty `pending` with one filtered Scan (page by page, memory flat), and
settles each whose oldest value waited longer than `min_age_s` exactly as the stream does
(`ddbguard.guards.settlement.settle_balance`): race-safe against the stream and against another sweeper, and
idempotent. It reports the oldest unsettled age it found, which is what the alarm on falling behind reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boto3.dynamodb.conditions import Attr

from ddbguard.errors import Busy
from ddbguard.guards.settlement import pending_age_s, settle_balance
from ddbguard.observability import logger
from ddbguard.store import keys, reads
from ddbguard.store.schema import PENDING, SORT_KEY

# Balances whose oldest unsettled value is younger than this are left to the stream.
DEFAULT_MIN_AGE_S = 60.0
BALANCE_SORT = keys.balance_key("x")[SORT_KEY]


@dataclass
class SweepReport:
    balances_seen: int = 0  # balances with unsettled values
    balances_settled: int = 0
    entries_settled: int = 0
    oldest_age_s: float = 0.0  # before this sweep settled anything
    failed: list[str] = field(default_factory=list)  # accounts whose settlement stayed busy (next sweep retries)

    def summary(self) -> dict[str, object]:
        return {
            "balancesSeen": self.balances_seen,
            "balancesSettled": self.balances_settled,
            "entriesSettled": self.entries_settled,
            "oldestUnsettledAgeSeconds": round(self.oldest_age_s, 3),
            "failed": len(self.failed),
        }


def sweep(min_age_s: float = DEFAULT_MIN_AGE_S) -> SweepReport:
    report = SweepReport()
    unsettled = Attr(SORT_KEY).eq(BALANCE_SORT) & Attr(PENDING).size().gt(0)
    for page in reads.scan_pages(unsettled):
        for balance in page:
            account_id = str(balance["PK"])[len(keys.ACCOUNT_PREFIX) :]
            age = pending_age_s(balance.get(PENDING) or {})
            report.balances_seen += 1
            report.oldest_age_s = max(report.oldest_age_s, age)
            if age < min_age_s:
                continue
            try:
                report.entries_settled += settle_balance(account_id).entries
                report.balances_settled += 1
            except Busy as error:  # one hot balance must not stop the sweep of the others
                logger.warning("sweep: balance stayed busy", extra={"accountId": account_id, "reason": str(error)})
                report.failed.append(account_id)
    return report
