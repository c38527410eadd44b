"""`ddbguard.guards.entity_access`: what each generic operation of an entity may do to the table, by action and key
pattern. tests/integration/test_route_declarations.py checks the patterns against the keys the store builds, and
tests/test_table_access.py every grant against the calls the suite makes."""

from __future__ import annotations

import pytest

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.guards.entity_access import OWNER_INDEX, REQUEST_MARKERS, crud_access, merged_access
from examples.teams.team import TEAM


def test_a_create_puts_the_item_its_locks_its_index_entry_and_the_marker():
    assert crud_access(TEAM, "POST") == {"PutItem": (TEAM.partition_pattern, *TEAM.lock_patterns, REQUEST_MARKERS)}
    assert OWNER_INDEX in crud_access(ACCOUNT, "POST")["PutItem"]


def test_a_read_gets_the_item_alone():
    assert crud_access(TEAM, "GET") == {"GetItem": (TEAM.partition_pattern,)}


def test_an_update_of_an_entity_with_locks_may_swap_them_and_a_delete_releases_them():
    update = crud_access(TEAM, "PATCH")
    assert update["DeleteItem"] == TEAM.lock_patterns and REQUEST_MARKERS in update["PutItem"]
    assert update["BatchGetItem"] == (TEAM.partition_pattern, REQUEST_MARKERS)
    delete = crud_access(TEAM, "DELETE")
    # The item is overwritten by its tombstone, never deleted: only its locks are.
    assert delete["DeleteItem"] == TEAM.lock_patterns and TEAM.partition_pattern in delete["PutItem"]


def test_an_unknown_operation_is_refused():
    with pytest.raises(ValueError, match="no generic PUT operation"):
        crud_access(TEAM, "PUT")


def test_merged_access_holds_every_action_and_pattern_once():
    merged = merged_access(crud_access(TEAM, method) for method in ("POST", "GET", "PATCH", "DELETE"))
    assert merged["PutItem"] == (TEAM.partition_pattern, *TEAM.lock_patterns, REQUEST_MARKERS)
    assert set(merged) == {"PutItem", "GetItem", "BatchGetItem", "UpdateItem", "DeleteItem"}
