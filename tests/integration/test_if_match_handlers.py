"""If-Match through the real PATCH and DELETE handlers: a tag that names no version is 412 or 400, never a change.

The parser itself is tested in tests/unit/test_if_match.py.
"""

from __future__ import annotations

from tests.integration.test_orders import new_order, order_path, stored_order
from tests.unit.test_if_match import NOT_A_VERSION


def test_patch_with_a_tag_that_names_no_version_is_412_or_400_and_changes_nothing(api, raw_client, uid):
    order = new_order(api, raw_client, uid)
    before = stored_order(raw_client, order["orderId"])

    for raw in NOT_A_VERSION:
        reply = api.patch(order_path(order), {"status": "CANCELLED"}, if_match=raw)
        assert reply.status in (400, 412), (raw, reply.status, reply.json)
        if reply.status == 412:
            assert reply.code == "version_conflict"
            assert reply.json["current"] == order
            assert reply.header("ETag") == '"0"'
        else:
            assert reply.code == "invalid_if_match"
        delete = api.delete(order_path(order), if_match=raw)
        assert delete.status in (400, 412), (raw, delete.status, delete.json)

    assert stored_order(raw_client, order["orderId"]) == before
