"""The built distribution as a user gets it: `make dist-check` (CI runs it from `.ci/run`).

Checks the wheel and the sdist in dist/ (written by `make dist`):

- the wheel holds the packages `ddbguard` and `ddbguard_api`, each with its `py.typed`, the look-alike data, and
  nothing else (no tests, handlers, infra or caches);
- the sdist holds the layer's two packages and the files that describe the distribution, and nothing else;
- in a fresh virtual environment (uv) holding the wheel and its declared dependencies alone, every module of
  `ddbguard` imports without pydantic (the core's promise), then, with the `edge` extra added, every module of
  `ddbguard_api` imports; both from the installed wheel, never from this repository.

Exit status 1 and one line per finding when anything fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ddbguard", "ddbguard_api", "ddbguard_jobs", "ddbguard_cdk")
LAYER = "functions/layer/python"
# Where each package's sources are in the sdist (the construct is not a layer package: src/).
SOURCES = {"ddbguard_cdk": "src"}
SDIST_FILES = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "PKG-INFO", ".gitignore", "requirements.txt")
# Data the packages read at run time: it must ship beside the code. The construct builds its dependencies layer from
# the release's runtime pins.
PACKAGE_DATA = ("ddbguard/store/confusables.tsv", "ddbguard_cdk/lambda-requirements.txt")
UNWANTED_PARTS = ("__pycache__", "tests", ".venv", "node_modules", "cdk.out", ".local")

# Run inside the fresh venv: import every module of the named packages, found on the installed files, and say where
# the first package came from (so an import that reached this repository's sources fails).
IMPORT_ALL = """
import importlib, pkgutil, sys
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    for module in pkgutil.walk_packages(package.__path__, name + "."):
        importlib.import_module(module.name)
    print(name, package.__file__)
print("pydantic loaded" if "pydantic" in sys.modules or "pydantic_core" in sys.modules else "no pydantic")
"""


def wheel_findings(wheel: Path) -> list[str]:
    names = zipfile.ZipFile(wheel).namelist()
    findings = [f"{wheel.name}: no {package}/py.typed" for package in PACKAGES if f"{package}/py.typed" not in names]
    findings += [f"{wheel.name}: no {data}" for data in PACKAGE_DATA if data not in names]
    for name in names:
        top = name.split("/", 1)[0]
        if top not in PACKAGES and not top.endswith(".dist-info"):
            findings.append(f"{wheel.name}: {name} is outside the packages")
        elif any(part in UNWANTED_PARTS for part in name.split("/")):
            findings.append(f"{wheel.name}: {name} should not ship")
    return findings


def sdist_findings(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as archive:
        names = [member.name.split("/", 1)[1] for member in archive.getmembers() if member.isfile()]
    findings = []
    for name in names:
        inside_layer = any(name.startswith(f"{SOURCES.get(package, LAYER)}/{package}/") for package in PACKAGES)
        if not inside_layer and name not in SDIST_FILES:
            findings.append(f"{sdist.name}: {name} should not ship")
        elif any(part in UNWANTED_PARTS for part in name.split("/")):
            findings.append(f"{sdist.name}: {name} should not ship (a cache or tests inside a package)")
    findings += [
        f"{sdist.name}: no {SOURCES.get(package, LAYER)}/{package}/py.typed"
        for package in PACKAGES
        if f"{SOURCES.get(package, LAYER)}/{package}/py.typed" not in names
    ]
    return findings


def run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"check_dist: {' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def import_findings(wheel: Path, uv: Path, python: str) -> list[str]:
    """Install the wheel into a fresh venv, import the core alone, then the edge with its extra."""
    findings = []
    with tempfile.TemporaryDirectory(prefix="ddbguard-dist-") as folder:
        work = Path(folder)
        venv = work / "venv"
        run([str(uv), "venv", "--quiet", "--python", python, str(venv)], work)
        venv_python = str(venv / "bin" / "python")
        install = [str(uv), "pip", "install", "--quiet", "--python", venv_python]
        run([*install, str(wheel)], work)
        # The jobs' handlers are core too; the construct needs the [cdk] extra, which `make example` installs.
        core = run([venv_python, "-c", IMPORT_ALL, "ddbguard", "ddbguard_jobs"], work)
        if "no pydantic" not in core:
            findings.append("the core imported pydantic: it belongs to the edge extra")
        run([*install, f"ddbguard[edge] @ {wheel.resolve().as_uri()}"], work)
        edge = run([venv_python, "-c", IMPORT_ALL, "ddbguard", "ddbguard_api"], work)
        for line in (core + edge).splitlines():
            name, _, where = line.partition(" ")
            if name in PACKAGES and not where.startswith(str(venv)):
                findings.append(f"{name} was imported from {where}, not from the installed wheel")
        print(f"check_dist: fresh venv: core without pydantic, then with [edge]: {edge.splitlines()[:2]}")
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--uv", type=Path, default=ROOT / ".venv" / "bin" / "uv")
    parser.add_argument("--python", default=sys.executable, help="the interpreter the fresh venv is made with")
    options = parser.parse_args()
    wheels, sdists = sorted(options.dist.glob("*.whl")), sorted(options.dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        print(f"check_dist: expected one wheel and one sdist in {options.dist} (make dist)", file=sys.stderr)
        return 1
    findings = wheel_findings(wheels[0]) + sdist_findings(sdists[0])
    findings += import_findings(wheels[0], options.uv, options.python)
    for finding in findings:
        print(finding, file=sys.stderr)
    size = wheels[0].stat().st_size
    print(f"check_dist: {wheels[0].name} {size:,} bytes, {sdists[0].name} {sdists[0].stat().st_size:,} bytes")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
