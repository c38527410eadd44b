"""Bytecode compiled ahead into a staged layer folder, so that a cold start loads `.pyc` instead of compiling.

Lambda mounts layers read-only under /opt: a layer without bytecode makes every cold start compile every module it
imports (botocore, Powertools, pydantic, ddbguard) from source, and write nothing back. Compiling at build time:

- by the Lambda runtime's Python minor (python3.13): another minor's bytecode has another cache tag and is ignored;
- `--invalidation-mode unchecked-hash`: the `.pyc` records a hash of its source, not the source's mtime (which
  differs on every checkout), and the runtime loads it without checking: a layer version never changes;
- `-d /opt/python`: code objects name the deployed path (tracebacks read right) and never the build folder;
- in one process with `PYTHONHASHSEED` fixed, so nothing hash-ordered can vary: two builds give the same bytes
  (tests/infra/test_layer_determinism.py) and the CDK asset hash stays stable.

Only the staged copies are compiled; the source tree never receives a `.pyc` from here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = [
    "COMPILE_ENVIRONMENT",
    "DEPLOYED_ROOT",
    "FUNCTION_CODE_ROOT",
    "LAMBDA_PYTHON_VERSION",
    "RECIPE_VERSION",
    "UNCHECKED_HASH_FLAGS",
    "bytecode_path",
    "compile_arguments",
    "compile_layer",
    "lambda_python",
    "missing_bytecode",
]

# Lambda's runtime for every function (RUNTIME in ddbguard_cdk/functions.py and infra/functions.py; a test keeps
# them equal).
LAMBDA_PYTHON_VERSION = "3.13"
# Where Lambda mounts a layer's `python/` folder, and where it unpacks a function's code.
DEPLOYED_ROOT = "/opt/python"
FUNCTION_CODE_ROOT = "/var/task"
COMPILE_ENVIRONMENT = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": ""}
# Bump when the compile step changes in a way its arguments do not show (part of the layers' cache keys).
RECIPE_VERSION = "1"


def _is_lambda_minor(python: str) -> bool:
    wanted = tuple(int(part) for part in LAMBDA_PYTHON_VERSION.split("."))
    probe = subprocess.run(
        [python, "-I", "-S", "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True
    )
    return probe.returncode == 0 and tuple(map(int, probe.stdout.split())) == wanted


def lambda_python() -> str:
    """An interpreter of Lambda's minor version: this one if it is, else python3.13 from PATH or pyenv."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == LAMBDA_PYTHON_VERSION:
        return sys.executable
    name = f"python{LAMBDA_PYTHON_VERSION}"
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which(name), *sorted(str(p) for p in pyenv.glob(f"{LAMBDA_PYTHON_VERSION}*/bin/{name}"))]
    for candidate in filter(None, candidates):
        if _is_lambda_minor(candidate):
            return candidate
    raise RuntimeError(
        f"the layers' bytecode must be compiled by Python {LAMBDA_PYTHON_VERSION} (Lambda's runtime), "
        f"and no {name} was found on PATH or under {pyenv}"
    )


def compile_arguments(site: Path, deployed_root: str = DEPLOYED_ROOT) -> list[str]:
    """The compileall command (after the interpreter) that compiles every module under `site` in place, its code
    objects naming `deployed_root` instead of `site`."""
    return [
        "-S",
        "-m",
        "compileall",
        "-q",
        "--invalidation-mode",
        "unchecked-hash",
        "-d",
        deployed_root,
        str(site),
    ]


def compile_layer(site: Path, deployed_root: str = DEPLOYED_ROOT) -> None:
    """Compile every module under `site` (a staged layer's `python/`, or a function's staged code) into
    `__pycache__/<name>.cpython-313.pyc`."""
    environment = {"PATH": os.environ.get("PATH", ""), **COMPILE_ENVIRONMENT}
    result = subprocess.run(
        [lambda_python(), *compile_arguments(site, deployed_root)], capture_output=True, text=True, env=environment
    )
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise RuntimeError(f"compileall could not compile the layer at {site} (exit {result.returncode})")
    missing = missing_bytecode(site)
    if missing:
        raise RuntimeError(f"{len(missing)} modules under {site} have no unchecked-hash bytecode, e.g. {missing[0]}")


def bytecode_path(source: Path) -> Path:
    """Where Lambda's runtime looks for `source`'s bytecode: `__pycache__/<name>.cpython-313.pyc` beside it."""
    tag = f"cpython-{LAMBDA_PYTHON_VERSION.replace('.', '')}"
    return source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"


# PEP 552 header flags: bit 0 = hash-based, bit 1 = check the source. Unchecked-hash is exactly 0b01.
UNCHECKED_HASH_FLAGS = 0b01


def missing_bytecode(site: Path) -> list[str]:
    """The modules under `site` (relative paths, sorted) without an unchecked-hash `.pyc` for Lambda's minor."""
    missing = []
    for source in sorted(site.rglob("*.py")):
        compiled = bytecode_path(source)
        header = compiled.read_bytes()[:8] if compiled.is_file() else b""
        if len(header) < 8 or int.from_bytes(header[4:8], "little") != UNCHECKED_HASH_FLAGS:
            missing.append(source.relative_to(site).as_posix())
    return missing
