"""What is deployed is what was tested: the synthesized asset folders alone hold everything the handlers import.

The import test runs python3.13 (Lambda's minor version) isolated (`-I -S -B`: no site-packages, no PYTHON*
variables, no bytecode written) with only Lambda's layout on `sys.path`: the function code asset (/var/task) and
the layers' `python/` folders (/opt/python). This x86 machine cannot load the aarch64 binaries of the deployed
dependencies layer (pydantic-core, wrapt), so that one layer is replaced by its twin built from the same
requirements for the host platform, and the twin is then shown to be the same distributions, the same files and the
same bytes (bytecode included) as the deployed asset except for the compiled extensions, which must be aarch64
ELF files.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from email.parser import Parser
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ddbguard_cdk import layer_bytecode
from infra import constants, dependency_layer
from infra.settlement import SWEEPER_HANDLER
from routes import ROUTES

if TYPE_CHECKING:
    from conftest import Synth

LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024  # function code plus all its layers, unzipped
EM_X86_64 = 62
EM_AARCH64 = 183
# Files that describe the platform build (its wheel tag, file hashes, the software bill of materials of the
# compiled extension), so they differ between the two builds by design.
PLATFORM_NAMED = {"RECORD", "WHEEL"}


def _describes_the_build(name: str) -> bool:
    parts = Path(name).parts
    return parts[0].endswith(".dist-info") and (parts[-1] in PLATFORM_NAMED or "sboms" in parts)


IMPORT_PROBE = r"""
import importlib, json, os, sys
roots, modules = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.path[:0] = roots
imported = {}
for name in modules:
    module = importlib.import_module(name)
    imported[name] = callable(getattr(module, "handler", None))
# What a first request with a body imports (ddbguard_api.models.body_validation): pydantic-core on the compiled
# schema; and pydantic with the models (what describes the API: OpenAPI).
amount = importlib.import_module("ddbguard_api.models.request_bodies").Amount
importlib.import_module("ddbguard_api.models.body_validation").validate(amount, {"amountCents": 1})
importlib.import_module("ddbguard_api.models.request_models")
# A non-ASCII address reads the look-alike data file and idna: both must ship in the assets.
normalize = importlib.import_module("ddbguard.domain.normalize")
readings = importlib.import_module("ddbguard.store.readings").readings
lookalike = list(readings(normalize.email_form("\u039a\u0391\u03a4\u0395@xn--bcher-kva.example")))
stdlib = os.path.dirname(os.__file__)
origins = {}
for name, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None)
    if path:
        path = os.path.realpath(path)
        origin = next((root for root in roots if path.startswith(os.path.realpath(root) + os.sep)), None)
        if origin is None and path.startswith(os.path.realpath(stdlib) + os.sep) and "site-packages" not in path:
            origin = "<stdlib>"
        origins[name] = origin or path
version = list(sys.version_info[:2])
print(json.dumps({"handlers": imported, "origins": origins, "version": version, "lookalike": lookalike}))
"""


def _lambda_python() -> str:
    """A python3.13 interpreter outside the venv (the Makefile's search order)."""
    candidates = [shutil.which("python3.13"), *sorted(Path.home().glob(".pyenv/versions/3.13*/bin/python3.13"))]
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [str(candidate), "-I", "-S", "-c", "import sys; print(sys.version_info[:2] == (3, 13))"],
            capture_output=True,
            text=True,
        )
        if probe.stdout.strip() == "True":
            return str(candidate)
    pytest.fail("python3.13 (the Lambda runtime's version) is needed for the layer-import test and was not found")


def _function_layout(synth: Synth) -> dict[str, Any]:
    """Every function's handler, code folder and layer folders, read from the template and the assembly."""
    layers = {
        logical_id: synth.asset_dir(props["Properties"]["Content"])
        for logical_id, props in synth.of_type("AWS::Lambda::LayerVersion").items()
    }
    functions = {}
    for logical_id, props in synth.of_type("AWS::Lambda::Function").items():
        properties = props["Properties"]
        functions[logical_id] = {
            "handler": properties["Handler"],
            "code": synth.asset_dir(properties["Code"]),
            "layers": [layers[layer["Ref"]] for layer in properties["Layers"]],
        }
    return functions


def _dependency_layer_dir(synth: Synth) -> Path:
    (layer_id,) = [key for key in synth.of_type("AWS::Lambda::LayerVersion") if key.startswith("FunctionsDependency")]
    return synth.asset_dir(synth.resources[layer_id]["Properties"]["Content"])


