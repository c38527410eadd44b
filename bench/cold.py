"""Section 3b: cold init of every handler beside `import boto3`, as deployed, and the cost of each tracing option.

As deployed: each figure is a fresh `python -S -B` process whose path is only what Lambda's would hold: the
function code (functions/), the shared layer (functions/layer/python) and the dependencies layer built from
requirements.txt (its host-platform twin, infra/dependency_layer.py), with the environment the stack sets
(tracing provider included) and none of the venv's development packages. The baseline is `import boto3` from
the same dependencies layer. Pairs interleave: each handler process right after a baseline process, so load on the
shared machine hits both sides of a pair alike; a row's ratio is the median of its pairs' ratios.

In each handler process: the import (module init), then the first invocation, then the same event again (warm);
the first invocation's extra cost is first - warm. Wall time is the target's measure;
CPU time (`process_time`) is shown beside it because it does not count the time a process waits for a core,
which on a loaded shared machine is most of the noise.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from local.paths import ROOT

# Runs in the fresh process. `spec` comes on stdin; the figures go to the real stdout as the last line.
_CHILD = r"""
import json, sys, time
spec = json.loads(sys.stdin.read())
start, start_cpu = time.perf_counter(), time.process_time()
exec(spec.get("bootstrap") or "")
if spec["module"] == "boto3":
    import boto3
    imported, imported_cpu = time.perf_counter(), time.process_time()
    client = boto3.session.Session().client("dynamodb")
    item = {"PK": {"S": "COLD#boto3"}, "SK": {"S": "X"}}
    client.put_item(TableName=spec["table"], Item=item)
    first = time.perf_counter()
    client.put_item(TableName=spec["table"], Item=item)
    warm = time.perf_counter()
else:
    import importlib
    handler = importlib.import_module(spec["module"]).handler
    imported, imported_cpu = time.perf_counter(), time.process_time()
    from types import SimpleNamespace
    arn = "arn:aws:lambda:us-east-1:000000000000:function:" + spec["function"]
    context = SimpleNamespace(function_name=spec["function"], function_version="$LATEST", memory_limit_in_mb=256,
        aws_request_id="cold", invoked_function_arn=arn, get_remaining_time_in_millis=lambda: 30000)
    statuses = []
    first = imported
    for event in [spec["event"]] * (2 if spec["event"] is not None else 0):
        answer = handler(event, context)
        statuses.append(answer.get("statusCode", 200) if isinstance(answer, dict) else 200)
        if len(statuses) == 1:
            first = time.perf_counter()
    warm = time.perf_counter()
    assert all(status < 500 for status in statuses), statuses
leaked = sorted(name for name in spec.get("watch", []) if name in sys.modules)
sys.stderr.flush()
print(json.dumps({"import_ms": (imported - start) * 1000,
    "import_cpu_ms": (imported_cpu - start_cpu) * 1000, "first_ms": (first - imported) * 1000,
    "warm_ms": (warm - first) * 1000, "loaded": leaked}), file=sys.__stdout__)
