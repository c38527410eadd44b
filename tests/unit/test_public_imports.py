"""The product uses the library through its public names only, and the library never uses the product.

The library is the layer's packages `ddbguard` and `ddbguard_api` (functions/layer/python), built into one wheel by
`make dist`. Its public API is what `__all__` names: a module is public when its package's `__all__` names it, a
name when its module's `__all__` does (ddbguard's docstring). The product is everything that uses it: the handlers
(functions/), infra/, local/, examples/, scripts/, app.py, and its own domain modules that still live in the layer
(each package's `PRODUCT_MODULES`). tests/ and bench/ look inside on purpose and are not judged here.

All of it is read from the source (AST), so no module is imported to judge it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from local.paths import ROOT

LAYER = ROOT / "functions" / "layer" / "python"
LIBRARY = ("ddbguard", "ddbguard_api", "ddbguard_jobs", "ddbguard_cdk")
# Where each package's sources are: the layer's packages in the layer, the CDK construct in src/.
SOURCES = {"ddbguard_cdk": ROOT / "src"}


def source_root(module: str) -> Path:
    return SOURCES.get(module.split(".")[0], LAYER)


USER_FOLDERS = ("functions", "infra", "local", "examples", "scripts")
USER_FILES = ("app.py",)


def module_file(module: str) -> Path | None:
    base = source_root(module).joinpath(*module.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def module_name(path: Path) -> str:
    root = next(folder for folder in (*SOURCES.values(), LAYER) if folder in path.parents)
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def top_level_value(module: str, name: str) -> tuple[str, ...] | None:
    """A module's top-level `name = [...]` or `(...)` of strings, read from its source; None when it has none."""
    path = module_file(module)
    if path is None:
        return None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == name:
            return tuple(ast.literal_eval(value))
    return None


# `PRODUCT_MODULES = ("*",)`: every module of the package that its `__all__` does not name is the product's, so a
# team's new domain module (docs/extending.md) needs no entry.
EVERY_OTHER_MODULE = ("*",)


def is_product_child(package: str, child: str) -> bool:
    """`package.child` is one of the product's own modules, by its package's `PRODUCT_MODULES`."""
    declared = top_level_value(package, "PRODUCT_MODULES") or ()
    if declared == EVERY_OTHER_MODULE:
        return child not in (top_level_value(package, "__all__") or ())
    return child in declared


def is_product_module(module: str) -> bool:
    """`module` is, or lies inside, one of the product's own modules."""
    parts = module.split(".")
    return any(is_product_child(".".join(parts[:i]), parts[i]) for i in range(1, len(parts)))


def private_module_part(module: str) -> str | None:
    """The first part of `module` its package's `__all__` does not name (None when every part is public)."""
    parts = module.split(".")
    for i in range(1, len(parts)):
        package, child = ".".join(parts[:i]), parts[i]
        if is_product_child(package, child):
            return None  # the product's own: it may use itself
        if child.startswith("_") or child not in (top_level_value(package, "__all__") or ()):
            return f"{package}.{child}"
    return None


def refusals_of_import(module: str, names: list[str]) -> Iterator[str]:
    """Why `from module import names` (or `import module`, names empty) reaches past the public API."""
    private = private_module_part(module)
    if private is not None:
        yield f"{private} is not a public module"
        return
    if is_product_module(module):
        return
    exported = top_level_value(module, "__all__") or ()
    for name in names:
        if module_file(f"{module}.{name}") is not None:
            yield from refusals_of_import(f"{module}.{name}", [])
        elif name not in exported:
            yield f"{module}.{name} is not in {module}.__all__"


def library_imports(path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """Every import of a library module in `path`: line, module, names (empty for `import module`)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in LIBRARY:
                    yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in LIBRARY:
            yield node.lineno, str(node.module), [alias.name for alias in node.names]


def layer_modules() -> Iterator[tuple[str, Path]]:
    for package in LIBRARY:
        for path in sorted((source_root(package) / package).rglob("*.py")):
            yield module_name(path), path


def user_files() -> Iterator[Path]:
    for folder in USER_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            excluded = {"node_modules", "cdk.out", "__pycache__", ".venv", ".local"}
            if LAYER not in path.parents and not excluded & set(path.parts):
                yield path
    yield from (ROOT / name for name in USER_FILES)
    yield from (path for name, path in layer_modules() if is_product_module(name))


def refusals(paths: Iterator[Path]) -> list[str]:
    found = []
    for path in paths:
        for line, module, names in library_imports(path):
            found += [f"{path.relative_to(ROOT)}:{line}: {why}" for why in refusals_of_import(module, names)]
    return found


def test_the_product_imports_only_the_librarys_public_names():
    checked = list(user_files())
    assert len(checked) > 100, "the walk found too few files to judge"
    assert refusals(iter(checked)) == []


# The one exception, known: the edge's endpoint finds a route's body class and its validator in the generated
# registries of this deployment's bodies (`make regenerate`); a team on its own framework (examples/service/) uses
# the edge helpers without them.
GENERATED_REGISTRIES = ("ddbguard_api.models.request_bodies", "ddbguard_api.models.compiled_schemas")


def test_the_library_never_imports_the_products_own_modules():
    found = []
    for name, path in layer_modules():
        if is_product_module(name):
            continue
        for line, module, names in library_imports(path):
            targets = [module, *(f"{module}.{n}" for n in names if module_file(f"{module}.{n}"))]
            product = [t for t in targets if is_product_module(t) and t not in GENERATED_REGISTRIES]
            found += [f"{path.relative_to(ROOT)}:{line}: {t}" for t in product]
    assert found == []


def test_every_library_module_says_what_it_exports():
    missing = [name for name, _ in layer_modules() if top_level_value(name, "__all__") is None]
    assert [name for name in missing if not is_product_module(name)] == []


def test_every_name_in_an_all_exists_in_its_module():
    absent = []
    for name, path in layer_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {
            alias.asname or alias.name
            for node in tree.body
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        defined |= {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
        defined |= {
            t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)
        }
        defined |= {
            node.target.id
            for node in tree.body
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        }
        defined |= {node.name.id for node in tree.body if isinstance(node, ast.TypeAlias)}
        for exported in top_level_value(name, "__all__") or ():
            if exported not in defined and module_file(f"{name}.{exported}") is None:
                absent.append(f"{name}.{exported}")
    assert absent == []


def test_a_private_import_is_refused_and_a_public_one_passes(tmp_path):
    user = tmp_path / "handler.py"
    user.write_text(
        "from ddbguard.store import keys, codec\n"
        "from ddbguard.store.keys import entity_key\n"
        "from ddbguard.store.transient import busy_when_transient\n"
        "from ddbguard.guards.versioning import update_item, _not_a_public_name\n"
        "import ddbguard_api.http.request_log\n"
        "from ddbguard.domain.accounts import clean_values\n"
        "from ddbguard.domain.a_teams_new_resource import update_rules\n",
        encoding="utf-8",
    )
    found = [line.split(": ", 1)[1] for line in refusals_with_root(user)]
    assert found == [
        "ddbguard.store.codec is not a public module",
        "ddbguard.store.transient is not a public module",
        "ddbguard.guards.versioning._not_a_public_name is not in ddbguard.guards.versioning.__all__",
        "ddbguard_api.http.request_log is not a public module",
    ]


def refusals_with_root(path: Path) -> list[str]:
    return [
        f"{path.name}:{line}: {why}"
        for line, module, names in library_imports(path)
        for why in refusals_of_import(module, names)
    ]
