"""The dependencies Lambda layer: the pinned runtime requirements as arm64 wheels, built offline without Docker.

`pip install --platform manylinux2014_aarch64 --only-binary=:all: --python-version 3.13 --implementation cp -t ...`
of `requirements.txt` (the file the local venv and the tests install), so the deployed Powertools, pydantic and
boto3/botocore are the tested ones. Only wheels are accepted: nothing is compiled, so no Docker is needed.

Then every module is compiled to bytecode by Lambda's Python minor (src/ddbguard_cdk/layer_bytecode.py), so a cold
start loads `.pyc` files instead of compiling Powertools, pydantic and botocore from source on Lambda's read-only /opt.

The build is the construct package's (src/ddbguard_cdk/dependency_layer.py), which a team's `GuardedTable` uses too;
this module gives it the repository's requirements.txt and cache (`.local/layers/`), keyed by a hash of the
requirements, of the pip command and of the compile step: a second synth reuses it (and CDK's asset hash stays the
same), a changed pin builds a new folder.

`python -m infra.dependency_layer [--platform TAG]` builds (if needed) and prints the folder and its size.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ddbguard_cdk import dependency_layer as shared
from ddbguard_cdk import layer_bytecode
from ddbguard_cdk.dependency_layer import LAMBDA_PLATFORM, PRUNED, XRAY_SDK_ONLY, prune, requirement_name, tree_size
from infra import constants

__all__ = [
    "CACHE_DIR",
    "HOST_PLATFORM",
    "LAMBDA_PLATFORM",
    "LAMBDA_PYTHON_VERSION",
    "PRUNED",
    "REQUIREMENTS",
    "XRAY_SDK_ONLY",
    "cache_key",
    "layer_root",
    "pinned_version",
    "pip_arguments",
    "prune",
    "requirement_name",
    "requirements_file",
    "tree_size",
]

LAMBDA_PYTHON_VERSION = layer_bytecode.LAMBDA_PYTHON_VERSION
# Same pins, host platform: the layer-import test imports this twin, because an x86 machine cannot load the
# aarch64 binaries (pydantic-core, wrapt). The test also checks that both hold the same distributions.
HOST_PLATFORM = "manylinux2014_x86_64"
REQUIREMENTS = constants.REPO_ROOT / "requirements.txt"
CACHE_DIR = constants.REPO_ROOT / ".local" / "layers"


def requirements_file(*, with_xray_sdk: bool) -> Path:
    """requirements.txt itself, or (without the X-Ray SDK) a copy without its pins, cached by content."""
    if with_xray_sdk:
        return REQUIREMENTS
    return shared.requirements_without(REQUIREMENTS, XRAY_SDK_ONLY, CACHE_DIR)


def pip_arguments(target: Path, platform: str, *, with_xray_sdk: bool = False) -> list[str]:
    """The pip command (after `python -m pip`) that fills `target` with the pinned wheels for `platform`."""
    return shared.pip_arguments(target, platform, requirements_file(with_xray_sdk=with_xray_sdk))


def cache_key(platform: str, *, with_xray_sdk: bool = False) -> str:
    return shared.cache_key(platform, requirements_file(with_xray_sdk=with_xray_sdk))


def layer_root(platform: str = LAMBDA_PLATFORM, *, cache_dir: Path = CACHE_DIR, with_xray_sdk: bool = False) -> Path:
    """The folder to hand to `Code.from_asset`: it holds `python/` (Lambda's /opt/python). Built when missing."""
    variant = "" if not with_xray_sdk else "xray-"
    return shared.layer_root(requirements_file(with_xray_sdk=with_xray_sdk), cache_dir, platform, variant=variant)


def pinned_version(distribution: str) -> str:
    """The `==` version `requirements.txt` pins for `distribution` (extras ignored)."""
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        name, _, version = requirement.partition("==")
        if name.split("[", 1)[0].strip().lower() == distribution.lower() and version:
            return version.strip()
    raise KeyError(f"{distribution} is not pinned in {REQUIREMENTS.name}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Build (if needed) the dependencies layer and print where it is.")
    parser.add_argument("--platform", default=LAMBDA_PLATFORM, help=f"pip platform tag [{LAMBDA_PLATFORM}]")
    args = parser.parse_args()
    root = layer_root(args.platform)
    print(f"{root}  {tree_size(root) / 1_000_000:.1f} MB unzipped")


if __name__ == "__main__":
    main()
