"""The edge is typed: `dict[str, Any]` appears in the layer only at the storage boundary (`ddbguard/store/`), and
the proxy types say what the edge really reads and writes.

Proxy events and responses are `ddbguard_api.http.proxy_events` TypedDicts; JSON documents are
`ddbguard_api.http.json_documents.JsonValue` (or `Mapping[str, object]` where only read).
"""

from __future__ import annotations

import ast
import subprocess
import sys
import typing
from pathlib import Path

from ddbguard_api.http import json_documents, proxy_events
from ddbguard_api.http.replies import add_header, no_content, ok, proxy_response

LAYER = Path(__file__).resolve().parents[2] / "functions" / "layer" / "python"
STORAGE_BOUNDARY = LAYER / "ddbguard" / "store"


def _is_dict_of_str_to_any(node: ast.AST) -> bool:
    """`dict[str, Any]` (or `Dict[str, typing.Any]`) as written in an annotation, an alias or a string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if "ict[" not in node.value:  # not a type written as a string (or a quoted annotation)
            return False
        try:
            return any(_is_dict_of_str_to_any(n) for n in ast.walk(ast.parse(node.value, mode="eval")))
        except SyntaxError:
            return False
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
        return False
    container = ast.unparse(node.value).rsplit(".", 1)[-1]
    key, value = (ast.unparse(element).rsplit(".", 1)[-1] for element in node.slice.elts[:2])
    return container in {"dict", "Dict"} and key == "str" and value == "Any" and len(node.slice.elts) == 2


def _dicts_of_any(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(LAYER)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript | ast.Constant) and _is_dict_of_str_to_any(node)
    ]


def test_the_detector_finds_dict_of_str_to_any_in_every_spelling():
    samples = ["x: dict[str, Any]", "x: typing.Dict[str, typing.Any]", 'X = "dict[str, Any] | None"']
    found = [node for sample in samples for node in ast.walk(ast.parse(sample)) if _is_dict_of_str_to_any(node)]
    assert len(found) == len(samples)
    assert not any(_is_dict_of_str_to_any(n) for n in ast.walk(ast.parse("x: dict[str, object]")))


def test_dict_of_str_to_any_appears_only_at_the_storage_boundary():
    modules = [p for p in LAYER.rglob("*.py") if "__pycache__" not in p.parts]
    outside = [hit for p in modules if STORAGE_BOUNDARY not in p.parents for hit in _dicts_of_any(p)]
    assert modules and outside == []


def test_a_proxy_response_has_exactly_the_fields_its_type_declares():
    declared = set(typing.get_type_hints(proxy_events.ProxyResponse))
    responses = [proxy_response(ok({"version": 1})), proxy_response(no_content())]
    responses.append(add_header(responses[0], "X-Test", "yes"))
    assert [set(response) for response in responses] == [declared] * 3
    assert proxy_events.ProxyResponse.__required_keys__ == declared


def test_a_proxy_event_may_lack_any_field():
    assert proxy_events.ProxyEvent.__total__ is False
    assert proxy_events.ProxyEvent.__required_keys__ == frozenset()


def test_the_type_modules_import_nothing_new():
    """Types only: importing them loads no module beyond `typing` and `__future__` (every layer module imports both)."""
    code = (
        "import __future__, sys, typing; before = set(sys.modules); "
        f"import {proxy_events.__name__}, {json_documents.__name__}; "
        "print(sorted(set(sys.modules) - before - {'ddbguard_api', 'ddbguard_api.http', "
        f"'{proxy_events.__name__}', '{json_documents.__name__}'}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], env={"PYTHONPATH": str(LAYER)}, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
