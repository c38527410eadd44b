"""The dependencies Lambda layer: the pinned runtime requirements as arm64 wheels, built offline without Docker.

`pip install --platform manylinux2014_aarch64 --only-binary=:all: --python-version 3.13 --implementation cp -t ...`
of `requirements.txt` (the file the local venv and the tests install), so the deployed Powertools, pydantic and
boto3/botocore are the tested ones. Only wheels are accepted: nothing is compiled, so no Docker is needed.

Then every module is compiled to bytecode by Lambda's Python minor (infra/layer_bytecode.py), so a cold start loads
`.pyc` files instead of compiling Powertools, pydantic and botocore from source on Lambda's read-only /opt.

The result is cached under `.local/layers/`, keyed by a hash of the requirements, of the pip command and of the
compile step: a second synth reuses it (and CDK's asset hash stays the same), a changed pin builds a new folder.

`python -m infra.dependency_layer [--platform TAG]` builds (if needed) and prints the folder and its size.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

from infra import constants, layer_bytecode

LAMBDA_PLATFORM = "manylinux2014_aarch64"
LAMBDA_PYTHON_VERSION = layer_bytecode.LAMBDA_PYTHON_VERSION
# Same pins, host platform: the layer-import test imports this twin, because an x86 machine cannot load the
# aarch64 binaries (pydantic-core, wrapt). The test also checks that both hold the same distributions.
HOST_PLATFORM = "manylinux2014_x86_64"
REQUIREMENTS = constants.REPO_ROOT / "requirements.txt"
CACHE_DIR = constants.REPO_ROOT / ".local" / "layers"
# Bump when the build recipe changes in a way the pip command does not show (e.g. what is pruned afterwards).
RECIPE_VERSION = "3"
# Only Powertools Tracer imports the X-Ray SDK, and only `-c tracing=xray-sdk` uses Tracer (ddbguard/tracing.py):
# every other deployment ships the layer without them. requirements.txt pins the whole closure, so the layer is
# installed with `--no-deps` from the pins minus these.
XRAY_SDK_ONLY = ("aws-xray-sdk", "wrapt")
# Console scripts pip drops into the target: nothing in a layer runs them. Their shebang holds the build's own
# interpreter path, so they (and the RECORD rows hashing them) would make every checkout's layer differ.
PRUNED = ("bin",)


def requirement_name(line: str) -> str:
    """`aws-xray-sdk==2.15.0  # why` -> `aws-xray-sdk` (empty for a comment or a blank line)."""
    requirement = line.split("#", 1)[0].strip()
    return requirement.split("==", 1)[0].split("[", 1)[0].strip().lower()


def requirements_file(*, with_xray_sdk: bool) -> Path:
    """requirements.txt itself, or (without the X-Ray SDK) a copy without its pins, cached by content."""
    if with_xray_sdk:
        return REQUIREMENTS
    lines = REQUIREMENTS.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = "".join(line for line in lines if requirement_name(line) not in XRAY_SDK_ONLY)
    path = CACHE_DIR / f"requirements-without-xray-{hashlib.sha256(kept.encode()).hexdigest()[:16]}.txt"
    if not path.is_file():
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        staging = path.with_suffix(f".{uuid.uuid4().hex}")
        staging.write_text(kept, encoding="utf-8")
        staging.replace(path)
    return path


def pip_arguments(target: Path, platform: str, *, with_xray_sdk: bool = False) -> list[str]:
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
        LAMBDA_PYTHON_VERSION,
        "--implementation",
        "cp",
        # pip would compile with the build machine's Python and mtime-checked .pyc (a hash per checkout):
        # layer_bytecode compiles afterwards, deterministically, with Lambda's minor.
        "--no-compile",
        # The pins are the whole closure (a test checks it): nothing beyond them, and no extra's dependency.
        "--no-deps",
        "--target",
        str(target),
        "--requirement",
        str(requirements_file(with_xray_sdk=with_xray_sdk)),
    ]


def cache_key(platform: str, *, with_xray_sdk: bool = False) -> str:
    digest = hashlib.sha256()
    digest.update(requirements_file(with_xray_sdk=with_xray_sdk).read_bytes())
    arguments = pip_arguments(Path("<target>"), platform, with_xray_sdk=with_xray_sdk)
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


def layer_root(platform: str = LAMBDA_PLATFORM, *, cache_dir: Path = CACHE_DIR, with_xray_sdk: bool = False) -> Path:
    """The folder to hand to `Code.from_asset`: it holds `python/` (Lambda's /opt/python). Built when missing."""
    variant = "" if not with_xray_sdk else "xray-"
    root = cache_dir / f"dependencies-{variant}{platform}-{cache_key(platform, with_xray_sdk=with_xray_sdk)}"
    if (root / "python").is_dir():
        return root
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Build beside the final folder and rename: a parallel synth or test run never sees a half-built layer.
    staging = cache_dir / f"staging-{uuid.uuid4().hex}"
    try:
        # Output only on failure: pip's chatter would bury synth's own messages.
        result = subprocess.run(
            [sys.executable, "-m", "pip", *pip_arguments(staging / "python", platform, with_xray_sdk=with_xray_sdk)],
            capture_output=True,
            text=True,
            env={**os.environ, "PIP_NO_WARN_SCRIPT_LOCATION": "1"},
        )
        if result.returncode != 0:
            sys.stderr.write(result.stdout + result.stderr)
            raise RuntimeError(f"pip could not build the dependencies layer for {platform} (exit {result.returncode})")
        prune(staging / "python")
        layer_bytecode.compile_layer(staging / "python")
        try:
            staging.rename(root)
        except OSError:
            # Another process finished the same build first; its folder is identical.
            if not (root / "python").is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return root


def pinned_version(distribution: str) -> str:
    """The `==` version `requirements.txt` pins for `distribution` (extras ignored)."""
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        name, _, version = requirement.partition("==")
        if name.split("[", 1)[0].strip().lower() == distribution.lower() and version:
            return version.strip()
    raise KeyError(f"{distribution} is not pinned in {REQUIREMENTS.name}")


def tree_size(path: Path) -> int:
    """Bytes of every file under `path` (the unzipped size Lambda counts against its 250 MB limit)."""
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description="Build (if needed) the dependencies layer and print where it is.")
    parser.add_argument("--platform", default=LAMBDA_PLATFORM, help=f"pip platform tag [{LAMBDA_PLATFORM}]")
    args = parser.parse_args()
    root = layer_root(args.platform)
    print(f"{root}  {tree_size(root) / 1_000_000:.1f} MB unzipped")


if __name__ == "__main__":
    main()
