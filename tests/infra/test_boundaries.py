"""Infra stays on its side of the line: of the runtime code it may import only the route table, the modules in its
package that infra reads, and the problem renderer API Gateway's own answers share with the handlers."""

from __future__ import annotations

import ast
import json
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
INFRA_SOURCES = [*sorted((REPO_ROOT / "infra").rglob("*.py")), REPO_ROOT / "app.py"]
# The runtime: the route table package (functions/routes/), the local tools, the layer's packages and every handler
# folder (found, not listed, so a new resource's folder or module is covered with no edit here).
RUNTIME_PACKAGES = (
    *sorted(p.stem for p in (REPO_ROOT / "functions").glob("*.py")),
    "functions",
    "local",
    *sorted(p.name for p in (REPO_ROOT / "functions" / "layer" / "python").iterdir() if (p / "__init__.py").exists()),
    *sorted(p.name for p in (REPO_ROOT / "functions").iterdir() if (p / "__init__.py").exists()),
)


def _imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            # `from functions import ledger` imports functions.ledger.
            modules.update(f"{node.module}.{alias.name}" for alias in node.names if node.module == "functions")
    return modules


# What infra may name of the runtime code: the table, the partition-key patterns and the background jobs' grants it
# turns into IAM, and the problem renderer (tests/infra/test_runtime_imports.py pins what these load in turn).
INFRA_READS = {"routes", "routes.table_patterns", "routes.job_access", "ddbguard_api.http.problems"}


def test_infra_imports_only_the_route_table_from_the_runtime_code() -> None:
    assert INFRA_SOURCES and "routes" in RUNTIME_PACKAGES and "ddbguard_api" in RUNTIME_PACKAGES
    for path in INFRA_SOURCES:
        for module in _imported_modules(path):
            root = module.split(".")[0]
            if root in RUNTIME_PACKAGES:
                assert module in INFRA_READS, f"{path.relative_to(REPO_ROOT)} imports {module}"


def test_infra_source_does_not_reach_runtime_code_by_other_means() -> None:
    for path in INFRA_SOURCES:
        text = path.read_text(encoding="utf-8")
        assert "sys.path" not in text, path
        assert "importlib" not in text, path
        assert "import_module" not in text, path


def test_cdk_json_runs_the_venv_python_without_telemetry() -> None:
    config = json.loads((REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))
    assert config["app"] == ".venv/bin/python app.py"
    assert config["context"]["cli-telemetry"] is False
    assert config["versionReporting"] is False


def test_app_uses_cdk_nag_as_a_validation_plugin() -> None:
    # cdk-nag 3 must be registered with Validations.of(app).add_plugins(...); Aspects.of(app).add(...) fails.
    stack_path = REPO_ROOT / "infra" / "stack.py"
    assert "Validations.of(app).add_plugins(AwsSolutionsChecks(app" in stack_path.read_text(encoding="utf-8")
    names = {
        alias.name
        for path in INFRA_SOURCES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == "aws_cdk"
        for alias in node.names
    }
    assert "Aspects" not in names
    assert "build_app" in (REPO_ROOT / "app.py").read_text(encoding="utf-8")
