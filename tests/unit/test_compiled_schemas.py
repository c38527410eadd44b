"""The request path validates with pydantic-core on precompiled schemas (ddbguard_api.lazy_models): it must give
exactly what pydantic gives (values, error fields, codes and messages), stay equal to its generator, and never
import pydantic.
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

from ddbguard_api import compiled_schemas, models
from ddbguard_api.bodies import field_errors
from ddbguard_api.lazy_models import Body, LazyModel, lazy_model
from local.paths import ROOT

COMPILED = sorted(compiled_schemas.SCHEMAS)


def test_the_committed_schemas_are_the_generated_ones() -> None:
    namespace: dict[str, Any] = {}
    exec(models.compiled_schemas_source(), namespace)
    assert namespace["SCHEMAS"] == compiled_schemas.SCHEMAS, "run `make regenerate`"


def test_every_request_model_is_compiled() -> None:
    assert set(COMPILED) == {
        "AccountListQuery",
        "Amount",
        "CreateAccount",
        "CreateOrder",
        "OrderItem",
        "StatementQuery",
        "Transfer",
        "UpdateAccount",  # its validator is a plain function the schema names (ddbguard_api.bodies)
        "UpdateOrderStatus",
    }


def _outcome(model: Any, document: Any, strict: bool | None) -> tuple[str, Any]:
    try:
        value = model.model_validate(document, strict=strict)
    except ValidationError as error:
        return "422", [(e.field, e.code, e.message) for e in field_errors(error)]
    return "ok", value.model_dump()


def _same(name: str, document: Any, strict: bool | None = None) -> tuple[str, Any]:
    compiled, pydantic = _outcome(lazy_model(name), document, strict), _outcome(getattr(models, name), document, strict)
    assert compiled == pydantic, (name, document)
    return compiled


VALID: dict[str, dict[str, Any]] = {
    "Amount": {"amountCents": 2500},
    "CreateAccount": {"email": "ada@lovelace.io", "username": "ada", "displayName": "Ada"},
    "Transfer": {"fromAccountId": "a-1", "toAccountId": "b-2", "amountCents": 10},
    "CreateOrder": {"accountId": "a-1", "items": [{"sku": "BOOK-1", "quantity": 2, "unitPriceCents": 5}]},
    "OrderItem": {"sku": "BOOK-1", "quantity": 1, "unitPriceCents": 1},
    "UpdateOrderStatus": {"status": "SHIPPED"},
    "UpdateAccount": {"displayName": "Countess"},
    "StatementQuery": {"limit": "10"},
    "AccountListQuery": {},
}


@pytest.mark.parametrize("name", COMPILED)
def test_hand_picked_bodies_give_what_pydantic_gives(name: str) -> None:
    valid = VALID[name]
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
    keys = st.sampled_from([*VALID[name], *VALID.get("OrderItem", {}), "extra"])
    return st.dictionaries(keys, value, max_size=5)


@pytest.mark.parametrize("name", COMPILED)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_bodies_give_what_pydantic_gives(name: str, data: st.DataObject) -> None:
    document = data.draw(_documents(name))
    _same(name, document, strict=False if name.endswith("Query") else None)


def test_the_named_validator_function_refuses_as_pydantic_does() -> None:
    assert _same("UpdateAccount", {}) == (
        "422",
        [("body", "value_error", "Value error, send at least one of email, username, displayName, closing")],
    )


def test_a_model_only_pydantic_validates_still_works_through_the_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(compiled_schemas.SCHEMAS, "Amount")
    amount = LazyModel("Amount")
    assert amount.validator is None
    assert isinstance(amount.model_validate({"amountCents": 3}), models.Amount)
    with pytest.raises(ValidationError):
        amount.model_validate({})


def test_a_validated_body_is_a_body_of_its_model() -> None:
    order: Any = lazy_model("CreateOrder").model_validate(VALID["CreateOrder"])
    assert order.accountId == "a-1" and order.orderId is None
    assert order.items[0].sku == "BOOK-1" and isinstance(order.items[0], lazy_model("OrderItem"))
    assert isinstance(order, Body) and isinstance(order, lazy_model("CreateOrder"))
    assert not isinstance(order, lazy_model("Amount"))


_PROBE = r"""
import json, sys
from ddbguard_api.lazy_models import lazy_model
from ddbguard_api.bodies import parse_body
event = {"body": '{"amountCents": 5}', "headers": {"Content-Type": "application/json"}}
body, _ = parse_body(event, lazy_model("Amount"))
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
