"""The shared layer (`ddbguard`, `ddbguard_api`), staged with its bytecode as Lambda loads it.

`functions/layer` is copied without caches into `.local/layers/shared-<hash>/` and compiled there
(infra/layer_bytecode.py); the source tree never gets a `.pyc` from this. The hash covers every source file's path
and bytes and the compile step, so an unchanged tree reuses its folder (same CDK asset hash, no diff) and a changed
file builds a new one.

`python -m infra.shared_layer` builds (if needed) and prints the folder and its size.
"""

from __future__ import annotations

import fnmatch
import hashlib
import shutil
import uuid
from pathlib import Path

from infra import constants, layer_bytecode
from infra.dependency_layer import CACHE_DIR, tree_size


def _shipped(relative: Path) -> bool:
    return not any(fnmatch.fnmatch(part, pattern) for part in relative.parts for pattern in constants.LAYER_EXCLUDES)


def source_files(source: Path = constants.LAYER_DIR) -> list[Path]:
    """The layer's files as they ship, relative to `source`, sorted (caches and bytecode left out)."""
    return sorted(
        path.relative_to(source) for path in source.rglob("*") if path.is_file() and _shipped(path.relative_to(source))
    )


def cache_key(source: Path = constants.LAYER_DIR) -> str:
    digest = hashlib.sha256()
    digest.update("\0".join([layer_bytecode.RECIPE_VERSION, *layer_bytecode.compile_arguments(Path("<t>"))]).encode())
    for relative in source_files(source):
        digest.update(f"\0{relative.as_posix()}\0".encode())
        digest.update((source / relative).read_bytes())
    return digest.hexdigest()[:16]


def layer_root(source: Path = constants.LAYER_DIR, *, cache_dir: Path = CACHE_DIR) -> Path:
    """The folder to hand to `Code.from_asset`: `python/` holds the packages and their bytecode. Built when missing."""
    root = cache_dir / f"shared-{cache_key(source)}"
    if (root / "python").is_dir():
        return root
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Staged beside the final folder and renamed: a parallel synth or test never sees a half-built layer.
    staging = cache_dir / f"staging-{uuid.uuid4().hex}"
    try:
        for relative in source_files(source):
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / relative, staging / relative)
        layer_bytecode.compile_layer(staging / "python")
        try:
            staging.rename(root)
        except OSError:
            # Another process finished the same build first; its folder is identical.
            if not (root / "python").is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return root


def main() -> None:
    root = layer_root()
    print(f"{root}  {tree_size(root) / 1_000_000:.2f} MB unzipped")


if __name__ == "__main__":
    main()
