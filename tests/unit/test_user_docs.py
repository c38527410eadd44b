"""README and docs/ are written for users of the repository: nothing about how it was made, nothing outside it."""

from __future__ import annotations

import re

import pytest

from local.paths import ROOT

USER_DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
# Words about the making of the project, not about the product.
FORBIDDEN = re.compile(r"\bbriefs?\b|\bsessions?\b|this machine", re.IGNORECASE)


@pytest.mark.parametrize("path", USER_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_user_docs_do_not_speak_of_briefs_sessions_or_this_machine(path):
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        assert not FORBIDDEN.search(line), f"{path.relative_to(ROOT)}:{number}: {line.strip()}"


@pytest.mark.parametrize("path", USER_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_user_docs_link_nothing_outside_the_repository(path):
    for target in re.findall(r"\]\(([^)]+)\)", path.read_text()):
        if target.startswith(("http://", "https://", "#")):
            continue
        resolved = (path.parent / target.split("#")[0]).resolve()
        assert resolved.is_relative_to(ROOT), f"{path.relative_to(ROOT)} links outside the repository: {target}"
        assert resolved.exists(), f"{path.relative_to(ROOT)} links to a missing file: {target}"


def test_the_data_model_names_every_item_kind_with_a_diagram():
    text = (ROOT / "docs" / "data-model.md").read_text()
    assert "```mermaid" in text
    for prefix in (
        "ACCT#",
        "UNIQ#EMAIL#",
        "UNIQ#HANDLE#",
        "OWNERS#",
        "TXN#",
        "HOLD#",
        "ORDER#",
        "REQ#",
    ):
        assert prefix in text, prefix
