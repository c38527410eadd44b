"""Writes the request body classes and their pydantic-core schemas from the pydantic request models (`make
regenerate`): ddbguard_api/models/request_bodies.py and ddbguard_api/models/compiled_schemas.py.

The pydantic models are the one source (`ddbguard_api.models.request_models`, written by hand, and the bodies every
declared entity of the route table derives, `ddbguard_api.models.entity_models`). Each becomes:
- a light class (`class Amount(Body)`, its fields as annotations and a keyword-only `__init__`): what a handler's
  `request.body` is, importable at cold start without pydantic;
- its core schema as Python source, with the class and the rule functions (`ddbguard_api.models.body_rules`) named
  as the objects they are, so validation needs pydantic-core alone and builds instances of that class.
A model whose schema holds anything else (a validator that is not a plain function of body_rules) is refused here:
every body must validate without pydantic. tests/unit/test_compiled_schemas.py fails when the files are stale.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import local  # noqa: F401 - functions/ and the layer on sys.path
from local.paths import ROOT

if TYPE_CHECKING:
    from pydantic import BaseModel

MODELS_DIR = ROOT / "functions" / "layer" / "python" / "ddbguard_api" / "models"
BODIES_PATH = MODELS_DIR / "request_bodies.py"
SCHEMAS_PATH = MODELS_DIR / "compiled_schemas.py"
RULES_MODULE = "ddbguard_api.models.body_rules"
# Parts of a core schema that are pydantic's bookkeeping, not validation: JSON Schema hooks and process-bound refs.
_LEFT_OUT = frozenset({"metadata", "ref"})


def source_models() -> list[type[BaseModel]]:
    """Every request body and query model: the hand-written ones, then each declared entity's create and update."""
    import routes
    from ddbguard_api.models import request_models
    from ddbguard_api.models.entity_models import request_models_of

    written = [
        model
        for model in vars(request_models).values()
        if isinstance(model, type)
        and issubclass(model, request_models.StrictModel)
        and model.__module__ == request_models.__name__
        and model is not request_models.StrictModel
    ]
    derived = [model for entity in routes.ENTITIES if entity.fields for model in request_models_of(entity)]
    return sorted(written, key=lambda model: model.__name__) + derived


def _core_schema(model: type[BaseModel]) -> Mapping[str, Any]:
    model.model_rebuild(force=True)
    return model.__pydantic_core_schema__


