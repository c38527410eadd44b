"""Commands in the docs reach `make run` on the port it was given: `${PORT:-3000}`, never a bare 3000."""

from __future__ import annotations

import re

from local.paths import ROOT

DOCUMENTS = ["README.md", "demo.sh", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
BARE_PORT = re.compile(r"(localhost|127\.0\.0\.1):3000\b")
COMMAND = re.compile(r"curl |--base-url|BASE_URL=|API=")


def test_every_command_line_uses_the_port_variable():
    bare = [
        f"{name}:{number}: {line.strip()}"
        for name in DOCUMENTS
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1)
        if COMMAND.search(line) and BARE_PORT.search(line)
    ]
    assert bare == []


def test_the_check_finds_a_bare_port():
    assert COMMAND.search("curl -s localhost:3000/health") and BARE_PORT.search("curl -s localhost:3000/health")
    assert not BARE_PORT.search("curl -s localhost:${PORT:-3000}/health")
