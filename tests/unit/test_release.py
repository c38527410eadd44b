"""One license and one release number, said the same way everywhere a user or a tool reads them."""

from __future__ import annotations

import json
import re
import tomllib

from ddbguard.release import VERSION
from local.paths import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_layer_carries_pyproject_version():
    assert PYPROJECT["version"] == VERSION
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION), "semantic versioning: MAJOR.MINOR.PATCH"


def test_the_openapi_document_reports_the_release_and_the_license():
    info = json.loads((ROOT / "docs" / "openapi.json").read_text())["info"]
    assert info["version"] == VERSION
    assert info["license"] == {"name": "MIT", "identifier": "MIT"}


def test_one_license_in_every_manifest():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    assert PYPROJECT["license"] == "MIT" and PYPROJECT["license-files"] == ["LICENSE"]
    assert json.loads((ROOT / "package.json").read_text())["license"] == "MIT"
    assert json.loads((ROOT / "package-lock.json").read_text())["packages"][""]["license"] == "MIT"


def test_the_changelog_keeps_a_changelog_and_names_the_release():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert changelog.startswith("# Changelog\n")
    assert "## [Unreleased]" in changelog
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", changelog, flags=re.MULTILINE)
    assert released and released[0][0] == VERSION, "the newest release section is the version pyproject.toml names"
