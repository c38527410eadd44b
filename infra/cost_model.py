"""What the service costs and what it can take, from one model; docs/infra.md and docs/capacity.md show its output.

Inputs, each from where it is true:
- the synthesized templates: alarm metrics, dashboards, keys, the web ACL's rules (`TemplateFacts`, counted by
  tests/infra/template_counts.py);
- the write units of one money movement from request to settled, counted from what the code writes by DynamoDB's
  billing rules (`MOVEMENT_UNITS`; tests/integration/test_movement_units.py measures them on DynamoDB Local);
- the bench's measured shapes, read from bench/results.md (`make bench` writes it): each route's p99 latency
  through HTTP, and the lock audit's read units per segment at two table sizes;
- config/prod.json's throttles and WAF limits, and AWS's list prices (us-east-1, as published in 2025; not
  re-checked from this machine, which cannot reach AWS).

`python -m infra.cost_model --write` (part of `make regenerate`) rewrites the marked blocks of both documents from a
fresh synthesis; tests/infra/test_cost_model.py renders them from the session's syntheses and fails on any drift.
Nothing here imports CDK.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from infra.constants import API_CLIENT_ERRORS_METRIC, API_GUARD_REFUSALS_METRIC, API_REQUESTS_METRIC, CUSTOM_METRICS

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_RESULTS = REPO_ROOT / "bench" / "results.md"
INFRA_DOC = REPO_ROOT / "docs" / "infra.md"
CAPACITY_DOC = REPO_ROOT / "docs" / "capacity.md"

HOURS_PER_MONTH = 730
SECONDS_PER_MONTH = 30.4375 * 86_400


@dataclass(frozen=True)
class Prices:
    """List prices, us-east-1, USD (AWS pricing pages as published in 2025)."""

    alarm_metric: float = 0.10  # per standard-resolution alarm metric-month
    dashboard: float = 3.00  # per dashboard-month beyond 3 free per account
    free_dashboards: int = 3
    custom_metric: float = 0.30  # per metric-month, prorated by the hour
    kms_key: float = 1.00  # per customer-managed key-month
    waf_web_acl: float = 5.00  # per web ACL-month
    waf_rule: float = 1.00  # per rule-month (a managed rule group counts as one)
    waf_per_million: float = 0.60  # per million requests inspected
    api_per_million: float = 3.50  # REST API, first 333 million a month
    lambda_per_million: float = 0.20
    lambda_gb_second: float = 0.0000133334  # arm64
    read_unit_per_million: float = 0.125  # on-demand read request units
    write_unit_per_million: float = 0.625  # on-demand write request units
    storage_gb: float = 0.25  # table storage, Standard class
    pitr_gb: float = 0.20  # point-in-time recovery
    backup_gb: float = 0.10  # AWS Backup warm storage of DynamoDB backups
    logs_gb: float = 0.50  # CloudWatch Logs ingestion (standard and vended alike, first tier)
    xray_per_million: float = 5.00  # traces recorded beyond the free 100,000
    xray_free_traces: int = 100_000
    cognito_plus_mau: float = 0.02  # Plus feature plan (threat protection), per monthly active user


PRICES = Prices()

# --- what one request costs, counted from the code ---------------------------------------------------------

# Write units of one deposit on an idle ledger, from its request to its settlement (DynamoDB's rules: 1 per started
# KB of each item written, twice inside a transaction; a keys-only index entry is under 1 KB).
MOVEMENT_UNITS: dict[str, int] = {
    "request transaction: request marker, balance, entry (x2 each)": 6,
    "unsettled index: the balance starts waiting (put)": 1,
    "settlement transaction: the request marker's exact value (x2)": 2,
    "settlement transaction: the entry's exact value, the balance's pending map emptied (x2 each)": 4,
    "settlement update: the balance leaves the unsettled index": 1,
    "unsettled index: the balance stops waiting (delete)": 1,
}
# The request's read-back of its exact availableCentsAfter, and the settlement's reads of the balance and the entry.
MOVEMENT_READ_UNITS = 2
READ_UNITS_PER_GET = 1  # one consistent GetItem of an item under 4 KB
MOVEMENT_BYTES_KEPT = 976  # entry + request marker, billed bytes (docs/capacity.md, "Bytes each thing keeps")
# With traffic, each route's method publishes API Gateway's detailed metrics (count, 4xx, 5xx, latency, integration
# latency, cache hits and misses), billed as custom metrics; the service's own are the layer's and the access log's.
DETAILED_METRICS_PER_ROUTE = 7
SERVICE_METRICS = (*CUSTOM_METRICS, API_REQUESTS_METRIC, API_CLIENT_ERRORS_METRIC, API_GUARD_REFUSALS_METRIC)


@dataclass(frozen=True)
class Assumptions:
    """What the 100-million-request month looks like; each one stated where the figures are shown."""

    requests: int = 100_000_000
    movement_share: float = 0.4  # money movements (deposit-shaped: the write-heaviest route); the rest reads
    function_ms: float = 50  # average Lambda duration on real DynamoDB (the bench measured DynamoDB Local)
    function_gb: float = 0.25  # 256 MB
    log_kb_per_request: float = 2.5  # function log, EMF metrics, access log
    waf_log_kb_per_request: float = 1.5  # one WAF log record (headers, rule matches; the token redacted)
    monthly_active_users: int = 10_000
    xray_sample: float = 0.05  # active tracing: the first request each second, then 5 %
    peak_to_average: float = 10.0  # the busiest minute against the month's average
    busiest_route_share: float = 0.4  # the share of all requests the busiest route takes
    backup_copies: int = 35  # daily backups kept (config/prod.json's backupRetentionDays)


ASSUMPTIONS = Assumptions()


@dataclass(frozen=True)
class TemplateFacts:
    """What the cost of an idle month depends on, counted from one synthesized template."""

    alarm_metrics: int
    dashboards: int
    kms_keys: int
    web_acls: int
    waf_rules: int
    api_routes: int  # methods with a Lambda integration: each has API Gateway's detailed metrics once it has traffic

    @classmethod
    def of(cls, template: dict[str, object], alarm_metrics: int, dashboards: int) -> TemplateFacts:
        resources = template["Resources"].values()  # type: ignore[attr-defined]
        acls = [r["Properties"] for r in resources if r["Type"] == "AWS::WAFv2::WebACL"]
        methods = [r["Properties"] for r in resources if r["Type"] == "AWS::ApiGateway::Method"]
        return cls(
            alarm_metrics=alarm_metrics,
            dashboards=dashboards,
            kms_keys=sum(r["Type"] == "AWS::KMS::Key" for r in resources),
            web_acls=len(acls),
            waf_rules=sum(len(acl["Rules"]) for acl in acls),
            api_routes=sum(method["Integration"].get("Type") == "AWS_PROXY" for method in methods),
        )


# --- the bench's shapes ------------------------------------------------------------------------------------


def _table(text: str, heading: str) -> list[list[str]]:
    """The rows of the first markdown table after `heading` in bench/results.md (header and rule dropped)."""
    lines = text.split(heading, 1)[1].splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[2:]


@dataclass(frozen=True)
class BenchShapes:
    route_p99_ms: dict[str, float]  # route -> p99 through HTTP, one client, warm
    audit_units: list[tuple[int, int, float]]  # (items, segments, Scan read units per segment)

    @classmethod
    def read(cls, path: Path = BENCH_RESULTS) -> BenchShapes:
        text = path.read_text(encoding="utf-8")
        routes = {row[0]: float(row[3]) for row in _table(text, "### Latency per route through HTTP")}
        audit = [(int(r[0]), int(r[1]), float(r[4])) for r in _table(text, "### The audit's work per segment")]
        return cls(routes, audit)

    def slowest_route(self) -> tuple[str, float]:
        route = max(self.route_p99_ms, key=self.route_p99_ms.__getitem__)
        return route, self.route_p99_ms[route]

    def audit_units_per_item(self) -> float:
        """Read units per table item of a whole run, from the two largest measured sizes (a straight line)."""
        (small, small_segments, small_units), (large, large_segments, large_units) = sorted(self.audit_units)[-2:]
        return (large_units * large_segments - small_units * small_segments) / (large - small)


# --- the edge, sized -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EdgeSizing:
    stage_rate: float
    stage_burst: int
    routes: int
    mock_methods: int
    token_per_minute: int
    ip_per_minute: int

    @classmethod
    def from_config(cls, routes: int, mock_methods: int, path: Path = REPO_ROOT / "config" / "prod.json") -> EdgeSizing:
        values = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            float(values["apiStageRateLimit"]),
            int(values["apiStageBurstLimit"]),
            routes,
            mock_methods,
            int(values["wafTokenRateLimit"]),
            int(values["wafIpRateLimit"]),
        )

    @property
    def route_rate(self) -> float:
        # infra/api.py's Throttle.split: each mock 1 rps / burst 2, the routes share the rest evenly.
        return math.floor((self.stage_rate - self.mock_methods) / self.routes * 100) / 100

    @property
    def route_burst(self) -> int:
        return int((self.stage_burst - 2 * self.mock_methods) // self.routes)


def average_rps(assumptions: Assumptions = ASSUMPTIONS) -> float:
    return assumptions.requests / SECONDS_PER_MONTH


def busiest_route_need(assumptions: Assumptions = ASSUMPTIONS) -> float:
    return average_rps(assumptions) * assumptions.peak_to_average * assumptions.busiest_route_share


# --- money ---------------------------------------------------------------------------------------------------


def movement_write_units() -> int:
    return sum(MOVEMENT_UNITS.values())


def idle_month(facts: TemplateFacts, prices: Prices = PRICES) -> dict[str, tuple[float, float]]:
    """Item -> (low, high) USD of a month without traffic."""
    dashboards_high = facts.dashboards * prices.dashboard
    dashboards_low = max(0, facts.dashboards - prices.free_dashboards) * prices.dashboard
    # The sweeper's OldestUnsettledAgeSeconds all month; the audit's two metrics an hour a day.
    custom = prices.custom_metric * (1 + 2 * 30 / HOURS_PER_MONTH)
    waf = facts.web_acls * prices.waf_web_acl + facts.waf_rules * prices.waf_rule
    return {
        "alarms": (facts.alarm_metrics * prices.alarm_metric,) * 2,
        "dashboards": (dashboards_low, dashboards_high),
        "kms": (facts.kms_keys * prices.kms_key,) * 2,
        "waf": (waf, waf),
        "custom metrics": (custom, custom),
    }


def traffic_month(
    facts: TemplateFacts,
    shapes: BenchShapes,
    prices: Prices = PRICES,
    assumptions: Assumptions = ASSUMPTIONS,
) -> dict[str, float]:
    """Item -> USD of a month of `assumptions.requests` requests, on top of the idle month."""
    millions = assumptions.requests / 1_000_000
    movements = assumptions.requests * assumptions.movement_share
    reads = assumptions.requests - movements
    read_units = reads * READ_UNITS_PER_GET + movements * MOVEMENT_READ_UNITS
    write_units = movements * movement_write_units()
    gb_seconds = assumptions.requests * assumptions.function_ms / 1000 * assumptions.function_gb
    logs_gb = assumptions.requests * (assumptions.log_kb_per_request + assumptions.waf_log_kb_per_request) / 1e6
    stored_gb = movements * MOVEMENT_BYTES_KEPT / 1e9
    traced = SECONDS_PER_MONTH + assumptions.xray_sample * max(0.0, assumptions.requests - SECONDS_PER_MONTH)
    audit_units = shapes.audit_units_per_item() * (2 * movements) * 30  # entry + marker per movement, nightly
    return {
        "API Gateway": millions * prices.api_per_million,
        "Lambda": millions * prices.lambda_per_million + gb_seconds * prices.lambda_gb_second,
        "DynamoDB requests": (read_units * prices.read_unit_per_million + write_units * prices.write_unit_per_million)
        / 1e6,
        "DynamoDB storage and PITR": stored_gb * (prices.storage_gb + prices.pitr_gb),
        "AWS Backup": stored_gb * assumptions.backup_copies * prices.backup_gb,
        "lock audit": audit_units * prices.read_unit_per_million / 1e6,
        "WAF": millions * prices.waf_per_million * (facts.web_acls > 0),
        "CloudWatch Logs": logs_gb * prices.logs_gb,
        "X-Ray": max(0.0, traced - prices.xray_free_traces) / 1e6 * prices.xray_per_million,
        "metrics with traffic": (DETAILED_METRICS_PER_ROUTE * facts.api_routes + len(SERVICE_METRICS))
        * prices.custom_metric,
        "Cognito (Plus)": assumptions.monthly_active_users * prices.cognito_plus_mau,
    }


# --- the documents' blocks ----------------------------------------------------------------------------------


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
        "DynamoDB storage and PITR": f"{movements / 1e6:g} million movements kept ({MOVEMENT_BYTES_KEPT} bytes "
        "each) a month: the first month's growth, paid again every month after",
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
            f"| what one execution environment sustains, slowest route | {per_environment:.1f} rps | make bench: "
            f"{route} p99 {p99:g} ms through HTTP |",
            f"| concurrent executions one route needs at its throttle | {route_concurrency:.0f} | its throttle / the "
            "line above |",
            f"| concurrent executions the whole stage needs at its budget | {stage_concurrency:.0f} | of the "
            "account's 1,000 (15 reserved in prod) |",
            f"| one caller's most (WAF, per token) | {sizing.token_per_minute / 60:.0f} rps "
            f"({sizing.token_per_minute} a minute) | {sizing.token_per_minute / 60 / sizing.route_rate:.0%} of one "
            "route's throttle |",
            f"| one source IP's most (WAF) | {sizing.ip_per_minute / 60:.0f} rps ({sizing.ip_per_minute} a minute) |"
            " callers behind one NAT share it |",
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
    for items in (1_000_000, 100_000_000):
        total = per_item * items
        lines.append(
            f"| {items:,} (from the shape) | {total:,.0f} | {_usd(total * prices.read_unit_per_million / 1e6)} | "
            f"{_usd(30 * total * prices.read_unit_per_million / 1e6)} |"
        )
    return "\n".join(lines)


BLOCK = re.compile(r"(<!-- (?P<name>[a-z-]+): generated by `make regenerate` -->\n)(.*?)(<!-- /(?P=name) -->)", re.S)


def rewritten(text: str, blocks: dict[str, str]) -> str:
    """`text` with each named block's content replaced; every name must be there."""
    found = {match["name"] for match in BLOCK.finditer(text)}
    missing = set(blocks) - found
    if missing:
        raise ValueError(f"no block {', '.join(sorted(missing))} (<!-- name: generated by `make regenerate` -->)")
    return BLOCK.sub(lambda m: f"{m[1]}{blocks[m['name']]}\n{m[4]}" if m["name"] in blocks else m[0], text)


def documents(prod: TemplateFacts, dev: TemplateFacts, sizing: EdgeSizing, shapes: BenchShapes) -> dict[Path, str]:
    """Each document as the model writes it."""
    infra = {"idle-cost": render_idle(prod, dev), "traffic-cost": render_traffic(prod, shapes)}
    capacity = {
        "movement-units": render_movement_units(),
        "edge-sizing": render_edge(sizing, shapes),
        "audit-cost": render_audit(shapes),
    }
    return {
        INFRA_DOC: rewritten(INFRA_DOC.read_text(encoding="utf-8"), infra),
        CAPACITY_DOC: rewritten(CAPACITY_DOC.read_text(encoding="utf-8"), capacity),
    }
