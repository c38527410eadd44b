"""The two layers a function of the guards runs with, built offline without Docker:

- the library layer: the installed `ddbguard`, `ddbguard_api` and `ddbguard_jobs` packages (pure Python, from the
  wheel, never a source tree), staged with their bytecode compiled for Lambda's Python;
- the dependencies layer: the release's runtime pins (`lambda-requirements.txt`, shipped in the wheel) as arm64
  wheels, without the X-Ray SDK (`ddbguard_cdk.dependency_layer`, the product's own build).

Both are cached under `cache_dir` (default `.local/layers` of the working directory, the CDK app's folder), keyed by
content: an unchanged release reuses its folders, and CDK's asset hashes stay the same.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import shutil
from pathlib import Path

from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from ddbguard_cdk import dependency_layer, layer_bytecode
from ddbguard_cdk.functions import ARCHITECTURE, RUNTIME

__all__ = [
    "LIBRARY_PACKAGES",
    "default_cache_dir",
    "dependencies_layer",
    "dependencies_layer_root",
    "library_layer",
    "library_layer_root",
]

LIBRARY_PACKAGES = ("ddbguard", "ddbguard_api", "ddbguard_jobs")
_EXCLUDES = ("__pycache__", "*.pyc")


def default_cache_dir() -> Path:
    return Path.cwd() / ".local" / "layers"


def _package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"{name} is not installed: install the ddbguard wheel (with the [cdk] extra)")
    return Path(spec.origin).parent


def _files(folder: Path) -> list[Path]:
    return sorted(
        path.relative_to(folder)
        for path in folder.rglob("*")
        if path.is_file()
        and not any(fnmatch.fnmatch(part, p) for part in path.relative_to(folder).parts for p in _EXCLUDES)
    )


def library_layer_root(cache_dir: Path | None = None) -> Path:
    """The library layer's folder (`python/<package>/...` with bytecode), built from the installed packages when
    missing."""
    cache_dir = cache_dir or default_cache_dir()
    folders = {name: _package_folder(name) for name in LIBRARY_PACKAGES}
    digest = hashlib.sha256()
    digest.update("\0".join([layer_bytecode.RECIPE_VERSION, *layer_bytecode.compile_arguments(Path("<t>"))]).encode())
    for name, folder in folders.items():
        for relative in _files(folder):
            digest.update(f"\0{name}/{relative.as_posix()}\0".encode())
            digest.update((folder / relative).read_bytes())
    root = cache_dir / f"library-{digest.hexdigest()[:16]}"

    def build(staging: Path) -> None:
        for name, folder in folders.items():
            for relative in _files(folder):
                target = staging / "python" / name / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(folder / relative, target)
        layer_bytecode.compile_layer(staging / "python")

    return dependency_layer.built_once(root, build, complete=root / "python")


def dependencies_layer_root(requirements: Path | None = None, cache_dir: Path | None = None) -> Path:
    """The dependencies layer's folder from `requirements` (default: the release's pins, without the X-Ray SDK)."""
    cache_dir = cache_dir or default_cache_dir()
    if requirements is None:
        requirements = dependency_layer.requirements_without(
            dependency_layer.PACKAGED_REQUIREMENTS, dependency_layer.XRAY_SDK_ONLY, cache_dir
        )
    return dependency_layer.layer_root(requirements, cache_dir)


def library_layer(scope: Construct, construct_id: str, cache_dir: Path | None = None) -> lambda_.LayerVersion:
    return lambda_.LayerVersion(
        scope,
        construct_id,
        code=lambda_.Code.from_asset(str(library_layer_root(cache_dir))),
        compatible_runtimes=[RUNTIME],
        compatible_architectures=[ARCHITECTURE],
        description="ddbguard, ddbguard_api and ddbguard_jobs from the installed wheel",
    )


def dependencies_layer(
    scope: Construct, construct_id: str, requirements: Path | None = None, cache_dir: Path | None = None
) -> lambda_.LayerVersion:
    return lambda_.LayerVersion(
        scope,
        construct_id,
        code=lambda_.Code.from_asset(str(dependencies_layer_root(requirements, cache_dir))),
        compatible_runtimes=[RUNTIME],
        compatible_architectures=[ARCHITECTURE],
        description="ddbguard's pinned runtime requirements: Powertools, pydantic, boto3/botocore",
    )
