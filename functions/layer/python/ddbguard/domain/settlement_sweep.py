"""The sweeper: settle every balance whose `pending` values are older than a bound, whatever the stream did.

The stream's settlement is the fast path; this is the one that cannot be lost. It runs on a schedule (and as
`make sweep`) and reads no table: it queries the sparse unsettled-balances index (`UNSETTLED_INDEX`), which holds
exactly the balances whose `pending` is non-empty, one Query per index shard, page by page, eventually consistent
(the settlement re-reads each balance consistently anyway). So a sweep reads what waits, never what the table
holds. Each balance whose oldest value (the index's sort key, an entry id that carries its time) waited longer
than `min_age_s` is settled exactly as the stream does (`ddbguard.guards.settlement.settle_balance`): race-safe
against the stream and against another sweeper, and idempotent. It reports the oldest unsettled age it found,
which is what the alarm on falling behind reads.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from boto3.dynamodb.conditions import Key

from ddbguard.errors import Busy
from ddbguard.guards.settlement import settle_balance
from ddbguard.observability import logger
from ddbguard.store import keys, reads
from ddbguard.store.attribute_names import ACCOUNT_ID, PK, UNSETTLED_INDEX, UNSETTLED_SHARD, UNSETTLED_SINCE
from ddbguard.store.ids import time_of_sortable_id

__all__ = ["DEFAULT_MIN_AGE_S", "SweepReport", "sweep", "unsettled_balances"]

# Balances whose oldest unsettled value is younger than this are left to the stream.
DEFAULT_MIN_AGE_S = 60.0


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


def unsettled_balances(*, page_size: int = 1000) -> Iterator[tuple[str, float]]:
    """(account id, age in seconds of its oldest unsettled value) of every balance in the index, page by page."""
    now = time.time()
    for shard in keys.unsettled_shards():
        for page in reads.index_pages(UNSETTLED_INDEX, Key(UNSETTLED_SHARD).eq(shard), page_size=page_size):
            for balance in page:
                account_id = keys.account_id_of(str(balance[PK]))
                if account_id is None:  # the index holds balances only; anything else is not ours to settle
                    continue
                yield account_id, max(0.0, now - time_of_sortable_id(str(balance[UNSETTLED_SINCE])))


def sweep(min_age_s: float = DEFAULT_MIN_AGE_S) -> SweepReport:
    report = SweepReport()
    for account_id, indexed_age in unsettled_balances():
        report.balances_seen += 1
        if indexed_age < min_age_s:
            report.oldest_age_s = max(report.oldest_age_s, indexed_age)
            continue
        try:
            settled = settle_balance(account_id)
        except Busy as error:  # one hot balance must not stop the sweep of the others
            logger.warning("sweep: balance stayed busy", extra={ACCOUNT_ID: account_id, "reason": str(error)})
            report.failed.append(account_id)
            report.oldest_age_s = max(report.oldest_age_s, indexed_age)
            continue
        # The age the settlement read from `pending` itself: the index's is an upper bound (read eventually).
        report.oldest_age_s = max(report.oldest_age_s, settled.oldest_age_s)
        report.entries_settled += settled.entries
        report.balances_settled += 1
    return report
