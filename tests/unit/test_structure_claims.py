"""Claims the code makes about its own structure, checked on the source.

- `ddbguard/store/keys.py`: "nothing else in ddbguard spells a key": no other layer module holds a string with a
  key prefix of keys.py in it.

Attribute names have their own test (tests/unit/test_attribute_names.py).

Where the code does not hold a claim yet, the exception is listed below with the module and the spelling; an
exception that no longer occurs fails too, so the list only shrinks and the claim ends up true.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from ddbguard.store import keys

LAYER = Path(__file__).resolve().parents[2] / "functions" / "layer" / "python"
KEYS_MODULE = "ddbguard/store/keys.py"

# (module, the key prefix it spells): none left; a new one is listed here with its reason.
KEY_SPELLINGS_LEFT: set[tuple[str, str]] = set()


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(LAYER).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(LAYER.rglob("*.py"))
        if "__pycache__" not in path.parts
    ]


def _strings(tree: ast.Module) -> Iterator[str]:
    """Every string constant of a module but its docstrings (prose may name a key format)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.value


def test_nothing_but_the_key_builders_spells_a_key():
    prefixes = {value for name, value in vars(keys).items() if name.endswith("_PREFIX") and isinstance(value, str)}
    assert {"ACCT#", "UNIQ#", "TXN#"} <= prefixes
    spelled = {
        (module, prefix)
        for module, tree in _modules()
        if module != KEYS_MODULE
        for text in _strings(tree)
        for prefix in prefixes
        if prefix in text
    }
    assert spelled - KEY_SPELLINGS_LEFT == set(), "a key spelled outside ddbguard/store/keys.py"
    assert KEY_SPELLINGS_LEFT - spelled == set(), "no longer spelled: remove it from KEY_SPELLINGS_LEFT"


def _namedtuple_fields(tree: ast.Module) -> Iterator[tuple[str, int]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(ast.unparse(base).startswith("NamedTuple") for base in node.bases):
            yield node.name, sum(isinstance(statement, ast.AnnAssign) for statement in node.body)


def test_no_record_of_more_than_three_fields_is_a_tuple():
    """A record of more than three fields is built by keyword and read by name (`ddbguard.records.Record`), never
    a NamedTuple: positions of eight fields are a bug waiting, and `record == tuple(record)` is true of a tuple."""
    tuples = {f"{module}:{name}": count for module, tree in _modules() for name, count in _namedtuple_fields(tree)}
    assert tuples, "the check sees the small NamedTuples that remain"
    assert {name: count for name, count in tuples.items() if count > 3} == {}
