"""The cost and capacity blocks of docs/infra.md and docs/capacity.md, written from infra/cost_model.py's figures.

The model computes; this module only words its numbers, so a figure in either document is never typed by hand
(tests/infra/test_typed_figures.py refuses one outside a block). tests/infra/cost_figures.py writes the blocks
(`make regenerate`), and tests/infra/test_cost_model.py fails when a document differs from what this renders.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from infra.cost_model import (
    ASSUMPTIONS,
    AWS_LIMITS,
    DETAILED_METRICS_PER_ROUTE,
    ENTRY_UNITS,
    MARKER_UNITS,
    MOVEMENT_READ_UNITS,
    MOVEMENT_UNITS,
    PRICES,
    REPO_ROOT,
    SERVICE_METRICS,
    SHARED_WHEN_BUSY,
    Assumptions,
    BenchShapes,
    CodeFacts,
    EdgeSizing,
    Prices,
    TemplateFacts,
    average_rps,
    backlog_extra_units,
    busiest_route_need,
    idle_month,
    ledger_partition_units,
    movement_write_units,
    request_units,
    storage_per_million,
    traffic_month,
)

INFRA_DOC = REPO_ROOT / "docs" / "infra.md"


CAPACITY_DOC = REPO_ROOT / "docs" / "capacity.md"


def _usd(value: float) -> str:
    return f"${value:,.2f}"


def _span(low: float, high: float) -> str:
    return _usd(low) if math.isclose(low, high) else f"{_usd(low)} - {_usd(high)}"


def render_idle(prod: TemplateFacts, dev: TemplateFacts) -> str:
    rows = [("prod (config/prod.json: full monitoring, WAF, customer-managed key)", prod), ("dev (lean)", dev)]
    costs = [idle_month(facts) for _, facts in rows]

    def row(item: str, price: str, counted: str, cost: str, unit: str = "") -> str:
        counts = " / ".join(counted.format(f=facts) for _, facts in rows) + unit
        return f"| {item} | {price}; {counts} | " + " | ".join(_span(*c[cost]) for c in costs) + " |"

    totals = [(sum(v[0] for v in c.values()), sum(v[1] for v in c.values())) for c in costs]
    return "\n".join(
        [
            "| item | price | " + " | ".join(label for label, _ in rows) + " |",
            "| --- | --- | " + " | ".join("---:" for _ in rows) + " |",
            row(
                "CloudWatch alarms",
                "$0.10 per alarm metric (a metric-math alarm pays for each metric it reads)",
                "{f.alarm_metrics}",
                "alarms",
                " alarm metrics",
            ),
            row("CloudWatch dashboards", "$3.00 each beyond the account's 3 free", "{f.dashboards}", "dashboards"),
            row(
                "KMS keys",
                "$1.00 per key-month (alarm topics; the table's, where configured)",
                "{f.kms_keys}",
                "kms",
            ),
            row("WAF", "$5.00 per web ACL and $1.00 per rule", "{f.web_acls} ACL, {f.waf_rules} rules", "waf"),
            "| custom metrics | $0.30 per metric-month by the hour: the sweeper's age all month, the audit's two an "
            "hour a day | " + " | ".join(_usd(c["custom metrics"][0]) for c in costs) + " |",
            "| DynamoDB, Lambda, API Gateway, Cognito, Backup, logs, X-Ray | per use; idle, about nothing | "
            + " | ".join("~$0" for _ in costs)
            + " |",
            "| **total** | | " + " | ".join(f"**{_span(*total)}**" for total in totals) + " |",
        ]
    )


def render_traffic(prod: TemplateFacts, shapes: BenchShapes, assumptions: Assumptions = ASSUMPTIONS) -> str:
    costs = traffic_month(prod, shapes, assumptions=assumptions)
    movements = assumptions.requests * assumptions.movement_share
    what = {
        "API Gateway": "$3.50 per million requests",
        "Lambda": f"$0.20 per million + 256 MB for {assumptions.function_ms:g} ms on average (arm64)",
        "DynamoDB requests": f"reads 1 unit; a movement {movement_write_units()} write and {MOVEMENT_READ_UNITS} read "
        "units from request to settled (docs/capacity.md)",
        "DynamoDB storage and PITR": f"{movements / 1e6:g} million movements kept "
        f"({shapes.movement_bytes().billed} bytes each) a month: the first month's growth, paid again every month "
        "after",
        "AWS Backup": f"{assumptions.backup_copies} daily copies of that growth, $0.10 per GB-month",
        "lock audit": f"nightly, {shapes.audit_units_per_item():.4f} read units per item (bench shape) over the "
        "entries and markers added",
        "WAF": "$0.60 per million requests",
        "CloudWatch Logs": f"{assumptions.log_kb_per_request:g} KB per request, {assumptions.waf_log_kb_per_request:g}"
        " KB of WAF log",
        "X-Ray": "the first request each second, then 5 %",
        "metrics with traffic": f"API Gateway's detailed metrics, {DETAILED_METRICS_PER_ROUTE} per route "
        f"({prod.api_routes} routes), and the service's {len(SERVICE_METRICS)} own, all month at $0.30",
        "Cognito (Plus)": f"{assumptions.monthly_active_users:,} monthly active users at $0.02",
    }
    lines = [
        f"| item | {assumptions.requests / 1e6:g} million requests, {assumptions.movement_share:.0%} money movements | "
        "per month |",
        "| --- | --- | ---: |",
    ]
    lines += [f"| {item} | {what[item]} | {_usd(cost)} |" for item, cost in costs.items()]
    lines.append(f"| **total, on top of the idle month** | | **{_usd(sum(costs.values()))}** |")
    return "\n".join(lines)


def render_movement_units() -> str:
    lines = ["| write | units |", "| --- | ---: |"]
    lines += [f"| {what} | {units} |" for what, units in MOVEMENT_UNITS.items()]
    lines.append(f"| **one movement, request to settled, on an idle ledger** | **{movement_write_units()}** |")
    return "\n".join(lines)


def render_edge(sizing: EdgeSizing, shapes: BenchShapes, assumptions: Assumptions = ASSUMPTIONS) -> str:
    route, p99 = shapes.slowest_route()
    per_environment = 1000 / p99
    need = busiest_route_need(assumptions)
    route_concurrency = sizing.route_rate / per_environment
    most = movement_write_units() + backlog_extra_units(shapes)
    stage_concurrency = sizing.stage_rate / per_environment
    return "\n".join(
        [
            "| figure | value | from |",
            "| --- | ---: | --- |",
            f"| average rate of {assumptions.requests / 1e6:g} million requests a month | "
            f"{average_rps(assumptions):.1f} rps | the month's seconds |",
            f"| the busiest route at the busiest minute | {need:.0f} rps | {assumptions.peak_to_average:g}x the "
            f"average, {assumptions.busiest_route_share:.0%} of requests on one route |",
            f"| each route's throttle in prod | {sizing.route_rate:g} rps, burst {sizing.route_burst} | "
            f"config/prod.json: stage {sizing.stage_rate:g} rps / burst {sizing.stage_burst}, split over "
            f"{sizing.routes} routes and {sizing.mock_methods} mock methods |",
            f"| routes this budget covers at the busiest minute | up to {sizing.routes_covered(need)} "
            f"({sizing.routes} now) | each new route counted with a 405 mock of its own; beyond, raise "
            "apiStageRateLimit |",
            f"| what one execution environment sustains, slowest route | {per_environment:.1f} rps | make bench: "
            f"{route} p99 {p99:g} ms through HTTP |",
            f"| concurrent executions one route needs at its throttle | {route_concurrency:.0f} | its throttle / the "
            "line above |",
            f"| concurrent executions the whole stage needs at its budget | {stage_concurrency:.0f} | of the "
            f"account's {AWS_LIMITS.account_concurrency:,} ({sizing.reserved} reserved in prod) |",
            f"| one caller's most (WAF, per token) | {sizing.token_per_minute / 60:.0f} rps "
            f"({sizing.token_per_minute} a minute) | {sizing.token_per_minute / 60 / sizing.route_rate:.0%} of one "
            "route's throttle |",
            f"| one source IP's most (WAF) | {sizing.ip_per_minute / 60:.0f} rps ({sizing.ip_per_minute} a minute) |"
            " callers behind one NAT share it |",
            f"| write units one route sends the table at its throttle | {sizing.route_rate * most:,.0f} a second | a "
            f"movement writes at most {most} ({movement_write_units()} request to settled, "
            f"{most - movement_write_units()} more with a full backlog); an on-demand table takes "
            f"{AWS_LIMITS.table_write_units:,} |",
        ]
    )


def render_audit(shapes: BenchShapes, prices: Prices = PRICES) -> str:
    per_item = shapes.audit_units_per_item()
    lines = ["| items | read units of one run | per night | per month |", "| ---: | ---: | ---: | ---: |"]
    for items, segments, units in sorted(shapes.audit_units):
        total = units * segments
        lines.append(
            f"| {items:,} (measured) | {total:,.0f} | {_usd(total * prices.read_unit_per_million / 1e6)} | "
            f"{_usd(30 * total * prices.read_unit_per_million / 1e6)} |"
        )
    for items in AUDIT_SIZES:
        total = per_item * items
        lines.append(
            f"| {items:,} (from the shape) | {total:,.0f} | {_usd(total * prices.read_unit_per_million / 1e6)} | "
            f"{_usd(30 * total * prices.read_unit_per_million / 1e6)} |"
        )
    return "\n".join(lines)


AUDIT_SIZES = (1_000_000, 100_000_000)  # table sizes shown beyond the bench's measured ones


STORAGE_YEARS = 6  # how far the storage growth's accumulation is shown


def _tens(value: float) -> int:
    return int(value // 10 * 10)


def render_item_bytes(shapes: BenchShapes) -> str:
    gb, usd = storage_per_million(shapes)
    lines = ["| what | bytes | bytes billed |", "| --- | ---: | ---: |"]
    lines += [f"| {row.what} | {row.bytes:,} | {row.billed:,} |" for row in shapes.item_bytes]
    lines += [
        "",
        "A transfer keeps one entry more. Entries and markers are never deleted (the statement, and the first answer "
        f"to a late retry), so storage grows by about **{gb:.1f} GB per million movements**, about ${usd:.2f} a month "
        'per million movements kept (table storage plus point-in-time recovery; docs/infra.md, "Storage growth of '
        "money movements\"). The balance item does not grow with the ledger's history: its `pending` map is bounded "
        "(below).",
    ]
    return "\n".join(lines)


def render_movement_sharing(shapes: BenchShapes, code: CodeFacts) -> str:
    extra = backlog_extra_units(shapes)
    return (
        f"The request's own transaction is the {request_units()} that `make bench` shows per request; the "
        "settlement, off the request's path, copies the exact `availableCentsAfter` onto the request marker and the "
        "entry, empties the balance's `pending` map and takes the balance out of the sparse index `unsettled`, which "
        "was written when the balance started waiting. That is the most a movement costs on an idle ledger; on a busy "
        "one the index writes and the balance's part of the settlement are shared by the movements settled together "
        f"(up to {code.settlement_batch}), down to about {movement_write_units() - SHARED_WHEN_BUSY} a movement, "
        f"while a movement on a balance with a full backlog writes up to {extra} more in its request (its transaction "
        f"at {request_units() + extra}, below)."
    )


def _per_segment_at(shapes: BenchShapes, items: int) -> tuple[float, float]:
    """(read units, pages) of one audit segment at `items`, from the largest measured size."""
    largest, segments, _units = sorted(shapes.audit_units)[-1]
    return shapes.audit_units_per_item() * items / segments, shapes.audit_pages[largest] / largest * items


def render_background_reads(shapes: BenchShapes, code: CodeFacts) -> str:
    sweeps = sorted(shapes.sweeps, key=lambda sweep: sweep.items)
    audits = sorted(shapes.audit_units)
    scan_per_item = sweeps[-1].scan_units / sweeps[-1].items
    shown = [sweep.items for sweep in sweeps] + [AUDIT_SIZES[0]]
    segments = audits[-1][1]
    audit_cells = [f"{units:,.0f}, {shapes.audit_pages[items]:g} pages" for items, _segments, units in audits]
    at_size = _per_segment_at(shapes, AUDIT_SIZES[0])
    audit_cells.append(f"about {round(at_size[0], -3):,.0f}, {round(at_size[1], -1):,.0f} pages")
    audit_cells[0] = audit_cells[0].replace(",", " read units,", 1)
    sweep_cells = [f"{sweep.query_units:g}, {sweep.query_requests}" for sweep in sweeps] + [
        f"{sweeps[-1].query_units:g}, {sweeps[-1].query_requests}"
    ]
    sweep_cells[0] = f"{sweeps[0].query_units:g} read units, {sweeps[0].query_requests} requests"
    scan_cells = [f"{sweep.scan_units:,.0f}" for sweep in sweeps] + [
        f"about {round(scan_per_item * shown[-1], -3):,.0f}"
    ]
    lines = [
        "| job | " + " | ".join(f"{items:,} items" for items in shown) + " | depends on |",
        "| --- | " + " | ".join("---:" for _ in shown) + " | --- |",
        f"| sweeper: Query of the sparse index of waiting balances, {sweeps[0].query_requests} shards | "
        + " | ".join(sweep_cells)
        + " | the balances waiting, not the table |",
        "| former sweeper: filtered consistent Scan of the whole table (for comparison) | "
        + " | ".join(scan_cells)
        + " | the table |",
        f"| lock audit (nightly), per segment of {segments} | "
        + " | ".join(audit_cells)
        + " | the table (it must read every lock and account) |",
        f"| settlement (per stream batch) | per balance: one read of `pending`, one BatchGetItem and two transactions "
        f"per {code.settlement_batch} values | same | same | the movements to settle |",
        "",
        "The sweeper's figure is the minimum DynamoDB bills (half a unit per eventually consistent request) times its "
        f"{sweeps[0].query_requests} requests: a keys-only index entry is a small part of the "
        f"{AWS_LIMITS.read_unit_bytes // 1024} KB a read unit covers, so hundreds of balances wait before a second "
        f"half unit is read. The {shown[-1]:,} column is not seeded: it follows from the two measured sizes, where the "
        f"Query's units did not move and the Scan's grew {sweeps[-1].scan_units / sweeps[0].scan_units:.0f}-fold. At "
        f"the former Scan's rate a sweep would read about {round(scan_per_item * 1e6, -3):,.0f} units per million "
        "items, every run.",
    ]
    return "\n".join(lines)


def render_backlog(shapes: BenchShapes, code: CodeFacts) -> str:
    lines = [
        "| unsettled values on the balance | balance bytes | write units of the movement | answer |",
        "| ---: | ---: | ---: | --- |",
    ]
    for row in shapes.backlog:
        if row.accepted:
            lines.append(f"| {row.values} | {row.balance_bytes:,} | {row.units} | 201 |")
        else:
            lines.append(
                f"| {row.values} (the bound) | {row.balance_bytes:,} | {row.units} (refused: billed as attempted) | "
                "503 `settlement_behind`, nothing written |"
            )
    largest = max(row.balance_bytes for row in shapes.backlog)
    lines += [
        "",
        "The write units are the request marker, the balance rewritten at its new size and the entry, each twice "
        "inside the transaction; the balance is billed on the larger of its size before and after. A backlog past the "
        f"bound cannot occur: the bound ({code.pending_bound}) keeps the balance within "
        f"{code.balance_max_bytes // 1024} KB (at most {largest:,} bytes measured). Measured locally, interleaved with "
        "a twin ledger settled after every movement, the ledger near its bound keeps the twin's accepted rate: the "
        'ratio of one run is in bench/results.md, section 8 "Cost against size" (it moves by a few tens of points '
        "between runs on a loaded machine).",
    ]
    return "\n".join(lines)


def render_hot_ledger(shapes: BenchShapes) -> str:
    hot = shapes.hot
    idle, bound = ledger_partition_units(shapes)
    most = max(row.units for row in shapes.backlog)
    return "\n".join(
        [
            f"- **Measured locally**: one ledger took {hot.accepted_per_second:g} deposits a second from {hot.threads} "
            f"threads while its stream settlement ran at {hot.settled_per_second:g} settlements a second "
            f"({hot.settled_per_second / hot.accepted_per_second:.1f}x faster than the writes). DynamoDB Local never "
            "conflicts, so this is the service's own cost per movement, not DynamoDB's limit.",
            "- **By arithmetic on DynamoDB**: a ledger's balance and entries share one partition, which takes at most "
            f"{AWS_LIMITS.partition_write_units:,} write units a second. Each movement writes there "
            f"{request_units() - MARKER_UNITS} units idle (balance and entry, twice each in the transaction) and up "
            f"to {most - MARKER_UNITS} at the bound, and its settlement writes the entry again ({ENTRY_UNITS} units) "
            f"plus a share of the balance update: about {idle} units per movement idle, {bound} at the bound. That is "
            f"**about {_tens(AWS_LIMITS.partition_write_units / idle)} movements a second per ledger** idle, **about "
            f"{_tens(AWS_LIMITS.partition_write_units / bound)}** with a full backlog. Before that, concurrent "
            "transactions on the same balance conflict (`TransactionConflict`): the service retries them with "
            "jittered backoff and answers 503 `busy` when they keep conflicting, so a single ledger sustains what its "
            "conflicts allow, typically well under that. Reads (the reply's read-back, "
            f"{AWS_LIMITS.partition_read_units:,} units a second per partition) are not the limit.",
        ]
    )


def render_breaks_first(shapes: BenchShapes, code: CodeFacts) -> str:
    idle, bound = ledger_partition_units(shapes)
    hot = shapes.hot
    gb, usd = storage_per_million(shapes)
    items = AUDIT_SIZES[-1]
    segments = sorted(shapes.audit_units)[-1][1]
    _units, pages = _per_segment_at(shapes, items)
    pages_per_second = pages / (code.audit_run_hours * 3600)
    sweep = sorted(shapes.sweeps, key=lambda row: row.items)[-1]
    return "\n".join(
        [
            "| what | at | what happens | headroom today |",
            "| --- | --- | --- | --- |",
            f"| one hot ledger | about {_tens(AWS_LIMITS.partition_write_units / idle)} movements/s "
            f"({_tens(AWS_LIMITS.partition_write_units / bound)} with a full backlog), earlier through transaction "
            "conflicts | 503 `busy` after bounded retries; nothing written | spread money over more ledgers; nothing "
            "else in the service is per-ledger |",
            f"| a ledger whose settlement stalls | {code.pending_bound} unsettled movements | 503 `settlement_behind` "
            "until the stream or the sweeper settles (alarmed) | the measured stream settles that many in "
            f"{code.pending_bound / hot.settled_per_second:.1f} s; they are "
            f"{code.pending_bound / hot.accepted_per_second:.0f} s of the measured hot ledger |",
            f"| the nightly audit | the run's {code.audit_run_hours:g}-hour timeout | a segment cut short is reported "
            f"uncovered (Warning) and the next run covers it | at {items:,} items, {segments} segments of about "
            f"{round(pages, -3):,.0f} pages need {pages_per_second:.1f} pages a second each; more segments with "
            "`auditReservedConcurrency` |",
            f"| storage | grows about {gb:.1f} GB per million movements, for good | cost only (${usd:.2f} a month per "
            "million movements kept) | move old entries and markers to the Standard-IA table class or export them |",
            f"| the sweeper | does not grow with the table | | reads {sweep.query_units:g} units a run until hundreds "
            "of balances wait at once |",
            f"| each stack (the main one, and each route group's nested stack) | {code.stack_resources} CloudFormation "
            f"resources, {code.template_bytes / 1e6:g} MB template | synthesis or the deploy fails | every stack "
            f"within every limit with {code.added_routes} more routes than today, measured: [infra.md](infra.md), "
            '"Room to grow" |',
        ]
    )


def render_sweeper_cost(shapes: BenchShapes) -> str:
    sweeps = sorted(shapes.sweeps, key=lambda row: row.items)
    return (
        "**What the sweeper costs.** It reads the index of waiting balances, never the table: one Query per index "
        f"shard ({sweeps[0].query_requests}), eventually consistent, each a few hundred bytes, so a sweep costs "
        f"{sweeps[0].query_units:g} read units ({sweeps[0].query_requests} times the half-unit minimum) plus half a "
        f"unit per {AWS_LIMITS.read_unit_bytes // 1024} KB of waiting balances listed, at {sweeps[0].items:,} or "
        f"{AUDIT_SIZES[-1]:,} items alike. Each balance that starts waiting writes the index once and each that is "
        'emptied once more (a write unit each). Measured in `make bench`, "cost against size" '
        "([capacity.md](capacity.md))."
    )


def render_storage_cost(shapes: BenchShapes, code: CodeFacts, prices: Prices = PRICES) -> str:
    movement = shapes.movement_bytes()
    gb, usd = storage_per_million(shapes, prices)
    return (
        f"One million movements therefore add about {movement.bytes / 1000:.2f} GB (plus the index overhead DynamoDB "
        f"bills, {AWS_LIMITS.item_overhead_bytes} bytes per item: {(movement.billed - movement.bytes) / 1000:.1f} GB), "
        f'about {gb:.1f} GB in all (`make bench`, "cost against size"). At ${prices.storage_gb:.2f} per GB-month '
        f"(Standard table class) plus ${prices.pitr_gb:.2f} per GB-month for point-in-time recovery, that is **about "
        f"${usd:.2f} a month per million movements, for every month they are kept**, and it accumulates: a service "
        f"taking a million movements a month pays about ${usd:.2f} more each month (about "
        f"${usd * 12 * STORAGE_YEARS:.0f} a month after {STORAGE_YEARS} years). A transfer keeps one entry more. The "
        f"balance item itself stays small: its `pending` map is bounded ({code.pending_bound} values, the item within "
        f"{code.balance_max_bytes // 1024} KB) and emptied by the settlement. Retention decision: keep both for good; "
        f"when storage matters more than cost, the Standard-IA table class (${prices.storage_ia_gb:.2f} per GB-month) "
        "suits items that are written once and rarely read, and an export to S3 of entries older than the statement's "
        "useful range is the next step."
    )


BLOCK = re.compile(r"(<!-- (?P<name>[a-z-]+): generated by `make regenerate` -->\n)(.*?)(<!-- /(?P=name) -->)", re.S)


def rewritten(text: str, blocks: dict[str, str]) -> str:
    """`text` with each named block's content replaced; every name must be there."""
    found = {match["name"] for match in BLOCK.finditer(text)}
    missing = set(blocks) - found
    if missing:
        raise ValueError(f"no block {', '.join(sorted(missing))} (<!-- name: generated by `make regenerate` -->)")
    return BLOCK.sub(lambda m: f"{m[1]}{blocks[m['name']]}\n{m[4]}" if m["name"] in blocks else m[0], text)


def documents(
    prod: TemplateFacts, dev: TemplateFacts, sizing: EdgeSizing, shapes: BenchShapes, code: CodeFacts
) -> dict[Path, str]:
    """Each document as the model writes it."""
    infra = {
        "idle-cost": render_idle(prod, dev),
        "traffic-cost": render_traffic(prod, shapes),
        "sweeper-cost": render_sweeper_cost(shapes),
        "storage-cost": render_storage_cost(shapes, code),
    }
    capacity = {
        "item-bytes": render_item_bytes(shapes),
        "movement-units": render_movement_units(),
        "movement-sharing": render_movement_sharing(shapes, code),
        "edge-sizing": render_edge(sizing, shapes),
        "background-reads": render_background_reads(shapes, code),
        "audit-cost": render_audit(shapes),
        "backlog": render_backlog(shapes, code),
        "hot-ledger": render_hot_ledger(shapes),
        "breaks-first": render_breaks_first(shapes, code),
    }
    return {
        INFRA_DOC: rewritten(INFRA_DOC.read_text(encoding="utf-8"), infra),
        CAPACITY_DOC: rewritten(CAPACITY_DOC.read_text(encoding="utf-8"), capacity),
    }
