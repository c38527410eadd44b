"""The python3.13 the cold section starts its fresh processes with: a patch release with CPython's fix for
frame-chunk thrashing, as Lambda's managed runtime receives patch releases with its automatic runtime updates, not
whatever python3.13 the machine has.

Why not the machine's: CPython 3.13.0 to 3.13.12 allocate frames in 16 KiB chunks and free a chunk as soon as the
frame that opened it returns, so calls made again and again at exactly that depth map and unmap a chunk each time
(CPython issue gh-142183, fixed in 3.13.13 by keeping one chunk). An import chain puts boto3's import at whatever
depth it happens to reach, so whether a handler pays is luck. On the benchmark machine's 3.13.0, importing the
deposit handler made 1,691 mmap/munmap pairs of 16 KiB (strace), about 25 ms, a generic handler 5,993, and a
top-level `import boto3` made none. Lambda's runtime would not pay it, so the benchmark should not.

The interpreter is a choice, never a build: `DDBGUARD_BENCH_PYTHON` names one, or else uv (the project's installer)
finds one it manages, put there by `uv python install 3.13.15`. Either way it is refused unless it is 3.13.13 or
later in the 3.13 series.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

VERSION = "3.13.15"  # what `uv python install` is told to fetch; any 3.13 from FIRST_FIXED on is accepted
OVERRIDE = "DDBGUARD_BENCH_PYTHON"
FIRST_FIXED = (3, 13, 13)
WANTED = ">=3.13.13,<3.14"


@cache  # asked for every process the section starts; found and checked once
def runtime_python() -> str:
    """The interpreter's path: the one named, or the one uv manages; refused when it is not a fixed 3.13."""
    chosen = os.environ.get(OVERRIDE) or _managed_by_uv()
    if not chosen:
        raise SystemExit(
            f"bench: the cold section needs Python 3.13 >= 3.13.13 (CPython gh-142183): set {OVERRIDE}=<python3.13>,"
            f" or run `uv python install {VERSION}` once"
        )
    binary = Path(chosen)
    refused = refusal(version_of(binary))
    if refused:
        raise SystemExit(f"{binary}: {refused}")
    return str(binary)


def refusal(found: tuple[int, ...]) -> str | None:
    """Why an interpreter of version `found` may not run the cold section, or None."""
    if found[:2] == FIRST_FIXED[:2] and found >= FIRST_FIXED:
        return None
    shown, wanted = ".".join(map(str, found)), ".".join(map(str, FIRST_FIXED))
    return f"Python {shown}; the cold section needs 3.13 >= {wanted} (3.13.0-3.13.12 thrash frame chunks, gh-142183)"


def version_of(binary: Path) -> tuple[int, ...]:
    probe = "import sys; print(*sys.version_info[:3])"
    done = subprocess.run([str(binary), "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    return tuple(int(part) for part in done.stdout.split())


def _managed_by_uv() -> str | None:
    """A uv-managed interpreter satisfying WANTED, if uv is here and has one."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        return None
    found = subprocess.run(
        [uv, "python", "find", "--managed-python", "--no-project", WANTED],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return found.stdout.strip() or None if found.returncode == 0 else None
