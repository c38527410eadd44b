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

infra/cost_documents.py words these figures; `python -m tests.infra.cost_figures --write` (part of `make
regenerate`) rewrites the marked blocks of both documents from a fresh synthesis; tests/infra/test_cost_model.py
renders them from the session's syntheses and fails on any drift.
Nothing here imports CDK.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

from infra.constants import API_CLIENT_ERRORS_METRIC, API_GUARD_REFUSALS_METRIC, API_REQUESTS_METRIC, CUSTOM_METRICS

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_RESULTS = REPO_ROOT / "bench" / "results.md"

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
    storage_ia_gb: float = 0.10  # table storage, Standard-IA class
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
_REQUEST, _INDEX_PUT, _MARKER, _ENTRY_AND_BALANCE, _LEAVES_INDEX, _INDEX_DELETE = MOVEMENT_UNITS.values()
# The request marker's units (under 1 KB, twice inside a transaction), the same in the request's transaction: the
# marker lives in its own partition, so a ledger's partition takes the rest of that transaction.
MARKER_UNITS = _MARKER
# The entry and the balance, each under 1 KB on an idle ledger, share the settlement transaction's units evenly.
ENTRY_UNITS = _ENTRY_AND_BALANCE // 2
# The writes of a movement that a busy ledger's settlement shares between the movements it settles together: the
# index's put and delete, the update that leaves the index, and the balance's part of the settlement transaction.
SHARED_WHEN_BUSY = _INDEX_PUT + _INDEX_DELETE + _LEAVES_INDEX + (_ENTRY_AND_BALANCE - ENTRY_UNITS)
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
class AwsLimits:
    """AWS's documented quotas the figures are measured against (facts, not ours)."""

    partition_write_units: int = 1_000  # per partition, per second
    partition_read_units: int = 3_000  # per partition, per second
    table_write_units: int = 40_000  # an on-demand table's default maximum, per second
    read_unit_bytes: int = 4_096  # one read unit (half of it eventually consistent)
    account_concurrency: int = 1_000  # Lambda's default concurrent executions per account and region
    item_overhead_bytes: int = 100  # DynamoDB bills each item 100 bytes more (its index overhead)


AWS_LIMITS = AwsLimits()


@dataclass(frozen=True)
class CodeFacts:
    """Figures the code fixes, read from where the code keeps them (tests/infra/cost_figures.py passes them in)."""

    pending_bound: int  # ddbguard.limits.MAX_PENDING_ENTRIES
    settlement_batch: int  # ddbguard.guards.settlement.ENTRIES_PER_TRANSACTION
    balance_max_bytes: int  # ddbguard.limits.MAX_BALANCE_BYTES
    audit_run_hours: float  # infra/audit.py's RUN_TIMEOUT
    stack_resources: int  # CloudFormation's per-stack limits as tests/infra/headroom.py checks them
    template_bytes: int
    added_routes: int  # the routes tests/infra/test_hundred_routes.py adds


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


def _number(cell: str) -> float:
    return float(cell.removeprefix("about ").replace(",", ""))


@dataclass(frozen=True)
class ItemBytes:
    what: str
    bytes: int  # attribute names plus values
    billed: int  # plus DynamoDB's 100 bytes of index overhead per item


@dataclass(frozen=True)
class Sweep:
    items: int
    query_requests: int
    query_units: float
    scan_units: float  # the former sweeper's consistent Scan of the whole table


@dataclass(frozen=True)
class Backlog:
    values: int  # unsettled values on the balance
    balance_bytes: int
    units: int  # write units of the movement
    accepted: bool


@dataclass(frozen=True)
class HotLedger:
    threads: int
    accepted_per_second: float
    settled_per_second: float


