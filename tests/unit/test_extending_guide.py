"""docs/extending.md shows the worked example as it is: each block marked with a file is that file, whole."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "extending.md"
MARKED_BLOCK = re.compile(r"<!-- file: (?P<path>\S+) -->\n```python\n(?P<code>.*?)```", re.S)


def test_every_marked_block_is_its_file_whole() -> None:
    blocks = {match["path"]: match["code"] for match in MARKED_BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))}
    assert set(blocks) == {"examples/teams/team.py", "examples/teams/routes.py", "examples/teams/update_team.py"}
    for path, code in blocks.items():
        assert code == (ROOT / path).read_text(encoding="utf-8"), f"docs/extending.md's copy of {path} is stale"
