"""Every attribute name is spelled once: in `ddbguard.store.attribute_names`, whose constants the layer uses.

The typed views of stored items (`ddbguard.store.items`) declare the same names as their fields (a TypedDict's
fields cannot be named by constants), so every field there must be a schema name; and no other module of the
layer may spell an attribute name as a raw string, where a typo would write another attribute unseen. What is no
attribute is not counted: docstrings, `__slots__` (an object's own attribute names), `__all__` (a module's public
names), the name of a kind of unique
value (`UniqueKind(name="email")`, `matching_kind("slug", ...)`). An entity declares its own fields by name
(`Entity(fields={"slug": ...})`, a `lines` record's fields): a resource's attributes only its declaration knows are
spelled there, once, and nowhere else.
"""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

from ddbguard.store import attribute_names, items

LAYER = Path(__file__).resolve().parents[2] / "functions" / "layer" / "python" / "ddbguard"
DECLARATIONS = {LAYER / "store" / "attribute_names.py", LAYER / "store" / "items.py"}
# The shared kernel imports no floor (tests/unit/test_layer_boundaries.py), so it cannot import the schema: its
# problem extensions name the public fields they carry.
KERNEL = {LAYER / "errors.py"}

ATTRIBUTE_NAMES = {value for name, value in vars(attribute_names).items() if name.isupper() and isinstance(value, str)}


def _stored_item_views() -> list[type]:
    return [
        value
        for value in vars(items).values()
        if isinstance(value, type) and typing.is_typeddict(value) and value.__module__ == items.__name__
    ]


def test_every_field_of_a_stored_item_is_a_schema_attribute_name():
    undeclared = {
        f"{view.__name__}.{field}"
        for view in _stored_item_views()
        for field in view.__annotations__
        if field not in ATTRIBUTE_NAMES
    }
    assert _stored_item_views() and undeclared == set()


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _called(node: ast.AST, *names: str) -> bool:
    function = node.func if isinstance(node, ast.Call) else None
    called = (
        function.id if isinstance(function, ast.Name) else function.attr if isinstance(function, ast.Attribute) else ""
    )
    return called in names


def _not_attributes(tree: ast.AST) -> set[int]:
    """Strings that are no attribute name: kind names, `__slots__`, `__all__`, an entity's own field declarations."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node, "UniqueKind", "matching_kind"):
            found |= {id(arg) for arg in node.args[:1]}
            found |= {id(keyword.value) for keyword in node.keywords if keyword.arg == "name"}
        if isinstance(node, ast.Call) and _called(node, "Entity", "lines"):
            declared = [keyword.value for keyword in node.keywords if keyword.arg == "fields"] + node.args[1:2]
            found |= {id(key) for fields in declared if isinstance(fields, ast.Dict) for key in fields.keys if key}
        names = ("__slots__", "__all__")
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in node.targets):
            found |= {id(element) for element in ast.walk(node.value)}
    return found


def raw_attribute_names(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every string literal in `source` that is one of `names`, what is no attribute aside."""
    tree = ast.parse(source)
    ignored = _docstrings(tree) | _not_attributes(tree)
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
        if id(node) not in ignored
    )


def test_no_module_of_the_layer_spells_an_attribute_name_as_a_raw_string():
    found = [
        f"{path.relative_to(LAYER)}:{line}: {name!r}"
        for path in sorted(LAYER.rglob("*.py"))
        if path not in DECLARATIONS | KERNEL
        for line, name in raw_attribute_names(path.read_text(encoding="utf-8"), ATTRIBUTE_NAMES)
    ]
    assert found == []


def test_the_check_finds_a_raw_attribute_name():
    """Not vacuous: a literal key, a condition on a raw name and a subscript are all found; a docstring is not."""
    source = '''"""accountId in a docstring is prose."""
item = {"accountId": "a", KIND: "x"}
condition = Attr("pending").exists()
value = item["version"]
WIDGET = Entity("widget", fields={"status": choice(("A",))})
__slots__ = ("status",)
'''
    assert raw_attribute_names(source, ATTRIBUTE_NAMES) == [(2, "accountId"), (3, "pending"), (4, "version")]


def _spelled_as(name: str) -> str:
    """The constant's name for an attribute name: `holdCents` -> HOLD_CENTS, `PK` -> PK."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def test_every_constant_is_named_as_it_spells():
    """A reader knows the stored name from the constant: `HOLD_CENTS` is `holdCents`, `PENDING` is `pending`."""
    named = {
        name: value
        for name, value in vars(attribute_names).items()
        if name.isupper() and isinstance(value, str) and not name.endswith("_INDEX")  # an index's name
    }
    assert len(named) > 40
    assert {name: value for name, value in named.items() if _spelled_as(value) != name} == {}
