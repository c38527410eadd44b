"""What importing a handler loads, as deployed by default: modules its init never needs stay unloaded.

Cold init is what a quiet service's users wait for (bench/cold.py measures it); this pins its causes, by module
rather than by time. Each handler is imported in a process of its own (forked from a bare interpreter, one per
handler) with the environment a deployed function has, and the test reads that process's `sys.modules`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import routes
from infra import constants
from local.paths import ROOT

HANDLERS = [route.handler for route in routes.ROUTES] + [
    handler.rsplit(".", 1)[0] for handler in (constants.AUDIT_HANDLER, constants.SETTLEMENT_HANDLER)
]

# Never needed at import by the default configuration (tracing=active):
NEVER_AT_IMPORT = (
    "aws_xray_sdk",  # only with tracing=xray-sdk
    "opentelemetry",  # brought by ADOT's wrapper, never by ddbguard
    "pydantic",  # bodies are validated by pydantic-core alone (ddbguard_api.models.body_validation)
    "pydantic_core",
    "ddbguard_api.models.request_models",  # the pydantic models: what describes the API (local/) only
    "ddbguard_api.models.entity_models",
    "ddbguard_api.models.response_models",
    "ddbguard_api.models.compiled_schemas",  # the schemas: built into a validator at the first request
    # The edge is written out in ddbguard_api.http.endpoint: no resolver, so none of Powertools' event handler package
    # (its __init__ imports every resolver).
    "aws_lambda_powertools.event_handler",
    "aws_lambda_powertools.utilities.parser",
    "aws_lambda_powertools.utilities.validation",
    "aws_lambda_powertools.event_handler.openapi.models",
    # The settlement reports failed records itself: Powertools' batch package imports every event data class and
    # asyncio.
    "aws_lambda_powertools.utilities.batch",
    "aws_lambda_powertools.utilities.data_classes",
    "asyncio",
)
# Never needed by some functions: a route that takes no Idempotency-Key never runs the replay cache, and a route
# that touches no table never creates a DynamoDB client.
KEYED_ONLY = ("aws_lambda_powertools.utilities.idempotency",)
# A dataclass is built at import by generating and compiling its methods' source (0.6-1.9 ms each, cold):
# ddbguard's records are plain classes with `__slots__` and a keyword-only `__init__` (built without compiling;
# docs/decisions/ "Records are classes with slots"), NamedTuples of at most three fields, or dataclasses where they
# need what only a dataclass does (derived defaults in __post_init__, default factories, fields left out of
# comparison). This is the whole list a handler builds at import, so a new one is a decision, not an accident.
DATACLASSES_AT_IMPORT = {
    "ddbguard.guards.entity.Entity",  # __post_init__ derives the defaults, `fields` left out of comparison
    "ddbguard.domain.lock_audit.AuditReport",  # mutable: a segment's findings accumulate in it
    "ddbguard.domain.audit_scan.SegmentResult",
}
# Modules whose classes are ddbguard's own (the layer, the edge, the route table).
OWN_PACKAGES = {"ddbguard", "ddbguard_api", "routes"}
TABLE_ONLY = ("boto3",)


def _never_at_import(handler: str) -> tuple[str, ...]:
    route = next((route for route in routes.ROUTES if route.handler == handler), None)
    never: tuple[str, ...] = NEVER_AT_IMPORT
    if route is not None and route.idempotency == "none":
        never += KEYED_ONLY
    if route is not None and not route.table_access:
        never += TABLE_ONLY
    return never


_PROBE = r"""
import json, os, sys
handlers, watched, OWN = json.loads(sys.argv[1]), json.loads(sys.argv[2]), set(json.loads(sys.argv[3]))
children = {}
for handler in handlers:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        __import__(handler)
        loaded = sorted(name for name in watched if name in sys.modules)
        built = sorted(
            f"{module.__name__}.{name}"
            for module in list(sys.modules.values())
            if module.__name__.partition(".")[0] in OWN
            for name, value in vars(module).items()
            if isinstance(value, type) and value.__module__ == module.__name__ and "__dataclass_fields__" in vars(value)
        )
        with os.fdopen(write, "w") as out:
            out.write(json.dumps({"loaded": loaded, "dataclasses": built}))
        os._exit(0)
    os.close(write)
    children[handler] = (pid, read)
