"""What importing infra loads of the runtime code, pinned: a new import that drags handler or edge code into the
stack's synthesis fails here, and the list says exactly what infra depends on.

tests/infra/test_boundaries.py checks the import statements infra writes; this checks what they load in turn, in a
fresh interpreter (the test session itself has imported much more).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import routes

REPO_ROOT = Path(__file__).resolve().parents[2]

# The route table package and the modules in it that infra reads (table_patterns, generic for the table's own
# declarations, job_access), `Route` (ddbguard_api.http.route, a `Record`), what the entity declarations import,
# and the problem renderer API Gateway's own error bodies share with the handlers. The modules that declare the
# table's entities join from the route table itself (`_entity_declarations`): a resource added by the guide
# (docs/extending.md) is pinned by being declared.
CORE = {
    "routes",
    "routes.generic",
    "routes.table_patterns",
    "routes.job_access",
    "ddbguard",
    "ddbguard.errors",
    "ddbguard.limits",
    "ddbguard.records",
    "ddbguard.domain",
    "ddbguard.domain.entities",
    "ddbguard.domain.normalize",
    "ddbguard.guards",
    "ddbguard.guards.entity",
    "ddbguard.guards.entity_access",  # a route's access (routes.generic, ddbguard_cdk.grants)
    "ddbguard.guards.fields",
    "ddbguard.store",
    "ddbguard.store.confusables",
    "ddbguard.store.keys",
    "ddbguard.store.attribute_names",
    "ddbguard.store.readings",  # keys spells a lock from its readings (stdlib only; the data loads on use)
    "ddbguard.store.shapes",
    "ddbguard_api",
    "ddbguard_api.http",
    "ddbguard_api.http.route",
    "ddbguard_api.http.problems",
    "ddbguard_api.http.replies",
    "ddbguard_jobs",
    "ddbguard_jobs.access",  # the background jobs' access (routes.job_access)
    "ddbguard_jobs.entity_modules",  # which entities a team's audit checks (ddbguard_cdk.GuardedTable)
}


def _entity_declarations() -> set[str]:
    """The modules of ddbguard.domain.entities that declare an entity of the route table."""
    declared = {id(entity) for entity in routes.ENTITIES}
    return {
        name
        for name, module in list(sys.modules.items())
        if name.startswith("ddbguard.domain.entities.")
        and any(id(value) in declared for value in vars(module).values())
    }


PINNED = CORE | _entity_declarations()

# Libraries only a Lambda function needs: synthesis loads none of them.
FUNCTION_LIBRARIES = ("boto3", "botocore", "pydantic", "aws_lambda_powertools")

_PROBE = """
import json, sys
from pathlib import Path

import infra.stack  # noqa: F401

functions = Path("functions").resolve()
loaded = [
    name
    for name, module in list(sys.modules.items())
    if getattr(module, "__file__", None) and Path(module.__file__).resolve().is_relative_to(functions)
]
print(json.dumps({"runtime": sorted(loaded), "libraries": sorted(n for n in %r if n in sys.modules)}))
"""


def _loaded_by_infra() -> dict[str, list[str]]:
    env = {**os.environ, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20"}
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE % (FUNCTION_LIBRARIES,)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: dict[str, list[str]] = json.loads(probe.stdout.strip().splitlines()[-1])
    return loaded


def test_importing_infra_loads_exactly_the_pinned_runtime_modules() -> None:
    loaded = _loaded_by_infra()
    runtime = set(loaded["runtime"])
    assert runtime - PINNED == set(), "infra now loads more of the runtime code: import less, or pin it here"
    assert PINNED - runtime == set(), "infra no longer loads these: unpin them"
    assert loaded["libraries"] == []


def test_the_probe_sees_what_a_module_loads() -> None:
    """Not vacuous: the same probe, run on a handler-side import, finds the runtime modules it loads."""
    probe = _PROBE.replace("import infra.stack", "import routes, ddbguard.store.client")
    answer = subprocess.run(
        [sys.executable, "-c", probe % (FUNCTION_LIBRARIES,)], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    loaded = json.loads(answer.stdout.strip().splitlines()[-1])
    assert {"routes", "ddbguard.store.client"} <= set(loaded["runtime"]) and "boto3" in loaded["libraries"]