def test_every_function_runs_the_same_code_and_layers_from_the_assembly(synth: Synth) -> None:
    layout = _function_layout(synth)
    assert len({(str(item["code"]), tuple(map(str, item["layers"]))) for item in layout.values()}) == 1
    first = next(iter(layout.values()))
    for folder in [first["code"], *first["layers"]]:
        assert folder.is_dir() and str(folder).startswith(str(synth.assembly_dir)), folder
    for layer in first["layers"]:
        assert (layer / "python").is_dir(), f"{layer} has no python/ folder: Lambda would not put it on sys.path"
        # Lambda's /opt is read-only: a module without its bytecode would be compiled on every cold start.
        assert layer_bytecode.missing_bytecode(layer / "python") == [], layer


def test_handlers_are_the_route_table(synth: Synth) -> None:
    handlers = {item["handler"] for item in _function_layout(synth).values()}
    assert handlers == {f"{route.handler}.handler" for route in ROUTES} | {
        constants.AUDIT_HANDLER,
        constants.SETTLEMENT_HANDLER,
        SWEEPER_HANDLER,
    }


@pytest.mark.timeout(600)
def test_every_handler_imports_from_the_assets_alone(synth: Synth) -> None:
    layout = next(iter(_function_layout(synth).values()))
    deployed_dependencies = _dependency_layer_dir(synth)
    host_twin = dependency_layer.layer_root(dependency_layer.HOST_PLATFORM)
    # Lambda's order: /var/task first, then /opt/python (layers merged into /opt in the order listed).
    roots = [str(layout["code"])] + [
        str((host_twin if layer == deployed_dependencies else layer) / "python") for layer in layout["layers"]
    ]
    modules = sorted(
        {item["handler"].removesuffix(".handler") for item in _function_layout(synth).values()}
        | {route.handler for route in ROUTES}
    )
    environment = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(synth.assembly_dir),
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "TABLE_NAME": "ddbguard",
        "POWERTOOLS_SERVICE_NAME": constants.SERVICE_NAME,
        "POWERTOOLS_METRICS_NAMESPACE": constants.METRICS_NAMESPACE,
        "POWERTOOLS_LOG_LEVEL": "ERROR",
    }
    result = subprocess.run(
        [_lambda_python(), "-I", "-S", "-B", "-c", IMPORT_PROBE, json.dumps(roots), json.dumps(modules)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=synth.assembly_dir,
        timeout=540,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["version"] == [3, 13]
    assert "kate@b\u00fccher.example" in report["lookalike"]  # KATE reads as kate (and as katꞓ: ε)
    assert report["handlers"] == dict.fromkeys(modules, True)
    allowed = {*roots, "<stdlib>"}
    strays = {name: origin for name, origin in report["origins"].items() if origin not in allowed}
    assert strays == {}, "modules loaded from outside the assets"
    # The pinned SDK and pydantic come from the dependencies layer (in Lambda it shadows the runtime's boto3).
    assert report["origins"]["boto3"] == report["origins"]["pydantic_core"] == str(host_twin / "python")


def _distributions(site: Path) -> dict[str, str]:
    """Normalised distribution name -> version, from the `*.dist-info/METADATA` files of a layer's python/."""
    found = {}
    for info in site.glob("*.dist-info"):
        headers = Parser().parsestr((info / "METADATA").read_text(encoding="utf-8"), headersonly=True)
        found[_normalise(headers["Name"])] = headers["Version"]
    return found


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins() -> dict[str, str]:
    pins = {}
    for line in dependency_layer.REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement:
            name, _, version = requirement.partition("==")
            pins[_normalise(name.split("[", 1)[0])] = version
    return pins


def test_deployed_dependencies_are_exactly_the_pins_the_tests_ran_with(synth: Synth) -> None:
    deployed = _distributions(_dependency_layer_dir(synth) / "python")
    # The default tracing provider never imports the X-Ray SDK: the layer ships without it (and its wrapt).
    expected = {name: version for name, version in _pins().items() if name not in dependency_layer.XRAY_SDK_ONLY}
    assert deployed == expected, "requirements.txt must pin the whole closure, and the layer must hold nothing else"
    # The venv this very test runs in has the same versions: the tested SDK is the deployed SDK.
    for name, version in deployed.items():
        assert metadata.version(name) == version, name


def _elf_machine(path: Path) -> int:
    header = path.read_bytes()[:20]
    assert header[:4] == b"\x7fELF", path
    return int.from_bytes(header[18:20], "little")


def _files(site: Path) -> dict[str, Path]:
    # Bytecode included: it is compiled from the same sources by the same interpreter, so it matches byte for byte.
    return {str(path.relative_to(site)): path for path in site.rglob("*") if path.is_file()}


def test_host_twin_differs_from_the_deployed_layer_only_in_its_aarch64_binaries(synth: Synth) -> None:
    deployed = _dependency_layer_dir(synth) / "python"
    twin = dependency_layer.layer_root(dependency_layer.HOST_PLATFORM) / "python"
    assert _distributions(deployed) == _distributions(twin)
    deployed_files, twin_files = _files(deployed), _files(twin)
    binaries = [name for name in deployed_files if name.endswith(".so")]
    assert any("pydantic_core" in name for name in binaries)
    for name in binaries:
        assert "aarch64" in name and _elf_machine(deployed_files[name]) == EM_AARCH64, name
        twin_name = name.replace("aarch64", "x86_64")
        assert _elf_machine(twin_files[twin_name]) == EM_X86_64, twin_name
    assert {name.replace("aarch64", "x86_64") for name in deployed_files} == set(twin_files)
    for name, path in deployed_files.items():
        if name in binaries or _describes_the_build(name):
            continue
        assert _digest(path) == _digest(twin_files[name]), name


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_code_and_layers_fit_lambdas_unzipped_limit(synth: Synth) -> None:
    layout = next(iter(_function_layout(synth).values()))
    sizes = {str(folder.name): dependency_layer.tree_size(folder) for folder in [layout["code"], *layout["layers"]]}
    assert sum(sizes.values()) < LAMBDA_UNZIPPED_LIMIT, sizes
    # The code asset is the handlers and the route table, with their bytecode: the layer and tests never ship in it.
    code = layout["code"]
    assert not (code / "layer").exists()
    assert not list(code.rglob("test_*.py"))
    assert layer_bytecode.missing_bytecode(code) == []


def test_no_public_layer_unless_asked(synth: Synth) -> None:
    text = json.dumps(synth.json)
    assert "017000801446" not in text and "AWSLambdaPowertools" not in text
    # The only SSM lookup is CDK's own bootstrap-version check.
    assert [parameter["Default"] for parameter in synth.json.get("Parameters", {}).values()] == [
        "/cdk-bootstrap/hnb659fds/version"
    ]
    for props in synth.of_type("AWS::Lambda::Function").values():
        assert all(set(layer) == {"Ref"} for layer in props["Properties"]["Layers"])


def test_public_powertools_layer_is_resolved_from_ssm_when_asked(custom_synth: Synth) -> None:
    version = dependency_layer.pinned_version("aws-lambda-powertools")
    parameters = {
        key: value
        for key, value in custom_synth.json.get("Parameters", {}).items()
        if value["Type"] == "AWS::SSM::Parameter::Value<String>"
    }
    (parameter_id,) = [
        key
        for key, value in parameters.items()
        if value["Default"] == f"/aws/service/powertools/python/arm64/python3.13/{version}"
    ]
    assert not any(key.startswith("FunctionsDependency") for key in custom_synth.of_type("AWS::Lambda::LayerVersion"))
    for props in custom_synth.of_type("AWS::Lambda::Function").values():
        assert {"Ref": parameter_id} in props["Properties"]["Layers"]


def test_layer_cache_is_keyed_by_the_requirements() -> None:
    root = dependency_layer.layer_root()
    assert root.parent == dependency_layer.CACHE_DIR
    assert dependency_layer.cache_key(dependency_layer.LAMBDA_PLATFORM) in root.name
    assert dependency_layer.cache_key(dependency_layer.LAMBDA_PLATFORM) != dependency_layer.cache_key(
        dependency_layer.HOST_PLATFORM
    )
    assert ".local/" in (constants.REPO_ROOT / ".gitignore").read_text(encoding="utf-8")


def test_the_xray_sdk_ships_only_with_its_tracing_provider(synth: Synth, tmp_path: Path) -> None:
    from .conftest import synthesize

    default = _dependency_layer_dir(synth) / "python"
    assert not (default / "aws_xray_sdk").exists() and not (default / "wrapt").exists()
    xray = synthesize(tmp_path, {"tracing": "xray-sdk", "monitoringProfile": "lean"})
    deployed = _distributions(_dependency_layer_dir(xray) / "python")
    assert deployed == _pins()  # the whole closure, the X-Ray SDK included
    assert (_dependency_layer_dir(xray) / "python" / "aws_xray_sdk").is_dir()
