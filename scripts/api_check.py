"""The library's public API against the last release's: `make api-check` (CI, `.ci/run`); `--write` records it.

The last release's API is committed as api/ddbguard-<version>.json (griffe's JSON of the public surface only),
so a clean checkout with no release tags can still compare. The public surface is what `__all__` names (ddbguard's
docstring): a module its package's `__all__` names, a name its module's `__all__` names; internal and product
modules are left out of the record and of the comparison. griffe (`find_breaking_changes`) reports what a user of
the last release would break on: a public object removed, a parameter removed, renamed, reordered or made
required, a changed default, a changed return or base class, an attribute's changed value.

A deliberate break is recorded, not hidden: `make api-check WRITE=1` writes the baseline for the version in
pyproject.toml again, and CHANGELOG.md says what broke (tests/unit/test_api_check.py: every baseline names a release
CHANGELOG.md has a heading for).

Exit status 1 and one line per breaking change when anything breaks.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

import griffe

ROOT = Path(__file__).resolve().parents[1]
LAYER = ROOT / "functions" / "layer" / "python"
PACKAGES = ("ddbguard", "ddbguard_api", "ddbguard_jobs", "ddbguard_cdk")
# The layer's packages are in the layer; the CDK construct's sources are in src/.
SEARCH_PATHS = [str(LAYER), str(ROOT / "src")]
API = ROOT / "api"
# griffe colours its one-line explanations; CI logs and tests read them plain.
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def baseline_path(release: str) -> Path:
    return API / f"ddbguard-{release}.json"


def public_only(module: griffe.Module) -> griffe.Module:
    """`module` with every member `__all__` does not name removed, recursively, and `__all__` itself."""
    exported = {str(name) for name in module.exports or ()}
    for name, member in list(module.members.items()):
        if name not in exported:
            del module.members[name]
        elif isinstance(member, griffe.Module):
            public_only(member)
        else:
            member.docstring = None
    module.docstring = None
    return module


def current_api() -> dict[str, griffe.Module]:
    loaded = {}
    for package in PACKAGES:
        module = griffe.load(package, search_paths=SEARCH_PATHS, resolve_aliases=False)
        assert isinstance(module, griffe.Module)
        loaded[package] = public_only(module)
    return loaded


# Where things are in their files: moving code is no change of API, so the record sets them to 0 (griffe's decoder
# requires some of them).
LOCATION_KEYS = ("lineno", "endlineno")


def relative_paths(value: object) -> object:
    """The JSON with file paths relative to the repository and line numbers 0: the same on every machine."""
    if isinstance(value, dict):
        return {key: 0 if key in LOCATION_KEYS else relative_paths(item) for key, item in value.items()}
    if isinstance(value, list):
        return [relative_paths(item) for item in value]
    if isinstance(value, str) and value.startswith(f"{ROOT}/"):
        return value[len(str(ROOT)) + 1 :]
    return value


def write(path: Path) -> None:
    record = {package: json.loads(module.as_json()) for package, module in current_api().items()}
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(relative_paths(record), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def with_griffe_defaults(tree: dict[str, object]) -> dict[str, object]:
    """griffe's compact JSON leaves out a type alias's empty type parameters, and its decoder requires them."""
    if tree.get("kind") == "type alias":
        tree.setdefault("type_parameters", [])
    return tree


def load(path: Path) -> dict[str, griffe.Module]:
    record = json.loads(path.read_text(encoding="utf-8"), object_hook=with_griffe_defaults)
    # One collection holds both packages, so a name one module re-exports from another resolves, as when loaded.
    collection = griffe.ModulesCollection()
    loaded = {}
    for package, tree in record.items():
        module = json.loads(json.dumps(tree), object_hook=griffe.json_decoder)
        assert isinstance(module, griffe.Module)
        module._modules_collection = collection  # griffe.load sets it; its JSON decoder has no parameter for it
        collection.set_member(package, module)
        loaded[package] = module
    return loaded


def breaking_changes(old: dict[str, griffe.Module], new: dict[str, griffe.Module]) -> list[str]:
    found = []
    for package, before in old.items():
        if package not in new:
            found.append(f"{package}: the package was removed")
            continue
        for breakage in griffe.find_breaking_changes(before, new[package]):
            found.append(ANSI_COLOUR.sub("", breakage.explain()))
    return found


def latest_baseline() -> Path | None:
    def release_of(path: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in path.stem.removeprefix("ddbguard-").split("."))

    recorded = sorted(API.glob("ddbguard-*.json"), key=release_of)
    return recorded[-1] if recorded else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="record the API as the baseline of this version")
    options = parser.parse_args()
    if options.write:
        path = baseline_path(version())
        write(path)
        print(f"api_check: wrote {path.relative_to(ROOT)}; say in CHANGELOG.md what it changes")
        return 0
    baseline = latest_baseline()
    if baseline is None:
        print("api_check: no baseline in api/ (make api-check WRITE=1)", file=sys.stderr)
        return 1
    found = breaking_changes(load(baseline), current_api())
    for line in found:
        print(line, file=sys.stderr)
    verdict = f"{len(found)} breaking changes" if found else "no breaking change"
    print(f"api_check: public API against {baseline.relative_to(ROOT)}: {verdict}")
    if found:
        print("api_check: a deliberate break: make api-check WRITE=1, and a CHANGELOG line", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
