"""guards/owner_index.py: the owner's index item is written and deleted in its item's own transaction."""

from __future__ import annotations

from ddbguard.store import keys
from local.scenarios import create_account
from tests.integration.test_list_accounts import _page


def test_the_index_item_lives_and_dies_with_the_account(api, raw_client, uid):
    owner = f"indexed-{uid}"
    account_id = create_account(api, owner)
    query = {
        "TableName": "ddbguard-test",
        "KeyConditionExpression": "#pk = :pk",
        "ExpressionAttributeNames": {"#pk": "PK"},
        "ExpressionAttributeValues": {":pk": {"S": keys.owner_index_partition(owner)}},
        "ConsistentRead": True,
    }
    [item] = raw_client.query(**query)["Items"]
    assert item["accountId"]["S"] == account_id and item["SK"]["S"].endswith(f"#{account_id}")
    assert api.delete(f"/accounts/{account_id}", sub=owner, if_match=0).status == 204
    assert raw_client.query(**query)["Items"] == []


def test_racing_creates_and_deletes_keep_the_list_exactly_the_live_accounts(api, uid):
    """The index item is written in the account's own transaction: no race can leave one without the other."""
    import threading

    owner = f"racer-{uid}"
    doomed = [create_account(api, owner) for _ in range(6)]
    created: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(12)

    def make() -> None:
        start.wait()
        account_id = create_account(api, owner)
        with lock:
            created.append(account_id)

    def remove(account_id: str) -> None:
        start.wait()
        assert api.delete(f"/accounts/{account_id}", sub=owner, if_match=0).status == 204

    threads = [threading.Thread(target=make) for _ in range(6)]
    threads += [threading.Thread(target=remove, args=(account_id,)) for account_id in doomed]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    listed = [a["accountId"] for a in _page(api, owner, limit=100)["accounts"]]
    assert sorted(listed) == sorted(created)
