"""Both layers are the same asset from every checkout, bytecode included: built twice (the dependencies layer from two
interpreters at two paths, the shared layer from two copies of its sources) into two folders, each has the same CDK
asset hash, every module ships its unchecked-hash `.pyc` for Lambda's Python, and nothing in it names the folder or
the interpreter that built it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk import FileSystem

from ddbguard_cdk import layer_bytecode
from infra import constants, dependency_layer, staged_assets
from infra.functions import RUNTIME

BUILD = (
    "import sys; from pathlib import Path; from infra import dependency_layer; "
    "print(sys.executable); print(dependency_layer.layer_root(cache_dir=Path(sys.argv[1])))"
)


def _venv_elsewhere(root: Path) -> Path:
    """The test venv seen from another folder, as a second checkout's venv would be: same packages, other path.

    Python finds a venv by the pyvenv.cfg file beside its executable, so a folder with that file, a `bin/python`
    link and a `lib` link is a working venv whose `sys.executable` (what pip writes into shebangs) is elsewhere.
    """
    venv = Path(sys.prefix)
    (root / "bin").mkdir(parents=True)
    (root / "pyvenv.cfg").write_text((venv / "pyvenv.cfg").read_text(encoding="utf-8"), encoding="utf-8")
    (root / "lib").symlink_to(venv / "lib")
    (root / "bin" / "python").symlink_to(Path(sys.executable).resolve())
    return root / "bin" / "python"


def _build(python: Path | str, cache_dir: Path) -> tuple[str, Path]:
    result = subprocess.run(
        [str(python), "-c", BUILD, str(cache_dir)],
        cwd=constants.REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    executable, root = result.stdout.strip().splitlines()[-2:]
    return executable, Path(root)


@pytest.mark.timeout(900)
def test_two_checkouts_build_the_same_layer_asset(tmp_path: Path) -> None:
    first_python, first = _build(sys.executable, tmp_path / "checkout-a" / ".local" / "layers")
    other = _venv_elsewhere(tmp_path / "checkout-b" / ".venv")
    second_python, second = _build(other, tmp_path / "checkout-b" / ".local" / "layers")
    assert first_python != second_python  # two interpreter paths, as two clones have

    assert FileSystem.fingerprint(str(first)) == FileSystem.fingerprint(str(second))
    for python in (first_python, second_python):
        marker = str(Path(python).parent.parent).encode()
        for root in (first, second):
            named = [path for path in root.rglob("*") if path.is_file() and marker in path.read_bytes()]
            assert named == [], f"{python} is named inside the layer"
    _assert_compiled_for_lambda(first / "python", forbidden=str(tmp_path))


def test_two_checkouts_build_the_same_shared_layer_asset(tmp_path: Path) -> None:
    roots = []
    for checkout in ("checkout-a", "elsewhere/checkout-b"):
        source = tmp_path / checkout / "functions" / "layer"
        shutil.copytree(constants.LAYER_DIR, source, ignore=shutil.ignore_patterns(*constants.LAYER_EXCLUDES))
        roots.append(staged_assets.layer_root(source, cache_dir=tmp_path / checkout / ".local" / "layers"))
        # Compiled in the staged copy only: the sources it was built from get no bytecode.
        assert list(source.rglob("*.pyc")) == [] and list(source.rglob("__pycache__")) == []
    first, second = roots
    assert first.name == second.name  # the same sources: the same cache key
    assert FileSystem.fingerprint(str(first)) == FileSystem.fingerprint(str(second))
    # The layer is the sources as they ship plus one .pyc per module, nothing else.
    shipped = set(staged_assets.source_files(constants.LAYER_DIR))
    compiled = {layer_bytecode.bytecode_path(path) for path in shipped if path.suffix == ".py"}
    assert {path.relative_to(first) for path in first.rglob("*") if path.is_file()} == shipped | compiled
    _assert_compiled_for_lambda(first / "python", forbidden=str(tmp_path))


def test_two_checkouts_build_the_same_function_code_asset(tmp_path: Path) -> None:
    """The function code (route table, handlers) ships its bytecode too: /var/task is as read-only as /opt."""
    roots = []
    for checkout in ("checkout-a", "elsewhere/checkout-b"):
        source = tmp_path / checkout / "functions"
        shutil.copytree(constants.FUNCTIONS_DIR, source, ignore=shutil.ignore_patterns(*constants.CODE_EXCLUDES))
        roots.append(staged_assets.code_root(source, cache_dir=tmp_path / checkout / ".local" / "layers"))
        assert list(source.rglob("*.pyc")) == [] and list(source.rglob("__pycache__")) == []
    first, second = roots
    assert first.name == second.name
    assert FileSystem.fingerprint(str(first)) == FileSystem.fingerprint(str(second))
    shipped = set(staged_assets.source_files(constants.FUNCTIONS_DIR, constants.CODE_EXCLUDES))
    assert Path("routes/__init__.py") in shipped and not any(path.parts[0] == "layer" for path in shipped)
    compiled = {layer_bytecode.bytecode_path(path) for path in shipped if path.suffix == ".py"}
    assert {path.relative_to(first) for path in first.rglob("*") if path.is_file()} == shipped | compiled
    _assert_compiled_for_lambda(first, forbidden=str(tmp_path), deployed_root=layer_bytecode.FUNCTION_CODE_ROOT)


# Runs in Lambda's Python minor: the first code object of each module's .pyc, and where it says it came from.
_CODE_FILENAMES = r"""
import json, marshal, sys
names = {}
for path in sys.argv[1:]:
    with open(path, "rb") as compiled:
        names[path] = marshal.loads(compiled.read()[16:]).co_filename