def _without_bookkeeping(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {key: _without_bookkeeping(value) for key, value in schema.items() if key not in _LEFT_OUT}
    if isinstance(schema, list | tuple):
        return [_without_bookkeeping(item) for item in schema]
    return schema


def _python(value: Any, key: str = "") -> str:
    """`value` (a core schema part) as Python source; classes by their name, rule functions by `body_rules.<name>`."""
    if isinstance(value, dict):
        parts = ", ".join(f"{key!r}: {_python(item, key)}" for key, item in value.items())
        return f"{{{parts}}}"
    if isinstance(value, list):
        return f"[{', '.join(_python(item) for item in value)}]"
    if value is None or isinstance(value, str | int | float | bool):
        return repr(value)
    if key == "cls" and isinstance(value, type):
        return value.__name__
    if callable(value) and getattr(value, "__module__", None) == RULES_MODULE:
        return f"body_rules.{value.__qualname__}"
    raise TypeError(
        f"{type(value).__name__} in a core schema: only body_rules' plain functions validate without pydantic"
    )


def _inner_model(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The `model` schema itself, under any validator functions wrapped around it."""
    while schema["type"] != "model":
        schema = schema["schema"]
    return schema


def _annotation(schema: Mapping[str, Any]) -> str:
    """The Python type a core schema validates into, as written in the generated class."""
    kind = schema["type"]
    simple = {"int": "int", "str": "str", "bool": "bool", "float": "float"}
    if kind in simple:
        return simple[kind]
    if kind == "nullable":
        return f"{_annotation(schema['schema'])} | None"
    if kind == "list":
        return f"list[{_annotation(schema['items_schema'])}]"
    if kind == "literal":
        return f"Literal[{', '.join(repr(value) for value in schema['expected'])}]"
    if kind == "model":
        return str(schema["cls"].__name__)
    if kind in ("default", "function-after", "function-before", "function-wrap", "model-field"):
        return _annotation(schema["schema"])
    raise TypeError(f"no annotation for a {kind} schema")


def _nested_models(schema: Any) -> Iterable[Mapping[str, Any]]:
    """Every `model` schema inside `schema`, innermost first (so a class is written before the classes using it)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key != "cls":
                yield from _nested_models(value)
        if schema.get("type") == "model":
            yield schema
    elif isinstance(schema, list):
        for item in schema:
            yield from _nested_models(item)


def _received_by(name: str) -> str:
    """Which routes receive the body (or query) `name`, in words."""
    import routes

    bodies = [route.key for route in routes.ROUTES if route.body == name]
    queries = [route.key for route in routes.ROUTES if route.query == name]
    if bodies or queries:
        return f"The {'body' if bodies else 'query'} of {', '.join(bodies or queries)}."
    return f"{name}: a record inside a request body."


def _body_class(model: Mapping[str, Any]) -> str:
    fields = {name: _annotation(field) for name, field in model["schema"]["fields"].items()}
    defaults = {
        name: f" = {field['schema']['default']!r}"
        for name, field in model["schema"]["fields"].items()
        if field["schema"]["type"] == "default"
    }
    name = model["cls"].__name__
    lines = [f"class {name}(Body):"]
    said = textwrap.wrap(_received_by(name), width=110)
    lines.append('    """' + "\n    ".join(said) + '"""')
    lines.append("")
    lines.append("    __slots__ = ()")
    lines.append("")
    lines += [f"    {field}: {annotation}" for field, annotation in fields.items()]
    lines.append("")
    parameters = ", ".join(f"{field}: {annotation}{defaults.get(field, '')}" for field, annotation in fields.items())
    lines.append(f"    def __init__(self, *, {parameters}) -> None:")
    lines += [f"        self.{field} = {field}" for field in fields]
    return "\n".join(lines)


def sources(models: Iterable[type[BaseModel]]) -> tuple[str, str]:
    """(request_bodies.py, compiled_schemas.py) for `models`."""
    schemas: dict[str, Any] = {}
    classes: dict[str, str] = {}
    for model in models:
        schema = _without_bookkeeping(_core_schema(model))
        for nested in _nested_models(schema):
            classes.setdefault(nested["cls"].__name__, _body_class(nested))
        schemas[model.__name__] = schema
    bodies = [
        '"""Generated by `make regenerate` (local/generate_bodies.py) from the pydantic request models: do not edit.',
        "",
        "The class of every request body and query: what a handler's `request.body` (or `request.query`) is. pydantic",
        "-core builds them (ddbguard_api.models.body_validation), so importing them imports no pydantic.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Literal",
        "",
        "from ddbguard_api.models.body import Body",
        "",
        *(f"\n{source}\n" for source in classes.values()),
        "",
        "# The route table names a route's body and query by class name (functions/routes/).",
        "BODIES: dict[str, type[Body]] = {" + ", ".join(f"{name!r}: {name}" for name in classes) + "}",
        "",
    ]
    names = ", ".join(sorted(classes))
    compiled = [
        '"""Generated by `make regenerate` (local/generate_bodies.py) from the pydantic request models: do not edit.',
        "",
        "Each body class's pydantic-core schema, naming the class and its rule functions as objects, so that",
        'validating a request needs pydantic-core alone (ddbguard_api.models.body_validation)."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import TYPE_CHECKING, Any",
        "",
        "from ddbguard_api.models import body_rules",
        f"from ddbguard_api.models.request_bodies import {names}",
        "",
        "if TYPE_CHECKING:",
        "    from ddbguard_api.models.body import Body",
        "",
        "SCHEMAS: dict[type[Body], Any] = {",
        *(f"    {name}: {_python(schema)}," for name, schema in schemas.items()),
        "}",
        "",
    ]
    return "\n".join(bodies), "\n".join(compiled)


def write(bodies_path: Path = BODIES_PATH, schemas_path: Path = SCHEMAS_PATH) -> None:
    bodies, compiled = sources(source_models())
    bodies_path.write_text(bodies, encoding="utf-8")
    schemas_path.write_text(compiled, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "ruff", "format", "-q", str(bodies_path), str(schemas_path)], check=True, cwd=ROOT
    )
    subprocess.run(
        [sys.executable, "-m", "ruff", "check", "-q", "--fix", "--select", "I,F401", str(bodies_path)],
        check=True,
        cwd=ROOT,
    )


def main() -> int:
    write()
    print(f"wrote {BODIES_PATH.relative_to(ROOT)} and {SCHEMAS_PATH.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
