"""The OpenAPI document's example bodies cannot collide with the demo world or the walk-through.

Swagger UI's "Try it out" and schemathesis send these examples to a running `make run`: an example that names an
email or username the walk-through creates would take it first, and the walk-through would answer 409.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import routes
from local import demo
from local.paths import ROOT
from local.route_stories import sample_body

UNIQUE_FIELDS = ("email", "username")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value.casefold()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _example_unique_values() -> set[str]:
    schemas = json.loads((ROOT / "docs" / "openapi.json").read_text())["components"]["schemas"]
    found = set()
    for schema in schemas.values():
        for example in schema.get("examples", []):
            if isinstance(example, dict):
                found |= {str(example[name]).casefold() for name in UNIQUE_FIELDS if name in example}
    return found


def test_examples_name_no_email_or_username_the_demo_or_the_walkthrough_uses():
    examples = _example_unique_values()
    assert examples, "the account examples are found"
    used = set(_strings([sample_body(route) for route in routes.ROUTES]))
    used |= set(_strings([step.body for step in demo.SEED_STEPS]))
    used |= {value.split("@")[0] for value in used}  # a username that is another's email's local part
    readme = (ROOT / "README.md").read_text().casefold() + (ROOT / "docs" / "api.md").read_text().casefold()
    assert not examples & used, examples & used
    assert not [value for value in examples if value in readme], "the guides' own values stay theirs"
