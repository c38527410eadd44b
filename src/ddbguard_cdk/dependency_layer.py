"""A dependencies Lambda layer folder from pinned requirements: arm64 wheels for Lambda's Python, built offline
without Docker.

`pip install --platform manylinux2014_aarch64 --only-binary=:all: --python-version 3.13 --implementation cp
--no-deps -t ...` of a requirements file that pins the whole closure, so the deployed Powertools, pydantic and
boto3/botocore are the ones the tests ran against. Only wheels are accepted: nothing is compiled, so no Docker is
needed. Then every module is compiled to bytecode by Lambda's Python minor (`ddbguard_cdk.layer_bytecode`).

The folder is cached under `cache_dir`, keyed by a hash of the requirements, of the pip command and of the compile
step: a second synth reuses it (and CDK's asset hash stays the same), a changed pin builds a new folder. The product
(infra/dependency_layer.py) and `ddbguard_cdk.GuardedTable` build theirs with this.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Collection
from pathlib import Path

from ddbguard_cdk import layer_bytecode

__all__ = [
    "LAMBDA_PLATFORM",
    "PACKAGED_REQUIREMENTS",
    "PRUNED",
    "XRAY_SDK_ONLY",
    "built_once",
    "cache_key",
    "layer_root",
    "pip_arguments",
    "prune",
    "requirement_name",
    "requirements_without",
    "tree_size",
]

LAMBDA_PLATFORM = "manylinux2014_aarch64"
# The runtime pins of the release (the repository's requirements.txt), shipped inside the wheel; in a source checkout,
# that file itself.
_SHIPPED = Path(__file__).with_name("lambda-requirements.txt")
PACKAGED_REQUIREMENTS = _SHIPPED if _SHIPPED.is_file() else Path(__file__).resolve().parents[2] / "requirements.txt"
# Bump when the build recipe changes in a way the pip command does not show (e.g. what is pruned afterwards).
RECIPE_VERSION = "3"
# Only Powertools Tracer imports the X-Ray SDK, and only tracing=xray-sdk uses Tracer (ddbguard/tracing.py): every
# other deployment ships the layer without them.
XRAY_SDK_ONLY = ("aws-xray-sdk", "wrapt")
# Console scripts pip drops into the target: nothing in a layer runs them. Their shebang holds the build's own
# interpreter path, so they (and the RECORD rows hashing them) would make every checkout's layer differ.
PRUNED = ("bin",)


def requirement_name(line: str) -> str:
    """`aws-xray-sdk==2.15.0  # why` -> `aws-xray-sdk` (empty for a comment or a blank line)."""
    requirement = line.split("#", 1)[0].strip()
    return requirement.split("==", 1)[0].split("[", 1)[0].strip().lower()


def requirements_without(requirements: Path, names: Collection[str], cache_dir: Path) -> Path:
    """A copy of `requirements` without the pins of `names`, cached in `cache_dir` by content."""
    lines = requirements.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = "".join(line for line in lines if requirement_name(line) not in names)
    path = cache_dir / f"requirements-without-xray-{hashlib.sha256(kept.encode()).hexdigest()[:16]}.txt"
    if not path.is_file():
        cache_dir.mkdir(parents=True, exist_ok=True)
        staging = path.with_suffix(f".{uuid.uuid4().hex}")
        staging.write_text(kept, encoding="utf-8")
        staging.replace(path)
    return path


def pip_arguments(target: Path, platform: str, requirements: Path) -> list[str]:
    """The pip command (after `python -m pip`) that fills `target` with the pinned wheels for `platform`."""
    return [
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-input",
        "--platform",
        platform,
        "--only-binary=:all:",
        "--python-version",
        layer_bytecode.LAMBDA_PYTHON_VERSION,
        "--implementation",
        "cp",
        # pip would compile with the build machine's Python and mtime-checked .pyc (a hash per checkout):
        # layer_bytecode compiles afterwards, deterministically, with Lambda's minor.
        "--no-compile",
        # The pins are the whole closure (the product's tests check it): nothing beyond them, no extra's dependency.
        "--no-deps",
        "--target",
        str(target),
        "--requirement",
        str(requirements),
    ]


def cache_key(platform: str, requirements: Path) -> str:
    digest = hashlib.sha256()
    digest.update(requirements.read_bytes())
    arguments = pip_arguments(Path("<target>"), platform, requirements)
    # The requirements file's own path holds the cache folder; its content is hashed above.
    compile_step = [layer_bytecode.RECIPE_VERSION, *layer_bytecode.compile_arguments(Path("<target>"))]
    digest.update("\0".join([RECIPE_VERSION, *arguments[:-1], *compile_step]).encode())
    return digest.hexdigest()[:16]


def prune(site: Path) -> None:
    """Drop the pruned folders, and every RECORD row naming a file outside the layer's packages.

    With `--target`, pip records console scripts relative to its temporary scheme (`../../bin/jp.py`): they
    are in `bin/`, which is pruned, and their rows hash a shebang holding the build machine's interpreter path.
    """
    for name in PRUNED:
        shutil.rmtree(site / name, ignore_errors=True)
    for record in site.glob("*.dist-info/RECORD"):
        rows = record.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [row for row in rows if _inside_packages(row.split(",", 1)[0])]
        if kept != rows:
            record.write_text("".join(kept), encoding="utf-8")


def _inside_packages(relative: str) -> bool:
    parts = Path(os.path.normpath(relative)).parts
    return bool(parts) and parts[0] != ".." and parts[0] not in PRUNED


def layer_root(requirements: Path, cache_dir: Path, platform: str = LAMBDA_PLATFORM, *, variant: str = "") -> Path:
    """The folder to hand to `Code.from_asset`: it holds `python/` (Lambda's /opt/python). Built when missing."""
    root = cache_dir / f"dependencies-{variant}{platform}-{cache_key(platform, requirements)}"

    def build(staging: Path) -> None:
        # Output only on failure: pip's chatter would bury synth's own messages.
        result = subprocess.run(
            [sys.executable, "-m", "pip", *pip_arguments(staging / "python", platform, requirements)],
            capture_output=True,
            text=True,
            env={**os.environ, "PIP_NO_WARN_SCRIPT_LOCATION": "1"},
        )
        if result.returncode != 0:
            sys.stderr.write(result.stdout + result.stderr)
            raise RuntimeError(f"pip could not build the dependencies layer for {platform} (exit {result.returncode})")
        prune(staging / "python")
        layer_bytecode.compile_layer(staging / "python")

    return built_once(root, build, complete=root / "python")


def built_once(root: Path, build: Callable[[Path], None], *, complete: Path | None = None) -> Path:
    """`root`, unless `complete` (default: `root`) is already a folder; else built by `build(staging)` in a folder
    beside it and renamed into place, so a parallel synth or test run never sees a half-built folder. The caller
    names `root` by a hash of what goes in, so when another process finished the same build first, its folder is
    the same and is kept."""
    complete = complete or root
    if complete.is_dir():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = root.parent / f"staging-{uuid.uuid4().hex}"
    try:
        build(staging)
        try:
            staging.rename(root)
        except OSError:
            if not complete.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return root


def tree_size(path: Path) -> int:
    """Bytes of every file under `path` (the unzipped size Lambda counts against its 250 MB limit)."""
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())
