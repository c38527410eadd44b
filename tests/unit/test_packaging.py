"""The library's packaging: one backend pin, and the archive checks of `make dist-check` catch what they should.

`make dist-check` (CI, `.ci/run`) builds the real archives and imports the wheel in a fresh venv; here, quickly,
the checks it runs are shown to refuse a wheel without `py.typed` and archives carrying tests.
"""

from __future__ import annotations

import io
import re
import tarfile
import tomllib
import zipfile
from pathlib import Path

from local.paths import ROOT
from scripts.check_dist import sdist_findings, wheel_findings

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
GOOD_WHEEL = (
    "ddbguard/__init__.py",
    "ddbguard/py.typed",
    "ddbguard/store/confusables.tsv",
    "ddbguard_api/__init__.py",
    "ddbguard_api/py.typed",
    "ddbguard_jobs/__init__.py",
    "ddbguard_jobs/py.typed",
    "ddbguard_cdk/__init__.py",
    "ddbguard_cdk/py.typed",
    "ddbguard_cdk/lambda-requirements.txt",
    "ddbguard-0.1.0.dist-info/METADATA",
)


def make_wheel(folder: Path, names: tuple[str, ...]) -> Path:
    wheel = folder / "ddbguard-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name in names:
            archive.writestr(name, "")
    return wheel


def make_sdist(folder: Path, names: tuple[str, ...]) -> Path:
    sdist = folder / "ddbguard-0.1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for name in names:
            member = tarfile.TarInfo(f"ddbguard-0.1.0/{name}")
            archive.addfile(member, io.BytesIO(b""))
    return sdist


def test_the_build_backend_is_pinned_once_the_same_in_pyproject_and_the_venv():
    (requires,) = PYPROJECT["build-system"]["requires"]
    dev_pins = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    assert re.fullmatch(r"hatchling==[\d.]+", requires)
    assert re.search(rf"^{re.escape(requires)}$", dev_pins, re.MULTILINE), "requirements-dev.txt pins another hatchling"


def test_the_core_declares_no_pydantic_which_only_the_edge_extra_brings():
    dependencies = " ".join(PYPROJECT["project"]["dependencies"])
    assert "pydantic" not in dependencies
    assert any(spec.startswith("pydantic") for spec in PYPROJECT["project"]["optional-dependencies"]["edge"])


def test_a_complete_wheel_passes(tmp_path):
    assert wheel_findings(make_wheel(tmp_path, GOOD_WHEEL)) == []


def test_a_wheel_without_py_typed_or_with_tests_is_refused(tmp_path):
    names = (*(name for name in GOOD_WHEEL if name != "ddbguard_api/py.typed"), "tests/test_x.py")
    findings = wheel_findings(make_wheel(tmp_path, names))
    assert any("no ddbguard_api/py.typed" in finding for finding in findings)
    assert any("tests/test_x.py is outside the packages" in finding for finding in findings)


def test_an_sdist_carrying_more_than_the_layer_packages_is_refused(tmp_path):
    layer = "functions/layer/python"
    good = (
        f"{layer}/ddbguard/py.typed",
        f"{layer}/ddbguard_api/py.typed",
        f"{layer}/ddbguard_jobs/py.typed",
        "src/ddbguard_cdk/py.typed",
        "requirements.txt",
        "pyproject.toml",
        "PKG-INFO",
    )
    assert sdist_findings(make_sdist(tmp_path, good)) == []
    findings = sdist_findings(make_sdist(tmp_path, (*good, "tests/unit/test_x.py", "infra/stack.py")))
    assert sorted(findings) == [
        "ddbguard-0.1.0.tar.gz: infra/stack.py should not ship",
        "ddbguard-0.1.0.tar.gz: tests/unit/test_x.py should not ship",
    ]


def test_the_cdk_extra_pins_the_cdk_the_product_stack_is_built_and_tested_with():
    dev_pins = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    pinned = [spec for spec in PYPROJECT["project"]["optional-dependencies"]["cdk"] if "==" in spec]
    assert {spec.split("==")[0] for spec in pinned} == {"aws-cdk-lib", "constructs"}
    for spec in pinned:
        assert re.search(rf"^{re.escape(spec)}$", dev_pins, re.MULTILINE), f"requirements-dev.txt pins another {spec}"
