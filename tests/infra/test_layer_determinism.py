"""The dependencies layer is the same asset from every checkout: built twice, from two interpreters at two paths
into two folders, it has the same CDK asset hash, and nothing in it names the interpreter that built it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk import FileSystem

from infra import constants, dependency_layer

BUILD = (
    "import sys; from pathlib import Path; from infra import dependency_layer; "
    "print(sys.executable); print(dependency_layer.layer_root(cache_dir=Path(sys.argv[1])))"
)


def _venv_elsewhere(root: Path) -> Path:
    """The test venv seen from another folder, as a second checkout's venv would be: same packages, other path.

    Python finds a venv by the pyvenv.cfg file beside its executable, so a folder with that file, a `bin/python`
    link and a `lib` link is a working venv whose `sys.executable` (what pip writes into shebangs) is elsewhere.
    """
    venv = Path(sys.prefix)
    (root / "bin").mkdir(parents=True)
    (root / "pyvenv.cfg").write_text((venv / "pyvenv.cfg").read_text(encoding="utf-8"), encoding="utf-8")
    (root / "lib").symlink_to(venv / "lib")
    (root / "bin" / "python").symlink_to(Path(sys.executable).resolve())
    return root / "bin" / "python"


def _build(python: Path | str, cache_dir: Path) -> tuple[str, Path]:
    result = subprocess.run(
        [str(python), "-c", BUILD, str(cache_dir)],
        cwd=constants.REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    executable, root = result.stdout.strip().splitlines()[-2:]
    return executable, Path(root)


@pytest.mark.timeout(900)
def test_two_checkouts_build_the_same_layer_asset(tmp_path: Path) -> None:
    first_python, first = _build(sys.executable, tmp_path / "checkout-a" / ".local" / "layers")
    other = _venv_elsewhere(tmp_path / "checkout-b" / ".venv")
    second_python, second = _build(other, tmp_path / "checkout-b" / ".local" / "layers")
    assert first_python != second_python  # two interpreter paths, as two clones have

    assert FileSystem.fingerprint(str(first)) == FileSystem.fingerprint(str(second))
    for python in (first_python, second_python):
        marker = str(Path(python).parent.parent).encode()
        for root in (first, second):
            named = [path for path in root.rglob("*") if path.is_file() and marker in path.read_bytes()]
            assert named == [], f"{python} is named inside the layer"


def test_no_record_row_names_a_pruned_or_outside_file() -> None:
    site = dependency_layer.layer_root() / "python"
    assert not any((site / name).exists() for name in dependency_layer.PRUNED)
    for record in site.glob("*.dist-info/RECORD"):
        for row in record.read_text(encoding="utf-8").splitlines():
            path = row.split(",", 1)[0]
            assert (site / path).is_file(), f"{record.parent.name} lists {path}, which the layer does not hold"
