"""Section 3b: a cold start as a caller meets it, for every handler: the import, and init plus the first request.

As deployed: each figure is a fresh `python3.13 -S -B` process, on a 3.13 patch release with CPython's fix for
frame-chunk thrashing (bench/runtime_python.py; Lambda's managed runtime takes patch releases with its automatic
runtime updates, and the benchmark machine's 3.13.0 predates the fix), with `PYTHONDONTWRITEBYTECODE=1` (nothing is
written, as on Lambda's read-only file system), whose path is only what Lambda's would hold, built as the stack
builds it: the function code (the code asset as staged with its bytecode, infra/staged_assets.py; also the working
directory), the shared layer as staged with its bytecode (infra/staged_assets.py) and the dependencies layer's
host-platform twin with its bytecode (infra/dependency_layer.py); the environment the stack sets, tracing
provider included; none of the venv's packages.

Two processes per row and round, interleaved (the order alternates by round, so neither side is always second).
The handler: its import (module init), then its first invocation with the row's sample event (a fresh
Idempotency-Key each round, so each round does the work again instead of replaying), whose DynamoDB calls are
recorded. The bare handler: `import boto3`, a client (when there is a call to make) and the same DynamoDB calls
against the same DynamoDB Local, a refusal replayed as a refusal; its `import boto3` is the import baseline.
A row's ratio is the median of its pairs' ratios (each pair taken under the same load on the shared machine).
Times start at the process's first line (the interpreter's own start, the same for both, is left out, which makes
the ratios stricter). CPU time (`process_time`) is shown beside wall time because it does not count waiting for a
core, most of the noise on a loaded machine.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import re
import statistics
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.runtime_python import runtime_python, version_of
from local.paths import ROOT

# Runs in the fresh process. `spec` comes on stdin; the figures go to the real stdout as the last line.
_CHILD = r"""
import json, sys, time
spec = json.loads(sys.stdin.read())
start, start_cpu = time.perf_counter(), time.process_time()
exec(spec.get("bootstrap") or "")
calls, outcomes = [], []
if spec["module"] == "boto3":  # the bare handler: the same DynamoDB calls, nothing else
    import boto3
    imported, imported_cpu = time.perf_counter(), time.process_time()
    import base64, pickle
    from botocore.config import Config
    from botocore.exceptions import ClientError
    config = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2, read_timeout=60)
    replayed = pickle.loads(base64.b64decode(spec["calls"]))
    client = boto3.session.Session().client("dynamodb", config=config) if replayed else None
    for operation, params in replayed:
        try:
            getattr(client, operation)(**params)
            outcomes.append("ok")
        except ClientError as error:  # a refusal replays as a refusal
            outcomes.append(error.response["Error"]["Code"])
else:
    import importlib
    handler = importlib.import_module(spec["module"]).handler
    imported, imported_cpu = time.perf_counter(), time.process_time()
    if spec["event"] is not None:
        import copy, re
        from botocore.client import BaseClient
        sent = BaseClient._make_api_call

        def recorded(client, operation, params):
            calls.append((re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower(), copy.deepcopy(params)))
            return sent(client, operation, params)

        BaseClient._make_api_call = recorded
        from types import SimpleNamespace
        arn = "arn:aws:lambda:us-east-1:000000000000:function:" + spec["function"]
        context = SimpleNamespace(function_name=spec["function"], function_version="$LATEST", memory_limit_in_mb=256,
            aws_request_id="cold", invoked_function_arn=arn, get_remaining_time_in_millis=lambda: 30000)
        answer = handler(spec["event"], context)
        BaseClient._make_api_call = sent
        outcomes.append(answer.get("statusCode", 200) if isinstance(answer, dict) else 200)
first, first_cpu = time.perf_counter(), time.process_time()
import base64, pickle
# The process's own peak (ru_maxrss would carry over the parent's from before exec).
peak_kib = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
leaked = sorted(name for name in spec.get("watch", []) if name in sys.modules)
sys.stderr.flush()
print(json.dumps({"import_ms": (imported - start) * 1000, "import_cpu_ms": (imported_cpu - start_cpu) * 1000,
    "init_first_ms": (first - start) * 1000, "init_first_cpu_ms": (first_cpu - start_cpu) * 1000,
    "max_rss_mib": peak_kib / 1024, "outcomes": outcomes,
    "calls": base64.b64encode(pickle.dumps(calls)).decode(), "loaded": leaked}), file=sys.__stdout__)
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
    """One side's figures over the rounds (a handler, or its bare twin)."""

    name: str
    import_ms: list[float] = field(default_factory=list)
    import_cpu_ms: list[float] = field(default_factory=list)
    init_first_ms: list[float] = field(default_factory=list)
    init_first_cpu_ms: list[float] = field(default_factory=list)
    max_rss_mib: list[float] = field(default_factory=list)
    outcomes: list[list[Any]] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    loaded: set[str] = field(default_factory=set)

    def add(self, figures: dict[str, Any]) -> None:
        self.import_ms.append(figures["import_ms"])
        self.import_cpu_ms.append(figures["import_cpu_ms"])
        self.init_first_ms.append(figures["init_first_ms"])
        self.init_first_cpu_ms.append(figures["init_first_cpu_ms"])
        self.max_rss_mib.append(figures["max_rss_mib"])
        self.outcomes.append(figures["outcomes"])
        self.calls.append(len(_calls(figures)))
        self.loaded.update(figures["loaded"])


