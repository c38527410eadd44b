"""The request path validates with pydantic-core on schemas compiled ahead (ddbguard_api.models.body_validation)
into the generated body classes: it must give exactly what pydantic gives (values, error fields, codes and messages),
stay equal to its generator (local/generate_bodies.py), build instances of the classes handlers are typed with, and
never import pydantic.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_core import ValidationError

import routes
from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard_api.http.bodies import field_errors
from ddbguard_api.models import compiled_schemas
from ddbguard_api.models.body import Body
from ddbguard_api.models.body_validation import validate
from ddbguard_api.models.request_bodies import BODIES, CreateOrder, OrderLine
from local import generate_bodies
from local.api_models import request_model
from local.paths import ROOT
from local.route_stories import sample_body

COMPILED = sorted(body.__name__ for body in compiled_schemas.SCHEMAS)


def test_the_committed_classes_and_schemas_are_the_generated_ones(tmp_path) -> None:
    bodies, schemas = tmp_path / "request_bodies.py", tmp_path / "compiled_schemas.py"
    generate_bodies.write(bodies, schemas)
    assert bodies.read_text() == generate_bodies.BODIES_PATH.read_text(), "run `make regenerate`"
    assert schemas.read_text() == generate_bodies.SCHEMAS_PATH.read_text(), "run `make regenerate`"


def test_every_body_and_query_the_routes_name_is_compiled_into_its_class() -> None:
    named = {name for route in routes.ROUTES for name in (route.body, route.query) if name is not None}
    assert named <= set(COMPILED) <= set(BODIES)


def _outcome(validated: Any, document: Any, strict: bool | None) -> tuple[str, Any]:
    try:
        value = validated(document, strict=strict)
    except ValidationError as error:
        return "422", [(e.field, e.code, e.message) for e in field_errors(error)]
    return "ok", value.model_dump()


def _same(name: str, document: Any, strict: bool | None = None) -> tuple[str, Any]:
    def compiled_path(doc: Any, strict: bool | None) -> Any:
        return validate(BODIES[name], doc, strict=strict)

    compiled = _outcome(compiled_path, document, strict)
    pydantic = _outcome(request_model(name).model_validate, document, strict) if name in _MODELS else compiled
    assert compiled == pydantic, (name, document)
    return compiled


# The pydantic models the classes are generated from; a nested record (`OrderLine`) is compared inside its parent.
_MODELS = {model.__name__ for model in generate_bodies.source_models()}


VALID: dict[str, dict[str, Any]] = {
    "Amount": {"amountCents": 2500},
    "CreateAccount": {"email": "ada@lovelace.io", "username": "ada", "displayName": "Ada"},
    "Transfer": {"fromAccountId": "a-1", "toAccountId": "b-2", "amountCents": 10},
    "CreateOrder": {"accountId": "a-1", "items": [{"sku": "BOOK-1", "quantity": 2, "unitPriceCents": 5}]},
    "OrderLine": {"sku": "BOOK-1", "quantity": 1, "unitPriceCents": 1},
    "UpdateOrder": {"status": "SHIPPED"},
    "UpdateAccount": {"displayName": "Countess"},
    "StatementQuery": {"limit": "10"},
    "AccountListQuery": {},
}


def _valid(name: str) -> dict[str, Any]:
    """A valid body: hand-picked, or for a declared resource's body its route's sample body."""
    if name in VALID:
        return VALID[name]
    route = next(route for route in routes.ROUTES if route.body == name)
    body = sample_body(route)
    assert body is not None, name
    return body


@pytest.mark.parametrize("name", COMPILED)
def test_hand_picked_bodies_give_what_pydantic_gives(name: str) -> None:
    valid = _valid(name)
    assert _same(name, valid, strict=False if name.endswith("Query") else None)[0] == "ok"
    refusals = [
        {},
        {**valid, "unknown": 1},
        dict.fromkeys(valid, None),
        dict.fromkeys(valid, Decimal("1.5")),
        dict.fromkeys(valid, True),
        dict.fromkeys(valid, "x" * 400),
        dict.fromkeys(valid, 0),
        dict.fromkeys(valid, 10**12),
        {key: [value] for key, value in valid.items()},
    ]
    outcomes = {_same(name, document)[0] for document in refusals}
    assert "422" in outcomes


def _documents(name: str) -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**13), max_value=10**13),
        st.decimals(allow_nan=False, allow_infinity=False, places=2),
        st.text(max_size=40),
        st.sampled_from(["PAID", "SHIPPED", "CANCELLED", "BOOK-1", "a@b.example", "ada", "ok-id"]),
    )
    value = st.recursive(
        leaf,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=8,
    )
    keys = st.sampled_from([*_valid(name), *VALID["OrderLine"], "extra"])
    return st.dictionaries(keys, value, max_size=5)


@pytest.mark.parametrize("name", COMPILED)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_bodies_give_what_pydantic_gives(name: str, data: st.DataObject) -> None:
    document = data.draw(_documents(name))
    _same(name, document, strict=False if name.endswith("Query") else None)


def test_the_named_validator_function_refuses_as_pydantic_does() -> None:
    updatable = ", ".join(name for name, spec in ACCOUNT.fields.items() if spec.updatable)  # from the declaration
    assert updatable.startswith("email, username")
    assert _same("UpdateAccount", {}) == (
        "422",
        [("body", "value_error", f"Value error, send at least one of {updatable}")],
    )


def test_a_validated_body_is_an_instance_of_its_generated_class() -> None:
    order = validate(CreateOrder, VALID["CreateOrder"])
    assert type(order) is CreateOrder and type(order.items[0]) is OrderLine
    assert order.accountId == "a-1" and order.orderId is None and order.items[0].sku == "BOOK-1"
    # What only the real class has: its own constructor, by keyword.
    line = OrderLine(sku="BOOK-1", quantity=2, unitPriceCents=5)
    assert order == CreateOrder(accountId="a-1", items=[line], orderId=None)
    assert isinstance(order, Body) and not isinstance(order, BODIES["Amount"])


_PROBE = r"""
import json, sys
from ddbguard_api.models.request_bodies import Amount
from ddbguard_api.http.bodies import parse_body
event = {"body": '{"amountCents": 5}', "headers": {"Content-Type": "application/json"}}
body, _ = parse_body(event, Amount)
loaded = sorted(name for name in ("pydantic", "pydantic_core") if name in sys.modules)
print(json.dumps({"amountCents": body.amountCents, "loaded": loaded}))
"""


def test_a_first_request_with_a_body_never_imports_pydantic() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        cwd=ROOT / "functions" / "layer" / "python",
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == {"amountCents": 5, "loaded": ["pydantic_core"]}