"""

# What ADOT's wrapper (`AWS_LAMBDA_EXEC_WRAPPER=/opt/otel-instrument`) sets up before the handler module is
# imported: an SDK tracer provider with X-Ray ids and an OTLP/HTTP exporter, botocore instrumented. The layer
# (aws-opentelemetry-distro) configures more than this, so the figure is a lower bound for ADOT.
OTEL_BOOTSTRAP = """
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
from opentelemetry.propagate import set_global_textmap
from opentelemetry.propagators.aws import AwsXRayPropagator
from opentelemetry.sdk.extension.aws.trace import AwsXRayIdGenerator
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
provider = TracerProvider(id_generator=AwsXRayIdGenerator())
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint="http://127.0.0.1:4318/v1/traces")))
trace.set_tracer_provider(provider)
set_global_textmap(AwsXRayPropagator())
BotocoreInstrumentor().instrument()
"""
OTEL_REQUIREMENTS = ROOT / "bench" / "otel-requirements.txt"
OTEL_SITE = ROOT / ".local" / "bench-otel"


@dataclass
class ColdFigures:
    name: str
    import_ms: list[float] = field(default_factory=list)
    first_ms: list[float] = field(default_factory=list)
    warm_ms: list[float] = field(default_factory=list)
    loaded: set[str] = field(default_factory=set)
    ratios: list[float] = field(default_factory=list)  # import / the paired baseline's import
    cpu_ratios: list[float] = field(default_factory=list)  # the same in CPU time (process_time)

    def add(self, figures: dict[str, Any]) -> None:
        self.import_ms.append(figures["import_ms"])
        self.first_ms.append(figures["first_ms"])
        self.warm_ms.append(figures["warm_ms"])
        self.loaded.update(figures["loaded"])

    @property
    def import_p50(self) -> float:
        return statistics.median(self.import_ms)

    @property
    def ratio_p50(self) -> float:
        return statistics.median(self.ratios)

    @property
    def cpu_ratio_p50(self) -> float:
        return statistics.median(self.cpu_ratios)

    @property
    def invoked(self) -> bool:
        return any(self.first_ms)

    @property
    def first_extra_p50(self) -> float:
        return statistics.median(f - w for f, w in zip(self.first_ms, self.warm_ms, strict=True))

    @property
    def warm_p50(self) -> float:
        return statistics.median(self.warm_ms)


def deployed_path(tracing: str) -> str:
    """Lambda's import path for this stack: function code, shared layer, dependencies layer (host twin; with the
    X-Ray SDK only for tracing=xray-sdk, as deployed)."""
    from infra import dependency_layer

    with_xray_sdk = tracing == "xray-sdk"
    site = dependency_layer.layer_root(dependency_layer.HOST_PLATFORM, with_xray_sdk=with_xray_sdk) / "python"
    return os.pathsep.join(str(p) for p in (ROOT / "functions", ROOT / "functions" / "layer" / "python", site))


def otel_site() -> Path:
    """The OpenTelemetry packages ADOT's layer brings, pinned in bench/otel-requirements.txt (installed once)."""
    if not (OTEL_SITE / "opentelemetry").is_dir():
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run(
            [*pip, "--target", str(OTEL_SITE), "--requirement", str(OTEL_REQUIREMENTS)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return OTEL_SITE


def lambda_environment(endpoint: str, table: str, function: str, tracing: str) -> dict[str, str]:
    """What a function of the stack sees (infra/functions.py), pointed at DynamoDB Local, tracing as chosen."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": deployed_path(tracing),
        "PYTHONHASHSEED": "random",
        "TABLE_NAME": table,
        "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_LAMBDA_FUNCTION_NAME": function,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
        "LAMBDA_TASK_ROOT": str(ROOT / "functions"),
        "_X_AMZN_TRACE_ID": "Root=1-67890abc-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1",
        "POWERTOOLS_SERVICE_NAME": "ddbguard",
        "POWERTOOLS_METRICS_NAMESPACE": "ddbguard",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "DDBGUARD_TRACING": tracing,
    }
    if tracing == "otel":
        env["PYTHONPATH"] += os.pathsep + str(otel_site())
        env["OTEL_SERVICE_NAME"] = function
    return env


def run_once(spec: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-S", "-B", "-c", _CHILD],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT / "functions",
    )
    if done.returncode != 0:
        raise RuntimeError(f"cold run of {spec['module']} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


@dataclass
class ColdCase:
    """One row: a handler module, the event its two invocations get, and the tracing provider."""

    name: str
    module: str
    function: str
    event: Any
    tracing: str
    bootstrap: str = ""


def measure(
    cases: list[ColdCase], endpoint: str, table: str, rounds: int, watch: list[str]
) -> tuple[ColdFigures, list[ColdFigures]]:
    """Interleaved pairs: for each case, a baseline process right before the case's process, `rounds` times over
    all cases; each pair gives one ratio, taken while the machine's load was the same for both sides. The first
    round applies each event's effect once; later rounds repeat the same work (a replay or the same refusal)."""
    base_env = lambda_environment(endpoint, table, "boto3", "active")
    baseline = ColdFigures("import boto3")
    rows = [ColdFigures(case.name) for case in cases]
    envs = [lambda_environment(endpoint, table, case.function, case.tracing) for case in cases]
    specs = [
        {
            "module": case.module,
            "function": case.function,
            "event": case.event,
            "table": table,
            "bootstrap": case.bootstrap,
            "watch": watch,
        }
        for case in cases
    ]
    for _ in range(rounds):
        for row, spec, env in zip(rows, specs, envs, strict=True):
            base = run_once({"module": "boto3", "table": table}, base_env)
            baseline.add(base)
            figures = run_once(spec, env)
            row.add(figures)
            row.ratios.append(figures["import_ms"] / base["import_ms"])
            row.cpu_ratios.append(figures["import_cpu_ms"] / base["import_cpu_ms"])
    return baseline, rows


def top_imports(module: str, env: dict[str, str], count: int = 5) -> str:
    """The heaviest top-level packages a fresh `import module` pulls in (-X importtime, self time summed, ms)."""
    done = subprocess.run(
        [sys.executable, "-S", "-B", "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT / "functions",
    )
    cost: dict[str, int] = {}
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[0].split(":")[-1].strip().isdigit():
            continue
        root = parts[2].strip().split(".")[0]
        cost[root] = cost.get(root, 0) + int(parts[0].split(":")[-1])
    heaviest = sorted(cost.items(), key=lambda kv: -kv[1])[:count]
    return ", ".join(f"{name} {us / 1000:.0f}" for name, us in heaviest)


# --- the section ---------------------------------------------------------------------------------

TARGET = 1.5
STRETCH = 1.25
# Modules the deployed configuration never needs at import; the rows say which ones a handler loaded anyway.
WATCHED = ["aws_xray_sdk", "opentelemetry", "pydantic", "aws_lambda_powertools.utilities.parser"]


# One new-entry record whose entry does not exist: the settler reads it (one GetItem) and has nothing to do.
_STREAM_EVENT = {
    "Records": [
        {
            "eventID": "cold-1",
            "eventName": "INSERT",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:000000000000:table/ddbguard-bench/stream/cold",
            "dynamodb": {
                "Keys": {"PK": {"S": "ACCT#cold-start"}, "SK": {"S": "TXN#COLDSTART"}},
                "SequenceNumber": "1",
                "StreamViewType": "KEYS_ONLY",
            },
        }
    ]
}


def _cases(operations: set[str] | None, tracing: str) -> list[ColdCase]:
    import routes
    from infra import constants
    from local.events import sample_event

    cases = []
    for route in routes.ROUTES:
        if operations is None or route.operation in operations:
            event = {k: v for k, v in sample_event(route).items() if k != "description"}
            cases.append(ColdCase(route.operation, route.handler, f"ddbguard-{route.operation}", event, tracing))
    extra: list[tuple[str, str, dict[str, Any] | None]] = [
        ("settle_entries (stream)", constants.SETTLEMENT_HANDLER, _STREAM_EVENT),
        ("audit_locks (schedule, import only)", constants.AUDIT_HANDLER, None),
    ]
    for name, handler, extra_event in extra:
        if operations is None or name.split(" ")[0] in operations:
            module = handler.rsplit(".", 1)[0]
            cases.append(ColdCase(name, module, f"ddbguard-{module.split('.')[-1]}", extra_event, tracing))
    return cases


def _tracing_cases(tracing_default: str) -> list[ColdCase]:
    import routes
    from local.events import sample_event

    route = routes.by_operation("deposit")
    event = {k: v for k, v in sample_event(route).items() if k != "description"}
    cases = []
    for provider, bootstrap in (("active", ""), ("xray-sdk", ""), ("otel", OTEL_BOOTSTRAP)):
        if provider != tracing_default:
            name = f"deposit, tracing={provider}"
            cases.append(ColdCase(name, route.handler, "ddbguard-deposit", event, provider, bootstrap))
    return cases


def _verdict(ratio: float) -> str:
    if ratio <= STRETCH:
        return f"ok (<= {STRETCH}x)"
    return "ok" if ratio <= TARGET else f"MISSED (target <= {TARGET}x)"


def section(endpoint: str, table: str, rounds: int, operations: set[str] | None, tracing_default: str) -> str:
    from local.seed import seed_demo_world

    seed_demo_world()  # the sample events act on the demo world
    cases = _cases(operations, tracing_default)
    tracing_cases = _tracing_cases(tracing_default)
    baseline, rows = measure(cases + tracing_cases, endpoint, table, rounds, WATCHED)
    handler_rows, tracing_rows = rows[: len(cases)], rows[len(cases) :]
    base = baseline.import_p50

    def line(row: ColdFigures) -> list[Any]:
        ratio = row.ratio_p50
        return [
            row.name,
            row.import_p50,
            f"{ratio:.2f}x ({min(row.ratios):.2f}-{max(row.ratios):.2f})",
            _verdict(ratio),
            f"{row.cpu_ratio_p50:.2f}x",
            row.first_extra_p50 if row.invoked else "-",
            row.warm_p50 if row.invoked else "-",
            ", ".join(sorted(row.loaded)) or "none",
        ]

    from bench import results

    headers = [
        "handler",
        "import ms (p50)",
        "import / paired import boto3, p50 (range)",
        "target",
        "same in CPU time, p50",
        "1st invocation extra over warm ms (p50)",
        "warm invocation ms (p50)",
        "watched modules loaded",
    ]
    table_text = results.table(headers, [line(row) for row in handler_rows])
    deposit = next((row for row in handler_rows if row.name == "deposit"), None)
    tracing_table = results.table(
        [
            "tracing provider (deposit)",
            "import ms (p50)",
            "import / import boto3",
            "vs default",
            "1st extra ms",
            "watched modules loaded",
        ],
        [
            [
                row.name,
                row.import_p50,
                f"{row.ratio_p50:.2f}x ({min(row.ratios):.2f}-{max(row.ratios):.2f})",
                f"{row.ratio_p50 - deposit.ratio_p50:+.2f}x" if deposit else "-",
                row.first_extra_p50,
                ", ".join(sorted(row.loaded)) or "none",
            ]
            for row in ([deposit] if deposit else []) + tracing_rows
        ],
    )
    missed = [row for row in handler_rows if row.ratio_p50 > TARGET]
    env = lambda_environment(endpoint, table, "cold", tracing_default)
    notes = [
        f"Missed: {row.name} ({row.ratio_p50:.2f}x); heaviest packages at import (self ms under -X "
        f"importtime): {top_imports(next(c.module for c in cases if c.name == row.name), env)}"
        for row in missed
    ]
    ratios = [row.ratio_p50 for row in handler_rows]
    summary = (
        f"Every handler within {TARGET}x." if not missed else f"{len(missed)} of {len(handler_rows)} above {TARGET}x."
    )
    return "\n\n".join(
        [
            f"## 3b. Cold init, as deployed (fresh process per figure, {rounds} interleaved rounds, medians)",
            f"Command: `{results.command_line()}`, load average {os.getloadavg()[0]:.1f} at the end of this section. "
            f"Baseline: `import boto3` {base:.0f} ms (p50 of {rounds}) from the same dependencies layer; its "
            f"client + first PutItem {statistics.median(baseline.first_ms):.0f} ms, a warm PutItem "
            f"{baseline.warm_p50:.1f} ms. Default tracing provider: `{tracing_default}`. Handler import ratios "
            f"{min(ratios):.2f}x-{max(ratios):.2f}x. {summary}",
            __doc__.split("\n\n", 1)[1].strip().replace("\n", " "),
            table_text,
            *notes,
            "### Tracing options, measured on the deposit handler in the same rounds",
            "`otel` is the OpenTelemetry SDK set up as ADOT's wrapper does before the handler (tracer provider, "
            "X-Ray id generator and propagator, OTLP/HTTP exporter, botocore instrumentation; packages pinned in "
            "bench/otel-requirements.txt); its bootstrap is timed with the import, as it runs in Lambda's init.",
            tracing_table,
        ]
    )
