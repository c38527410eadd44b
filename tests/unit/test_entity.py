"""guards/entity.py: an entity declaration and what follows from it (keys, projection, unique fields, registry).

Declaring an entity registers it for the whole process (the lock audit reads the registry), so every test here
declares into an empty registry that is put back afterwards.
"""

from __future__ import annotations

import pytest

from ddbguard.errors import InvalidInput
from ddbguard.guards import entity as entity_module
from ddbguard.guards import fields
from ddbguard.guards.entity import GLOBAL_IDS, OWNER_SCOPED_IDS, Entity, Unique, normalised_values

SLUG = fields.matching_kind("slug", "[a-z0-9-]", 3, 12, form=lambda raw: raw.strip().casefold())
DIGITS = fields.matching_kind("digits", "[0-9]", 2, 4, form=str.strip)


@pytest.fixture(autouse=True)
def empty_registry(monkeypatch):
    monkeypatch.setattr(entity_module, "_DECLARED", {})
    monkeypatch.setattr(entity_module, "_LOCK_KINDS", {})


def test_names_keys_and_codes_follow_from_the_kind_unless_declared():
    widget = Entity("widget", fields={"name": fields.text("A")})
    assert (widget.prefix, widget.sort, widget.id_field, widget.not_found, widget.title) == (
        "WIDGET#",
        "WIDGET",
        "widgetId",
        "widget_not_found",
        "Widget",
    )
    account = Entity(
        "person", fields={"name": fields.text("A")}, prefix="P#", sort="PROFILE", id_field="pid", not_found="gone"
    )
    assert (account.prefix, account.sort, account.id_field, account.not_found) == ("P#", "PROFILE", "pid", "gone")


def test_declared_fields_give_the_public_projection_and_the_unique_fields():
    team = Entity("team", fields={"slug": fields.unique(SLUG, "team-42", lock="TEAMSLUG"), "name": fields.text("A")})
    assert team.public == ("teamId", "slug", "name", "version", "createdAt", "updatedAt")
    assert team.unique == (Unique("slug", SLUG, "TEAMSLUG"),)
    assert team.lock_patterns == ("UNIQ#TEAMSLUG#*",)
    unversioned = Entity("note", versioned=False, fields={"text": fields.text("hi")})
    assert unversioned.public == ("noteId", "text", "createdAt", "updatedAt")
    assert unversioned.unique == ()


def test_a_lock_kind_defaults_to_the_field_name_in_capitals():
    assert Unique("slug", SLUG).lock_kind == "SLUG"
    assert Unique("slug", SLUG, "TEAMSLUG").lock_kind == "TEAMSLUG"


@pytest.mark.parametrize(
    "declaration",
    [
        {"fields": {}},  # nothing declared
        {"fields": {"name": fields.text("A")}, "ids": "per-tenant"},  # an unknown key scheme
        {"fields": {"name": fields.text("A")}, "public": ("xId",)},  # public follows from fields
    ],
)
def test_an_incomplete_or_contradictory_declaration_is_refused(declaration):
    with pytest.raises((ValueError, TypeError)):
        Entity("x", **declaration)
    assert entity_module.declared_entities() == ()


def test_one_lock_kind_belongs_to_one_entity_field():
    Entity("team", fields={"slug": fields.unique(SLUG, "team-42")})
    with pytest.raises(ValueError, match=r"already belongs to team\.slug"):
        Entity("club", fields={"slug": fields.unique(SLUG, "club-1")})
    Entity("club", fields={"slug": fields.unique(SLUG, "club-1", lock="CLUBSLUG")})


def test_the_registry_names_every_declared_entity_and_the_owner_of_every_lock_kind():
    team = Entity("team", fields={"slug": fields.unique(SLUG, "team-42", lock="TEAMSLUG")})
    note = Entity("note", fields={"text": fields.text("hi")})
    assert entity_module.declared_entities() == (team, note)
    assert entity_module.entity_of_lock("TEAMSLUG") == (team, team.unique_field("slug"))
    assert entity_module.entity_of_lock("NOBODY") is None
    with pytest.raises(KeyError):
        note.unique_field("text")


def test_global_ids_name_one_item_for_everyone_and_owner_scoped_ids_one_per_owner():
    shared = Entity("widget", fields={"name": fields.text("A")}, ids=GLOBAL_IDS)
    assert shared.partition("w1") == "WIDGET#w1" == shared.partition("w1", "alice")
    assert shared.key("w1") == {"PK": "WIDGET#w1", "SK": "WIDGET"}
    assert shared.key_of_partition("WIDGET#w1") == shared.key("w1")
    assert shared.partition_pattern == "WIDGET#*"
    scoped = Entity("gadget", fields={"name": fields.text("A")}, ids=OWNER_SCOPED_IDS)
    alices, bobs = scoped.partition("g1", "alice"), scoped.partition("g1", "bob")
    assert alices != bobs and alices.startswith("GADGET#") and bobs.endswith("#g1")
    assert "alice" not in alices  # the owner tag reveals nothing of the owner
    with pytest.raises(ValueError):
        scoped.partition("g1")


def test_the_projection_is_exactly_the_public_fields_a_missing_one_read_as_its_default():
    widget = Entity("widget", fields={"name": fields.text("A"), "retired": fields.flag(default=False)})
    stored = {"PK": "WIDGET#w1", "SK": "WIDGET", "widgetId": "w1", "name": "W", "ownerSub": "alice"}
    assert widget.project(stored) == {
        "widgetId": "w1",
        "name": "W",
        "retired": False,
        "version": None,
        "createdAt": None,
        "updatedAt": None,
    }


def test_unique_values_are_normalised_by_their_kind_and_every_invalid_one_is_listed():
    kinds = {"slug": SLUG, "pin": DIGITS}
    assert normalised_values(kinds, {"slug": " Team-42 ", "pin": "12", "other": None}) == {
        "slug": "team-42",
        "pin": "12",
    }
    with pytest.raises(InvalidInput) as refused:
        normalised_values(kinds, {"slug": "x", "pin": "abc"})
    assert sorted((e.field, e.code) for e in refused.value.errors) == [
        ("pin", "invalid_format"),
        ("slug", "invalid_format"),
    ]
    with pytest.raises(ValueError, match="no unique kind declared for name"):
        normalised_values(kinds, {"name": "x"})


def test_an_entity_normalises_only_its_declared_unique_fields():
    team = Entity("team", fields={"slug": fields.unique(SLUG, "team-42"), "name": fields.text("A")})
    assert team.normalised({"slug": " ABC ", "name": "  kept as sent "}) == {"slug": "abc"}
    assert team.normalised({"name": "no unique value sent"}) == {}
