"""The shared layer (`ddbguard`, `ddbguard_api`) and the function code, staged with their bytecode as Lambda loads them.

`functions/layer` is copied without caches into `.local/layers/shared-<hash>/`, and the function code (functions/
without the layer, caches and tests, as the code asset always was) into `.local/layers/code-<hash>/`, and each is
compiled there (src/ddbguard_cdk/layer_bytecode.py) for where Lambda puts it: /opt/python, /var/task. Both are
read-only on Lambda, so without bytecode every cold start compiled `routes.py`, the handler and the layer from
source. The source tree never gets a `.pyc` from this. The hash covers every source file's path and bytes and the
compile step, so an unchanged tree reuses its folder (same CDK asset hash, no diff) and a changed file builds a new one.

`python -m infra.staged_assets` builds both (if needed) and prints the folders and their sizes.
"""

from __future__ import annotations

import fnmatch
import hashlib
import shutil
from pathlib import Path

from ddbguard_cdk import layer_bytecode
from ddbguard_cdk.dependency_layer import built_once
from infra import constants
from infra.dependency_layer import CACHE_DIR, tree_size


def _shipped(relative: Path, excludes: tuple[str, ...]) -> bool:
    return not any(fnmatch.fnmatch(part, pattern) for part in relative.parts for pattern in excludes)


def source_files(
    source: Path = constants.LAYER_DIR, excludes: tuple[str, ...] = constants.LAYER_EXCLUDES
) -> list[Path]:
    """The asset's files as they ship, relative to `source`, sorted (caches and bytecode left out)."""
    return sorted(
        path.relative_to(source)
        for path in source.rglob("*")
        if path.is_file() and _shipped(path.relative_to(source), excludes)
    )


def cache_key(
    source: Path = constants.LAYER_DIR,
    excludes: tuple[str, ...] = constants.LAYER_EXCLUDES,
    deployed_root: str = layer_bytecode.DEPLOYED_ROOT,
) -> str:
    digest = hashlib.sha256()
    compile_step = layer_bytecode.compile_arguments(Path("<t>"), deployed_root)
    digest.update("\0".join([layer_bytecode.RECIPE_VERSION, *compile_step]).encode())
    for relative in source_files(source, excludes):
        digest.update(f"\0{relative.as_posix()}\0".encode())
        digest.update((source / relative).read_bytes())
    return digest.hexdigest()[:16]


def layer_root(source: Path = constants.LAYER_DIR, *, cache_dir: Path = CACHE_DIR) -> Path:
    """The folder to hand to `Code.from_asset`: `python/` holds the packages and their bytecode. Built when missing."""
    root = cache_dir / f"shared-{cache_key(source)}"
    return _staged(source, constants.LAYER_EXCLUDES, root, "python", layer_bytecode.DEPLOYED_ROOT)


def code_root(source: Path = constants.FUNCTIONS_DIR, *, cache_dir: Path = CACHE_DIR) -> Path:
    """The function code asset's folder (Lambda's /var/task): route table, handlers and their bytecode."""
    excludes = constants.CODE_EXCLUDES
    root = cache_dir / f"code-{cache_key(source, excludes, layer_bytecode.FUNCTION_CODE_ROOT)}"
    return _staged(source, excludes, root, ".", layer_bytecode.FUNCTION_CODE_ROOT)


def _staged(source: Path, excludes: tuple[str, ...], root: Path, site: str, deployed_root: str) -> Path:
    def build(staging: Path) -> None:
        for relative in source_files(source, excludes):
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / relative, staging / relative)
        layer_bytecode.compile_layer(staging / site, deployed_root)

    return built_once(root, build, complete=root / site)


def main() -> None:
    for root in (layer_root(), code_root()):
        print(f"{root}  {tree_size(root) / 1_000_000:.2f} MB unzipped")


if __name__ == "__main__":
    main()