@dataclass(frozen=True)
class BenchShapes:
    route_p99_ms: dict[str, float]  # route -> p99 through HTTP, one client, warm
    audit_units: list[tuple[int, int, float]]  # (items, segments, Scan read units per segment)
    audit_pages: dict[int, float]  # items -> Scan pages per segment
    item_bytes: list[ItemBytes]
    sweeps: list[Sweep]  # the measured sizes only
    backlog: list[Backlog]
    hot: HotLedger

    @classmethod
    def read(cls, path: Path = BENCH_RESULTS) -> BenchShapes:
        text = path.read_text(encoding="utf-8")
        routes = {row[0]: float(row[3]) for row in _table(text, "### Latency per route through HTTP")}
        audit_rows = _table(text, "### The audit's work per segment")
        backlog_heading = "### One movement's write units against its ledger's backlog"
        hot_heading = "## 7. Settlement of one hot ledger"
        threads = re.search(r"movements/s, (\d+) threads", text.split(hot_heading, 1)[1])
        hot = _table(text, hot_heading)[0]
        assert threads, "bench/results.md lacks the hot ledger's threads"
        return cls(
            route_p99_ms=routes,
            audit_units=[(int(r[0]), int(r[1]), float(r[4])) for r in audit_rows],
            audit_pages={int(r[0]): float(r[3]) for r in audit_rows},
            item_bytes=[ItemBytes(r[0], int(r[2]), int(r[3])) for r in _table(text, "### Bytes each thing keeps")],
            sweeps=[
                Sweep(int(r[0]), int(r[2]), float(r[3]), float(r[5]))
                for r in _table(text, "### What one sweep reads")
                if r[0].isdigit()
            ],
            backlog=[Backlog(int(r[0]), int(r[1]), int(r[2]), r[4] == "201") for r in _table(text, backlog_heading)],
            hot=HotLedger(int(threads[1]), _number(hot[1]), _number(hot[3])),
        )

    def movement_bytes(self) -> ItemBytes:
        return next(row for row in self.item_bytes if row.what.startswith("money movement"))

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
    reserved: int  # concurrency config/prod.json reserves

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
            sum(int(values[key]) for key in values if key.endswith("ReservedConcurrency")),
        )

    @property
    def route_rate(self) -> float:
        # infra/api.py's Throttle.split: each mock 1 rps / burst 2, the routes share the rest evenly.
        return math.floor((self.stage_rate - self.mock_methods) / self.routes * 100) / 100

    @property
    def route_burst(self) -> int:
        return int((self.stage_burst - 2 * self.mock_methods) // self.routes)

    def routes_covered(self, need: float) -> int:
        """The most routes whose even share of the stage budget is still `need`: the room to grow before
        config/prod.json must be raised. Each route counted as adding a path of its own (one more 405 mock), the
        most a route can add."""
        routes = self.routes
        while self._grown_by(routes + 1 - self.routes).route_rate >= need:
            routes += 1
        return routes

    def _grown_by(self, routes: int) -> EdgeSizing:
        return replace(self, routes=self.routes + routes, mock_methods=self.mock_methods + routes)


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
    stored_gb = movements * shapes.movement_bytes().billed / 1e9
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


# --- the capacity figures around the tables ------------------------------------------------------------------


def request_units() -> int:
    """The request transaction's write units on an idle ledger (the first of `MOVEMENT_UNITS`)."""
    return _REQUEST


def backlog_extra_units(shapes: BenchShapes) -> int:
    """What a full backlog adds to the request's transaction (the balance rewritten at its largest)."""
    return max(row.units for row in shapes.backlog) - request_units()


def ledger_partition_units(shapes: BenchShapes) -> tuple[int, int]:
    """Write units one movement costs its ledger's partition, (idle, with a full backlog): the request's
    transaction without the request marker (its own partition), and the settlement's rewrite of the entry."""
    most = max(row.units for row in shapes.backlog)
    return request_units() - MARKER_UNITS + ENTRY_UNITS, most - MARKER_UNITS + ENTRY_UNITS


def storage_per_million(shapes: BenchShapes, prices: Prices = PRICES) -> tuple[float, float]:
    """(GB, USD a month) that a million movements kept add, billed bytes, table storage plus PITR."""
    gb = shapes.movement_bytes().billed / 1000
    return gb, gb * (prices.storage_gb + prices.pitr_gb)
