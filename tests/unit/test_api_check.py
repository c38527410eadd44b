"""`make api-check`: the recorded baseline is a release's, and a removed public name or parameter fails the check.

CI runs the check itself (`.ci/run`); here, on the real baseline (api/) and the real layer, it is shown not to be
vacuous: the current API minus one public function, or with one parameter renamed, breaks against the record.
"""

from __future__ import annotations

import re

import griffe

from local.paths import ROOT
from scripts.api_check import breaking_changes, current_api, latest_baseline, load


def test_the_latest_baseline_is_a_release_the_changelog_has_a_heading_for():
    baseline = latest_baseline()
    assert baseline is not None, "no api/ddbguard-<version>.json: make api-check WRITE=1"
    release = baseline.stem.removeprefix("ddbguard-")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(release)}\]", changelog, re.MULTILINE), release


def test_removing_a_public_function_or_renaming_a_parameter_breaks_against_the_baseline():
    baseline = latest_baseline()
    assert baseline is not None
    recorded = load(baseline)
    api = current_api()
    assert breaking_changes(recorded, api) == [], "make api-check fails already"

    keys = api["ddbguard"]["store.keys"]
    assert isinstance(keys, griffe.Module)
    del keys.members["entity_key"]
    owner_tag = keys.members["owner_tag"]
    assert isinstance(owner_tag, griffe.Function)
    owner_tag.parameters["owner_sub"].name = "owner"

    found = breaking_changes(recorded, api)
    assert any("entity_key: Public object was removed" in line for line in found), found
    assert any("owner_tag(owner_sub): Parameter was removed" in line for line in found), found
