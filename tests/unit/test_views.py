"""The domain's typed views (ddbguard.domain.views) against the response schemas the API publishes
(ddbguard_api.models.response_models): the same field names, and every body a view allows conforms to its schema.
An entity has no view: its projection and its response are both derived from its fields, so they agree by
construction (checked here too).

Conforming, field by field: a field the schema requires is always in the view, a field the view may leave out is
optional in the schema, and a field the view may set to null is nullable in the schema.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from ddbguard.domain import views
from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.domain.entities.orders import ORDER
from ddbguard.store import items
from ddbguard_api.models import response_models as schemas
from ddbguard_api.models.entity_models import line_model


def _nullable(annotation: Any) -> bool:
    return annotation is type(None) or (
        typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in typing.get_args(annotation)
    )


def _view_fields(view: Any, also_required: frozenset[str] = frozenset()) -> dict[str, tuple[bool, bool]]:
    """name -> (always present, may be null)."""
    hints = typing.get_type_hints(view)
    required = view.__required_keys__ | also_required
    return {name: (name in required, _nullable(hint)) for name, hint in hints.items()}


def _schema_fields(model: type[BaseModel]) -> dict[str, tuple[bool, bool]]:
    return {name: (field.is_required(), _nullable(field.annotation)) for name, field in model.model_fields.items()}


PAIRS: list[tuple[type[BaseModel], Any, frozenset[str]]] = [
    (schemas.AccountList, views.AccountPage, frozenset()),
    (schemas.Balance, views.BalanceView, frozenset()),
    (schemas.Entry, views.EntryView, frozenset()),
    # The replies of holds and transfers are entries that always carry their outcome.
    (schemas.Hold, views.EntryView, views.HoldOutcome.__required_keys__),
    (schemas.TransferSent, views.EntryView, views.TransferOutcome.__required_keys__),
    (schemas.Statement, views.StatementView, frozenset()),
    (line_model(ORDER.fields["items"]), items.OrderLine, frozenset()),
]


@pytest.mark.parametrize(("model", "view", "outcome"), PAIRS, ids=[model.__name__ for model, _, _ in PAIRS])
def test_a_view_and_its_response_schema_name_the_same_fields(model, view, outcome):
    assert set(_view_fields(view, outcome)) == set(_schema_fields(model))


@pytest.mark.parametrize(("model", "view", "outcome"), PAIRS, ids=[model.__name__ for model, _, _ in PAIRS])
def test_every_body_a_view_allows_conforms_to_its_response_schema(model, view, outcome):
    schema = _schema_fields(model)
    problems = []
    for name, (always, may_be_null) in _view_fields(view, outcome).items():
        required, nullable = schema[name]
        if required and not always:
            problems.append(f"{name}: the schema requires it, the view may leave it out")
        if may_be_null and not nullable:
            problems.append(f"{name}: the view may be null, the schema does not allow null")
    assert problems == []


@pytest.mark.parametrize("entity", [ACCOUNT, ORDER], ids=lambda entity: entity.kind)
def test_an_entitys_projection_is_its_response_every_field_always_present(entity):
    response = getattr(schemas, entity.title)
    assert list(response.model_fields) == list(entity.public)
    assert all(field.is_required() for field in response.model_fields.values())
    assert set(entity.project({})) == set(entity.public)


def test_the_outcomes_name_fields_of_the_entry_view():
    """A hold's or a transfer's outcome is merged into its entry: its fields must be the entry view's."""
    entry_fields = set(views.EntryView.__annotations__)
    assert set(views.HoldOutcome.__annotations__) <= entry_fields
    assert set(views.TransferOutcome.__annotations__) <= entry_fields


def test_the_check_sees_a_drifted_view():
    """The comparison is not vacuous: a view with a renamed field, or a null the schema forbids, is caught."""

    class Drifted(typing.TypedDict):
        accountId: str
        email: str
        userName: str
        displayName: str | None
        version: int | None
        createdAt: str
        updatedAt: str

    assert set(_view_fields(Drifted)) != set(_schema_fields(schemas.Account))
    assert _view_fields(Drifted)["version"] == (True, True) and _schema_fields(schemas.Account)["version"][1] is False