@dataclass
class ColdRow:
    """A handler and its bare twin, measured in pairs; each pair gives one ratio of each kind."""

    case: ColdCase
    handler: ColdFigures
    bare: ColdFigures
    import_ratios: list[float] = field(default_factory=list)  # handler import / bare `import boto3`
    import_cpu_ratios: list[float] = field(default_factory=list)
    first_ratios: list[float] = field(default_factory=list)  # handler init + 1st request / bare init + same calls
    first_cpu_ratios: list[float] = field(default_factory=list)

    def pair(self, handler: dict[str, Any], bare: dict[str, Any]) -> None:
        self.handler.add(handler)
        self.bare.add(bare)
        self.import_ratios.append(handler["import_ms"] / bare["import_ms"])
        self.import_cpu_ratios.append(handler["import_cpu_ms"] / bare["import_cpu_ms"])
        if self.case.event is not None:
            self.first_ratios.append(handler["init_first_ms"] / bare["init_first_ms"])
            self.first_cpu_ratios.append(handler["init_first_cpu_ms"] / bare["init_first_cpu_ms"])

    @property
    def invoked(self) -> bool:
        return bool(self.first_ratios)


def _calls(figures: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = pickle.loads(base64.b64decode(figures["calls"]))
    return calls


def _p50(values: list[float]) -> float:
    return statistics.median(values)


def _spread(values: list[float]) -> str:
    return f"{_p50(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


@contextmanager
def deployed_code() -> Iterator[Path]:
    """The function code asset as the stack builds it (functions/ without the layer, caches and tests, staged with
    its bytecode: infra/staged_assets.py)."""
    from infra import staged_assets

    yield staged_assets.code_root()


def deployed_path(code: Path, tracing: str) -> str:
    """Lambda's import path for this stack: function code, then the layers' python/ folders as built for deploy
    (the shared layer staged with bytecode; the dependencies layer's host twin, with the X-Ray SDK only for
    tracing=xray-sdk, as deployed)."""
    from infra import dependency_layer, staged_assets

    with_xray_sdk = tracing == "xray-sdk"
    site = dependency_layer.layer_root(dependency_layer.HOST_PLATFORM, with_xray_sdk=with_xray_sdk) / "python"
    return os.pathsep.join(str(p) for p in (code, staged_assets.layer_root() / "python", site))


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


def lambda_environment(code: Path, endpoint: str, table: str, function: str, tracing: str) -> dict[str, str]:
    """What a function of the stack sees (infra/functions.py), pointed at DynamoDB Local, tracing as chosen."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": deployed_path(code, tracing),
        "PYTHONHASHSEED": "random",
        "PYTHONDONTWRITEBYTECODE": "1",
        "TABLE_NAME": table,
        "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_LAMBDA_FUNCTION_NAME": function,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
        "LAMBDA_TASK_ROOT": str(code),
        "_X_AMZN_TRACE_ID": "Root=1-67890abc-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1",
        "POWERTOOLS_SERVICE_NAME": "ddbguard",
        "POWERTOOLS_METRICS_NAMESPACE": "ddbguard",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "DDBGUARD_TRACING": tracing,
        # Against DynamoDB Local, as every local run (local/runtime_env.py): a pause of seconds is load, not a fault,
        # and a 503 busy would end the section. The bare side's client waits as long (_CHILD).
        "DDBGUARD_DYNAMODB_READ_TIMEOUT_S": "60",
    }
    if tracing == "otel":
        env["PYTHONPATH"] += os.pathsep + str(otel_site())
        env["OTEL_SERVICE_NAME"] = function
    return env


def run_once(spec: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [runtime_python(), "-S", "-B", "-c", _CHILD],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        env=env,
        cwd=env["LAMBDA_TASK_ROOT"],
    )
    if done.returncode != 0:
        raise RuntimeError(f"cold run of {spec['module']} failed:\n{done.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


@dataclass
class ColdCase:
    """One row: a handler module, the event its first invocation gets, and the tracing provider."""

    name: str
    module: str
    function: str
    event: Any
    tracing: str
    bootstrap: str = ""


_IDEMPOTENCY_KEY = re.compile("idempotency-key", re.IGNORECASE)


def fresh_event(event: Any) -> Any:
    """The event with a new Idempotency-Key (when it has one): the round does the work again instead of replaying
    the first round's stored response."""
    if not isinstance(event, dict) or not isinstance(event.get("headers"), dict):
        return event
    key = str(uuid.uuid4())
    event = {**event, "headers": {h: key if _IDEMPOTENCY_KEY.fullmatch(h) else v for h, v in event["headers"].items()}}
    if isinstance(event.get("multiValueHeaders"), dict):
        event["multiValueHeaders"] = {
            h: [key] if _IDEMPOTENCY_KEY.fullmatch(h) else v for h, v in event["multiValueHeaders"].items()
        }
    return event


def measure(
    cases: list[ColdCase], endpoint: str, table: str, rounds: int, watch: list[str], settle: Callable[[], object]
) -> list[ColdRow]:
    """One untimed round applies each event's effect and warms the file cache; then `rounds` rounds over all cases,
    each a handler process and a bare process, the bare one replaying the calls the latest handler process made.
    The order inside a pair alternates by round. `settle` runs after every round, between processes, as the
    settlement function would: the money rows move the same demo ledger, whose unsettled values are bounded."""
    rows = [ColdRow(case, ColdFigures(case.name), ColdFigures(f"bare {case.name}")) for case in cases]
    with deployed_code() as code:
        envs = [lambda_environment(code, endpoint, table, case.function, case.tracing) for case in cases]
        bare_env = lambda_environment(code, endpoint, table, "bare", "active")

        def handler_run(case: ColdCase, env: dict[str, str]) -> dict[str, Any]:
            spec = {
                "module": case.module,
                "function": case.function,
                "event": fresh_event(case.event),
                "bootstrap": case.bootstrap,
                "watch": watch,
            }
            figures = run_once(spec, env)
            if any(isinstance(status, int) and status >= 500 for status in figures["outcomes"]):
                raise RuntimeError(f"{case.name} answered {figures['outcomes']}")
            return figures

        def bare_run(calls: str) -> dict[str, Any]:
            return run_once({"module": "boto3", "calls": calls, "watch": watch}, bare_env)

        latest = {row.case.name: handler_run(row.case, env)["calls"] for row, env in zip(rows, envs, strict=True)}
        settle()
        for round_index in range(rounds):
            for row, env in zip(rows, envs, strict=True):
                if round_index % 2 == 0:
                    handler = handler_run(row.case, env)
                    bare = bare_run(handler["calls"])
                else:
                    bare = bare_run(latest[row.case.name])
                    handler = handler_run(row.case, env)
                latest[row.case.name] = handler["calls"]
                row.pair(handler, bare)
            settle()
    return rows


def top_imports(module: str, env: dict[str, str], count: int = 5) -> str:
    """The heaviest top-level packages a fresh `import module` pulls in (-X importtime, self time summed, ms)."""
    done = subprocess.run(
        [runtime_python(), "-S", "-B", "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        env=env,
        cwd=env["LAMBDA_TASK_ROOT"],
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

# A cold start a caller barely notices: the import within 1.25x of `import boto3`, init plus the first request
# within 1.5x of a bare boto3 handler making the same calls.
IMPORT_TARGET = 1.25
FIRST_TARGET = 1.5
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


def _verdict(ratio: float, target: float) -> str:
    return f"ok (<= {target}x)" if ratio <= target else f"MISSED (target <= {target}x)"


def _calls_summary(row: ColdRow) -> str:
    """The DynamoDB calls of the row's latest first request, and how the bare replay of them ended."""
    if not row.invoked:
        return "-"
    counts = sorted(set(row.handler.calls))
    return "/".join(map(str, counts)) + f" ({', '.join(sorted({str(o) for o in row.bare.outcomes[-1]})) or 'none'})"


def section(
    endpoint: str,
    table: str,
    rounds: int,
    operations: set[str] | None,
    tracing_default: str,
    settle: Callable[[], object],
) -> str:
    from local.seed import seed_demo_world

    seed_demo_world()  # the sample events act on the demo world
    cases = _cases(operations, tracing_default)
    tracing_cases = _tracing_cases(tracing_default)
    rows = measure(cases + tracing_cases, endpoint, table, rounds, WATCHED, settle)
    handler_rows, tracing_rows = rows[: len(cases)], rows[len(cases) :]
    bare_imports = [ms for row in handler_rows for ms in row.bare.import_ms]
    bare_firsts = [ms for row in handler_rows if row.invoked for ms in row.bare.init_first_ms]

    def line(row: ColdRow) -> list[Any]:
        first = row.invoked
        return [
            row.case.name,
            _p50(row.handler.import_ms),
            _spread(row.import_ratios),
            _verdict(_p50(row.import_ratios), IMPORT_TARGET),
            f"{_p50(row.import_cpu_ratios):.2f}x",
            _p50(row.handler.init_first_ms) if first else "-",
            _p50(row.bare.init_first_ms) if first else "-",
            _spread(row.first_ratios) if first else "-",
            _verdict(_p50(row.first_ratios), FIRST_TARGET) if first else "-",
            f"{_p50(row.first_cpu_ratios):.2f}x" if first else "-",
            f"{_p50(row.handler.max_rss_mib):.0f} / {_p50(row.bare.max_rss_mib):.0f}",
            _calls_summary(row),
            ", ".join(sorted(row.handler.loaded)) or "none",
        ]

    from bench import results

    headers = [
        "handler",
        "import ms (p50)",
        "import / bare `import boto3`, p50 (range)",
        "import target",
        "same in CPU time",
        "init + 1st request ms (p50)",
        "bare: init + same calls ms (p50)",
        "init + 1st / bare, p50 (range)",
        "init + 1st target",
        "same in CPU time",
        "peak RSS MiB, handler / bare",
        "DynamoDB calls (bare replay's outcomes)",
        "watched modules loaded",
    ]
    table_text = results.table(headers, [line(row) for row in handler_rows])
    deposit = next((row for row in handler_rows if row.case.name == "deposit"), None)
    tracing_table = results.table(
        [
            "tracing provider (deposit)",
            "import / bare import",
            "init + 1st / bare",
            "init + 1st ms (p50)",
            "watched modules loaded",
        ],
        [
            [
                row.case.name,
                _spread(row.import_ratios),
                _spread(row.first_ratios),
                _p50(row.handler.init_first_ms),
                ", ".join(sorted(row.handler.loaded)) or "none",
            ]
            for row in ([deposit] if deposit else []) + tracing_rows
        ],
    )
    import_missed = [row for row in handler_rows if _p50(row.import_ratios) > IMPORT_TARGET]
    first_missed = [row for row in handler_rows if row.invoked and _p50(row.first_ratios) > FIRST_TARGET]
    notes = []
    if import_missed:
        with deployed_code() as code:
            env = lambda_environment(code, endpoint, table, "cold", tracing_default)
            notes = [
                f"Import above {IMPORT_TARGET}x: {row.case.name} ({_p50(row.import_ratios):.2f}x); heaviest packages "
                f"at import (self ms under -X importtime): {top_imports(row.case.module, env)}"
                for row in import_missed
            ]
    import_ratios = [_p50(row.import_ratios) for row in handler_rows]
    first_ratios = [_p50(row.first_ratios) for row in handler_rows if row.invoked]
    summary = (
        f"Import: {len(handler_rows) - len(import_missed)} of {len(handler_rows)} rows within {IMPORT_TARGET}x "
        f"({min(import_ratios):.2f}x-{max(import_ratios):.2f}x). Init + first request: "
        f"{len(first_ratios) - len(first_missed)} of {len(first_ratios)} invoked rows within {FIRST_TARGET}x "
        f"({min(first_ratios, default=0):.2f}x-{max(first_ratios, default=0):.2f}x)."
    )
    return "\n\n".join(
        [
            f"## 3b. Cold start, as deployed (fresh processes, {rounds} interleaved rounds, medians)",
            f"Command: `{results.command_line()}`, load average {os.getloadavg()[0]:.1f} at the end of this section; "
            f"both sides on Python {'.'.join(map(str, version_of(Path(runtime_python()))))}. "
            f"Bare handler: `import boto3` {_p50(bare_imports):.0f} ms (p50 over every pair), its init plus the "
            f"same DynamoDB calls {_p50(bare_firsts):.0f} ms. Default tracing provider: `{tracing_default}`. "
            f"{summary}",
            __doc__.split("\n\n", 1)[1].strip().replace("\n", " "),
            table_text,
            *notes,
            "### Tracing options, measured on the deposit handler in the same rounds",
            "`otel` is the OpenTelemetry SDK set up as ADOT's wrapper does before the handler (tracer provider, "
            "X-Ray id generator and propagator, OTLP/HTTP exporter, botocore instrumentation; packages pinned in "
            "bench/otel-requirements.txt); its bootstrap is timed with the import, as it runs in Lambda's init. "
            "Its bare twin is the same bare handler as every row's (active tracing: nothing in the process).",
            tracing_table,
        ]
    )
