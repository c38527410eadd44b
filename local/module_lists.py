"""The module lists of the architecture diagram, kept complete: a module added under a listed folder (a resource's
domain module, its functions/ package) joins its folder's list when `make regenerate` runs.

A list is a Mermaid line marked `%% modules: <folder>` (scripts/check_docs.py checks it names every module of the
folder, and nothing else). A missing name is appended to the label in its own style: the last line of
`domain/<br/>a - b` gains ` - name`, a first line `accounts/ ledger/` gains ` name/`. Lists in prose are left to
their writers: a sentence cannot be extended by rule.
"""

from __future__ import annotations

import re
from pathlib import Path

from local.paths import ROOT
from scripts.check_docs import MERMAID_LABEL, MODULE_LIST_MARK, MODULE_LISTS, modules_of


def _with_names(line: str, missing: list[str]) -> str:
    """The diagram line whose label lists `missing` too."""
    label = MERMAID_LABEL.search(line)
    if label is None:
        raise ValueError(f"a marked module list with no label: {line.strip()}")
    parts = label.group(1).split("<br/>")
    if len(parts[0].split()) > 1 and parts[0].rstrip().endswith("/"):  # a list of folders: `accounts/ ledger/`
        parts[0] = parts[0].rstrip() + "".join(f" {name}/" for name in missing)
    else:  # a folder's title, then its modules: `domain/<br/>a - b<br/>c - d`
        parts[-1] = parts[-1].rstrip() + "".join(f" - {name}" for name in missing)
    return line[: label.start(1)] + "<br/>".join(parts) + line[label.end(1) :]


def completed(text: str, root: Path = ROOT) -> str:
    """`text` with each marked diagram list naming every module of its folder."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines[:-1]):
        mark = MODULE_LIST_MARK.match(line)
        if mark is None or not line.lstrip().startswith("%%"):
            continue
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", lines[index + 1]))
        missing = sorted((modules_of(root, mark.group(1)) or set()) - words)
        if missing:
            lines[index + 1] = _with_names(lines[index + 1], missing)
    return "".join(lines)


def main() -> None:
    for document in MODULE_LISTS:
        path = ROOT / document
        text = path.read_text(encoding="utf-8")
        new = completed(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"wrote the module lists of {document}")


if __name__ == "__main__":
    main()
