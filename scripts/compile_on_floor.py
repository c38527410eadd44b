"""Compile every Python file of the project on the floor version `pyproject.toml` states (`make lint`).

Run by that interpreter (`make lint` finds it; `uv python install 3.12` where it is absent). The floor is a fact
the README and `requires-python` state; this is what keeps it true: a PEP 695 `type` statement or generic function
compiles on 3.12 and not on 3.11, so a floor of 3.11 would fail here. Nothing is written (no `.pyc`): each file is
compiled in memory.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("functions", "infra", "local", "bench", "tests", "scripts", "examples")
SKIPPED = {".venv", "node_modules", "cdk.out", ".local", "__pycache__"}


def floor() -> tuple[int, int]:
    """The lowest version `requires-python` allows (`>=3.12` -> (3, 12))."""
    stated = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    found = re.fullmatch(r">=\s*(\d+)\.(\d+)", stated.strip())
    if found is None:
        raise SystemExit(f"compile_on_floor: requires-python is {stated!r}, expected '>=3.N'")
    return int(found[1]), int(found[2])


def sources() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in FOLDERS:
        files += [p for p in (ROOT / folder).rglob("*.py") if not SKIPPED & set(p.relative_to(ROOT).parts)]
    return sorted(files)


def main() -> int:
    wanted = floor()
    if sys.version_info[:2] != wanted:
        print(f"compile_on_floor: run me with Python {wanted[0]}.{wanted[1]}, not {sys.version.split()[0]}")
        return 2
    failed = []
    files = sources()
    for path in files:
        try:
            compile(path.read_bytes(), str(path.relative_to(ROOT)), "exec", dont_inherit=True)
        except SyntaxError as error:
            failed.append(f"{error.filename}:{error.lineno}: {error.msg}")
    print(f"ddbguard floor: {len(files)} files compiled on Python {sys.version.split()[0]}, {len(failed)} failed")
    print("\n".join(failed), end="\n" if failed else "")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
