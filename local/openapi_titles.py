"""Readable titles for the OpenAPI document: `Amount (cents)`, not pydantic's generated `Amountcents`.

Pydantic and Powertools title a field or parameter by capitalising its name (`amountCents` -> `Amountcents`);
every such generated title is replaced by the name's words. Titles someone wrote by hand are kept.
"""

from __future__ import annotations

import re
from typing import Any

ACRONYMS = {"id": "ID", "url": "URL", "sku": "SKU"}


def generated_title(name: str) -> str:
    """The title pydantic gives a field `name` when none is set."""
    return name.replace("_", " ").title()


def readable_title(name: str) -> str:
    """`amountCents` -> `Amount (cents)`, `fromAccountId` -> `From account ID`, `Idempotency-Key` unchanged."""
    if "-" in name:
        return name  # a header name is its own title
    words = [word.lower() for word in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)]
    if words and words[-1] == "cents" and len(words) > 1:
        words[-1] = "(cents)"
    words = [ACRONYMS.get(word, word) for word in words]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def make_titles_readable(node: Any) -> None:
    """Rewrite every generated property and parameter title below `node`, in place."""
    if isinstance(node, dict):
        for name, schema in (node.get("properties") or {}).items():
            if isinstance(schema, dict) and schema.get("title") == generated_title(name):
                schema["title"] = readable_title(name)
        if "in" in node and isinstance(node.get("schema"), dict) and isinstance(node.get("name"), str):
            schema = node["schema"]
            if schema.get("title") == generated_title(node["name"]):
                schema["title"] = readable_title(node["name"])
        for value in node.values():
            make_titles_readable(value)
    elif isinstance(node, list):
        for value in node:
            make_titles_readable(value)