found = {}
for handler, (pid, read) in children.items():
    with os.fdopen(read) as source:
        text = source.read()
    _, status = os.waitpid(pid, 0)
    found[handler] = json.loads(text) if status == 0 and text else "import failed"
print(json.dumps(found))
"""


def _deployed_environment(tracing: str) -> dict[str, str]:
    """As the stack sets it (infra/functions.py): no POWERTOOLS_TRACE_DISABLED, a Lambda function name."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POWERTOOLS_", "DDBGUARD_", "AWS_LAMBDA_"))}
    env.update(
        {
            "TABLE_NAME": "ddbguard",
            "AWS_REGION": "us-east-1",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_LAMBDA_FUNCTION_NAME": "ddbguard-footprint",
            "POWERTOOLS_SERVICE_NAME": "ddbguard",
            "POWERTOOLS_METRICS_NAMESPACE": "ddbguard",
            "DDBGUARD_TRACING": tracing,
        }
    )
    return env


def _loaded(handlers: list[str], tracing: str) -> dict[str, object]:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _PROBE,
            json.dumps(handlers),
            json.dumps([*NEVER_AT_IMPORT, *KEYED_ONLY, *TABLE_ONLY]),
            json.dumps(sorted(OWN_PACKAGES)),
        ],
        capture_output=True,
        text=True,
        env=_deployed_environment(tracing),
        cwd=ROOT / "functions",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _probed(footprint: dict[str, object], handler: str) -> dict[str, list[str]]:
    probed = footprint[handler]
    assert isinstance(probed, dict), f"{handler}: {probed}"
    return probed


@pytest.fixture(scope="module")
def default_footprint() -> dict[str, object]:
    return _loaded(HANDLERS, "active")


@pytest.mark.parametrize("handler", HANDLERS)
def test_importing_a_handler_leaves_what_init_never_needs_unloaded(
    default_footprint: dict[str, object], handler: str
) -> None:
    loaded = _probed(default_footprint, handler)["loaded"]
    unneeded = [name for name in loaded if name in _never_at_import(handler)]
    assert unneeded == [], f"{handler} loads at import: {unneeded}"


@pytest.mark.parametrize("handler", HANDLERS)
def test_importing_a_handler_builds_only_the_listed_dataclasses(
    default_footprint: dict[str, object], handler: str
) -> None:
    built = set(_probed(default_footprint, handler)["dataclasses"])
    assert built <= DATACLASSES_AT_IMPORT, f"{handler} builds at import: {sorted(built - DATACLASSES_AT_IMPORT)}"


def test_the_dataclass_probe_sees_the_ones_every_handler_builds(default_footprint: dict[str, object]) -> None:
    """Not vacuous: the route table's entity declarations are dataclasses every route's handler builds."""
    for handler in (route.handler for route in routes.ROUTES):
        assert "ddbguard.guards.entity.Entity" in _probed(default_footprint, handler)["dataclasses"], handler


def test_the_per_route_expectations_apply_somewhere(default_footprint: dict[str, object]) -> None:
    """Not vacuous: read-only and table-free routes exist, and keyed routes do load what read-only ones must not."""
    keyed = [route.handler for route in routes.ROUTES if route.idempotency != "none"]
    assert any(KEYED_ONLY[0] in _never_at_import(route.handler) for route in routes.ROUTES)
    assert any(TABLE_ONLY[0] in _never_at_import(route.handler) for route in routes.ROUTES)
    for handler in keyed:
        loaded = _probed(default_footprint, handler)["loaded"]
        assert set(KEYED_ONLY) <= set(loaded), (handler, loaded)


def test_the_probe_sees_what_a_handler_does_load() -> None:
    """Not vacuous: with tracing=xray-sdk the same probe finds the X-Ray SDK (which imports asyncio)."""
    footprint = _loaded(["ledger.deposit"], "xray-sdk")
    loaded = _probed(footprint, "ledger.deposit")["loaded"]
    assert [name for name in loaded if name in NEVER_AT_IMPORT] == ["asyncio", "aws_xray_sdk"]
