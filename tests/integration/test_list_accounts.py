"""GET /accounts: the caller's own accounts, newest first, paginated, from the owner index (never a Scan)."""

from __future__ import annotations

import base64

from local.scenarios import create_account
from tests.support.call_counter import counting_calls
from tests.support.published_shapes import PROMISED_ACCOUNT_FIELDS, published_fields


def _page(api, sub, **query):
    suffix = "&".join(f"{k}={v}" for k, v in query.items())
    reply = api.get("/accounts" + (f"?{suffix}" if suffix else ""), sub=sub)
    assert reply.status == 200, reply.json
    return reply.json


def test_lists_only_the_callers_accounts_newest_first(api, uid):
    owner = f"lister-{uid}"
    created = [create_account(api, owner) for _ in range(3)]
    create_account(api, f"other-{uid}")
    page = _page(api, owner)
    assert [a["accountId"] for a in page["accounts"]] == list(reversed(created))
    assert page["nextCursor"] is None
    assert set(page["accounts"][0]) == published_fields("Account")
    assert published_fields("Account") >= PROMISED_ACCOUNT_FIELDS
    assert _page(api, f"nobody-{uid}") == {"accounts": [], "nextCursor": None}


def test_pages_follow_the_cursor_without_gaps_or_repeats(api, uid):
    owner = f"pager-{uid}"
    created = [create_account(api, owner) for _ in range(5)]
    seen, cursor = [], None
    while True:
        page = _page(api, owner, limit=2, **({"cursor": cursor} if cursor else {}))
        seen += [a["accountId"] for a in page["accounts"]]
        cursor = page["nextCursor"]
        if not cursor:
            break
    assert seen == list(reversed(created))


def test_a_deleted_account_leaves_the_list_and_an_update_shows_in_it(api, uid):
    owner = f"changer-{uid}"
    keep, gone = create_account(api, owner), create_account(api, owner)
    assert api.delete(f"/accounts/{gone}", sub=owner, if_match=0).status == 204
    assert api.patch(f"/accounts/{keep}", {"displayName": "Renamed"}, sub=owner, if_match=0).status == 200
    [only] = _page(api, owner)["accounts"]
    assert (only["accountId"], only["displayName"], only["version"]) == (keep, "Renamed", 1)


def test_listing_queries_and_never_scans(api, ddb_client, uid):
    owner = f"noscan-{uid}"
    create_account(api, owner)
    with counting_calls(ddb_client) as calls:
        _page(api, owner)
    assert calls.count("Scan") == 0 and calls.count("Query") == 1 and calls.count("BatchGetItem") == 1


def test_bad_and_foreign_cursors_are_422(api, uid):
    owner = f"cursor-{uid}"
    for _ in range(2):
        create_account(api, owner)
    cursor = _page(api, owner, limit=1)["nextCursor"]
    assert cursor
    foreign = api.get(f"/accounts?limit=1&cursor={cursor}", sub=f"thief-{uid}")
    assert (foreign.status, foreign.json["errors"][0]["field"]) == (422, "cursor")
    for bad in ("x", "eyJQSyI6MX0", "%00"):
        assert api.get(f"/accounts?cursor={bad}", sub=owner).status == 422
    assert api.get("/accounts?limit=0", sub=owner).status == 422
    assert api.get("/accounts?limit=101", sub=owner).status == 422


def test_a_cursor_says_nothing_of_whose_list_it_pages(api, uid):
    owner = f"sub-{uid}"
    for _ in range(2):
        create_account(api, owner)
    cursor = _page(api, owner, limit=1)["nextCursor"]
    decoded = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    assert owner.encode() not in decoded and b"OWNERS" not in decoded and b"PK" not in decoded
    assert owner not in cursor