print(json.dumps(names))
"""


def _assert_compiled_for_lambda(
    site: Path, *, forbidden: str, deployed_root: str = layer_bytecode.DEPLOYED_ROOT
) -> None:
    """Every module has its unchecked-hash .pyc for Lambda's minor, naming where Lambda puts it (/opt/python,
    /var/task) and not the build folder."""
    assert layer_bytecode.missing_bytecode(site) == []
    assert not any(path.is_file() and forbidden.encode() in path.read_bytes() for path in site.rglob("*.pyc"))
    sample = sorted(site.rglob("*.py"))[:: max(1, len(list(site.rglob("*.py"))) // 40)]
    compiled = [str(layer_bytecode.bytecode_path(path)) for path in sample]
    result = subprocess.run(
        [layer_bytecode.lambda_python(), "-I", "-S", "-c", _CODE_FILENAMES, *compiled],
        capture_output=True,
        text=True,
        check=True,
    )
    filenames = json.loads(result.stdout)
    expected = {
        str(layer_bytecode.bytecode_path(path)): f"{deployed_root}/{path.relative_to(site).as_posix()}"
        for path in sample
    }
    assert filenames == expected


def test_bytecode_is_compiled_for_the_functions_runtime() -> None:
    assert RUNTIME.name == f"python{layer_bytecode.LAMBDA_PYTHON_VERSION}"
    assert dependency_layer.LAMBDA_PYTHON_VERSION == layer_bytecode.LAMBDA_PYTHON_VERSION
    version = subprocess.run(
        [layer_bytecode.lambda_python(), "-I", "-S", "-c", "import sys; print(*sys.version_info[:2], sep='.')"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version == layer_bytecode.LAMBDA_PYTHON_VERSION


def test_no_record_row_names_a_pruned_or_outside_file() -> None:
    site = dependency_layer.layer_root() / "python"
    assert not any((site / name).exists() for name in dependency_layer.PRUNED)
    for record in site.glob("*.dist-info/RECORD"):
        for row in record.read_text(encoding="utf-8").splitlines():
            path = row.split(",", 1)[0]
            assert (site / path).is_file(), f"{record.parent.name} lists {path}, which the layer does not hold"
