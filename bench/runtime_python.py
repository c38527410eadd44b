"""The python3.13 the cold section starts its fresh processes with: a patch release with CPython's fix for
frame-chunk thrashing, as Lambda's managed runtime receives patch releases with its automatic runtime updates, not
whatever python3.13 the machine has.

Why not the machine's: CPython 3.13.0 to 3.13.12 allocate frames in 16 KiB chunks and free a chunk as soon as the
frame that opened it returns, so calls made again and again at exactly that depth map and unmap a chunk each time
(CPython issue gh-142183, fixed in 3.13.13 by keeping one chunk). An import chain puts boto3's import at whatever
depth it happens to reach, so whether a handler pays is luck. On the benchmark machine's 3.13.0, importing the
deposit handler made 1,691 mmap/munmap pairs of 16 KiB (strace), about 25 ms, a generic handler 5,993, and a
top-level `import boto3` made none. Lambda's runtime would not pay it, so the benchmark should not.

`DDBGUARD_BENCH_PYTHON` names an interpreter to use instead (any python3.13 at 3.13.13 or later). Otherwise the
release below is built once into .local/ from Debian's copy of the release tarball, checksum pinned: a few minutes
on two cores, with the build dependencies CPython needs (a C compiler, make, and the OpenSSL, zlib, libffi, bz2,
lzma and sqlite headers).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from functools import cache
from pathlib import Path

from local.paths import ROOT

VERSION = "3.13.15"
TARBALL = f"http://deb.debian.org/debian/pool/main/p/python3.13/python3.13_{VERSION}.orig.tar.xz"
TARBALL_SHA256 = "1e66a7945a48390ee4c2a4268a0e4185884059a13c4aab6d148aa208deea4a76"
PREFIX = ROOT / ".local" / f"cpython-{VERSION}"
OVERRIDE = "DDBGUARD_BENCH_PYTHON"
FIRST_FIXED = (3, 13, 13)


@cache  # asked for every process the section starts; built and checked once
def runtime_python() -> str:
    """The interpreter's path, building it on first use."""
    chosen = os.environ.get(OVERRIDE)
    binary = Path(chosen) if chosen else PREFIX / "bin" / "python3.13"
    if not chosen and not binary.exists():
        _build()
    _check(binary)
    return str(binary)


def _check(binary: Path) -> None:
    probe = "import sys; print(*sys.version_info[:3])"
    done = subprocess.run([str(binary), "-c", probe], capture_output=True, text=True, check=True)
    found = tuple(int(part) for part in done.stdout.split())
    if found[:2] != FIRST_FIXED[:2] or found < FIRST_FIXED:
        wanted = ".".join(map(str, FIRST_FIXED))
        raise SystemExit(f"{binary} is Python {'.'.join(map(str, found))}; the cold section needs 3.13 >= {wanted}")


def _build() -> None:
    print(f"bench: building CPython {VERSION} into {PREFIX} (once; a few minutes)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="cpython-") as work:
        tarball = Path(work) / "python.tar.xz"
        with urllib.request.urlopen(TARBALL, timeout=300) as answer, tarball.open("wb") as out:
            shutil.copyfileobj(answer, out)
        digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
        if digest != TARBALL_SHA256:
            raise SystemExit(f"{TARBALL}: sha256 {digest}, expected {TARBALL_SHA256}")
        with tarfile.open(tarball) as archive:
            archive.extractall(work, filter="data")
        source = Path(work) / f"Python-{VERSION}"
        for command in (
            ["./configure", f"--prefix={PREFIX}", "--without-ensurepip"],
            ["make", f"-j{os.cpu_count() or 2}"],
            ["make", "install"],
        ):
            subprocess.run(command, cwd=source, check=True, stdout=subprocess.DEVNULL)
