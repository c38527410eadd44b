"""Accounts through the real handlers: uniqueness by lock items, versioning, ownership, strict input."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

import pytest

from ddbguard.domain import accounts
from ddbguard.domain.normalize import unique_form
from ddbguard.errors import IdempotencyKeyReused
from ddbguard.guards.request_identity import RequestIdentity
from local.tokens import make_token
from tests.support.ledger_seed import seed_balance
from tests.support.published_shapes import PROMISED_ACCOUNT_FIELDS, published_fields
from tests.support.table_reads import is_tombstone, lock_owner, raw_item


def _key(pk: str, sk: str) -> dict:
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def read(raw_client, pk: str, sk: str) -> dict | None:
    return raw_item(raw_client, {"PK": pk, "SK": sk})


def stored_account(raw_client, account_id: str) -> dict | None:
    return read(raw_client, f"ACCT#{account_id}", "PROFILE")


def sign_up(api, email: str, username: str, sub: str = "alice", **extra):
    return api.post("/accounts", {"email": email, "username": username, **extra}, sub=sub)


def test_create_get_patch_delete_happy_path(api, raw_client, uid):
    created = sign_up(api, f"  Ada@Lovelace-{uid}.IO ", f"Ada_{uid}", displayName="Ada Lovelace")
    assert created.status == 201, created.json
    account = created.json
    account_id = account["accountId"]
    assert set(account) == published_fields("Account")  # the promised fields, and any a declaration adds
    assert published_fields("Account") >= PROMISED_ACCOUNT_FIELDS
    assert account["closing"] is False
    assert account["email"] == f"ada@lovelace-{uid}.io"
    assert account["username"] == f"ada_{uid}"
    assert account["displayName"] == "Ada Lovelace"
    assert account["version"] == 0
    assert created.header("Location") == f"/accounts/{account_id}"
    assert created.header("ETag") == '"0"'
    assert lock_owner(raw_client, "EMAIL", account["email"]) == f"ACCT#{account_id}"
    assert lock_owner(raw_client, "HANDLE", account["username"]) == f"ACCT#{account_id}"
    assert stored_account(raw_client, account_id)["ownerSub"] == "alice"

    fetched = api.get(f"/accounts/{account_id}")
    assert fetched.status == 200
    assert fetched.json == account
    assert fetched.header("ETag") == '"0"'

    patched = api.patch(f"/accounts/{account_id}", {"displayName": "Countess of Lovelace"}, if_match=0)
    assert patched.status == 200, patched.json
    assert patched.json["displayName"] == "Countess of Lovelace"
    assert patched.json["version"] == 1
    assert patched.header("ETag") == '"1"'
    assert api.get(f"/accounts/{account_id}").json == patched.json

    deleted = api.delete(f"/accounts/{account_id}", if_match=1)
    assert deleted.status == 204
    assert deleted.raw == b""
    assert api.get(f"/accounts/{account_id}").status == 404
    assert is_tombstone(stored_account(raw_client, account_id))


def test_display_name_is_null_when_not_given(api, uid):
    created = sign_up(api, f"nameless@{uid}.io", f"nameless_{uid}")
    assert created.status == 201
    assert created.json["displayName"] is None


def test_stored_values_are_the_normalised_ones(api, raw_client, uid):
    # Fullwidth letters, sharp s (both cases) and surrounding spaces all fold to one form.
    created = sign_up(api, f"\u3000STRAẞE@{uid}.example ", f"\uff21\uff24\uff21_{uid[:8]}")
    assert created.status == 201, created.json
    assert created.json["email"] == f"strasse@{uid}.example"
    assert created.json["username"] == f"ada_{uid[:8]}"
    item = stored_account(raw_client, created.json["accountId"])
    assert item["email"] == f"strasse@{uid}.example"
    assert item["username"] == f"ada_{uid[:8]}"
    # The same address spelled another way is the same lock.
    again = sign_up(api, f"strasse@{uid}.EXAMPLE", f"other_{uid}", sub="bob")
    assert again.status == 409
    assert [e["field"] for e in again.json["errors"]] == ["email"]


@pytest.mark.parametrize(("cleared", "held"), [(500, 0), (500, 500)])
def test_delete_is_refused_while_the_ledger_holds_money(api, raw_client, uid, cleared, held):
    account = sign_up(api, f"rich@{uid}.io", f"rich_{uid}").json
    seed_balance(raw_client, account["accountId"], "alice", cleared, held, version=3)
    refused = api.delete(f"/accounts/{account['accountId']}", if_match=0)
    assert refused.status == 409
    assert refused.code == "balance_not_zero"
    assert refused.json["clearedCents"] == cleared
    assert refused.json["holdCents"] == held
    assert api.get(f"/accounts/{account['accountId']}").json == account
    assert lock_owner(raw_client, "EMAIL", f"rich@{uid}.io") == f"ACCT#{account['accountId']}"
    assert read(raw_client, f"ACCT#{account['accountId']}", "BALANCE") is not None


def test_delete_takes_the_empty_balance_item_and_keeps_entries(api, raw_client, uid):
    account = sign_up(api, f"empty@{uid}.io", f"empty_{uid}").json
    account_id = account["accountId"]
    seed_balance(raw_client, account_id, "alice", 0, 0, version=3)
    entry = {"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "TXN#01HZZZZZZZZZZZZZZZZZZZZZZZ"}, "type": {"S": "deposit"}}
    raw_client.put_item(TableName=os.environ["TABLE_NAME"], Item=entry)
    assert api.delete(f"/accounts/{account_id}", if_match=0).status == 204
    assert read(raw_client, f"ACCT#{account_id}", "BALANCE") is None
    assert is_tombstone(stored_account(raw_client, account_id))
    assert read(raw_client, f"ACCT#{account_id}", "TXN#01HZZZZZZZZZZZZZZZZZZZZZZZ") is not None


def _hostile_cases(uid: str) -> list[tuple[str, object, int, str | None, str | None]]:
    """(label, body or raw bytes, expected status, email it tried, username it tried)."""
    email, name = f"hostile@{uid}.io", f"hostile_{uid}"
    return [
        ("unknown field", {"email": email, "username": name, "role": "admin"}, 422, email, name),
        (
            "duplicate key",
            f'{{"email": "{email}", "username": "{name}", "username": "x{name}"}}'.encode(),
            400,
            email,
            name,
        ),
        ("email not a string", {"email": 5, "username": name}, 422, None, name),
        ("username not a string", {"email": email, "username": ["a"]}, 422, email, None),
        ("displayName wrong type", {"email": email, "username": name, "displayName": True}, 422, email, name),
        ("missing username", {"email": email}, 422, email, None),
        ("null email", {"email": None, "username": name}, 422, None, name),
        ("control character", {"email": f"hos\u0000tile@{uid}.io", "username": name}, 422, email, name),
        ("zero-width space", {"email": email, "username": f"hostile\u200b_{uid}"}, 422, email, name),
        ("bidi override", {"email": email, "username": name, "displayName": "\u202eevil"}, 422, email, name),
        ("email over 254", {"email": "a" * 250 + f"@{uid}.io", "username": name}, 422, None, name),
        ("email over 254 bytes once encoded", {"email": "é" * 200 + f"@{uid}.io", "username": name}, 422, None, name),
        ("email without @", {"email": f"hostile.{uid}.io", "username": name}, 422, None, name),
        ("email with two @", {"email": f"a@b@{uid}.io", "username": name}, 422, None, name),
        ("email with a space", {"email": f"hos tile@{uid}.io", "username": name}, 422, None, name),
        ("email empty local part", {"email": f"@{uid}.io", "username": name}, 422, None, name),
        ("username too short", {"email": email, "username": "ab"}, 422, email, None),
        ("username too long", {"email": email, "username": "a" * 31}, 422, email, None),
        ("username bad character", {"email": email, "username": f"hostile!{uid}"}, 422, email, None),
        ("username with space", {"email": email, "username": f"hostile {uid}"}, 422, email, None),
        ("username non-ASCII", {"email": email, "username": f"hôstile_{uid}"}, 422, email, None),
        ("blank displayName", {"email": email, "username": name, "displayName": "   "}, 422, email, name),
        ("not an object", [email, name], 422, email, name),
        ("NaN", f'{{"email": "{email}", "username": "{name}", "displayName": NaN}}'.encode(), 400, email, name),
    ]


def test_hostile_inputs_are_refused_and_nothing_is_written(api, raw_client, uid):
    for label, body, status, email, username in _hostile_cases(uid):
        reply = api.post("/accounts", raw_body=body) if isinstance(body, bytes) else api.post("/accounts", body)
        assert reply.status == status, (label, reply.json)
        assert reply.header("Content-Type") == "application/problem+json", label
        if email is not None:
            assert lock_owner(raw_client, "EMAIL", unique_form(email)) is None, label
        if username is not None:
            assert lock_owner(raw_client, "HANDLE", unique_form(username)) is None, label
    # The valid request still works afterwards: nothing half-written blocks it.
    assert sign_up(api, f"hostile@{uid}.io", f"hostile_{uid}").status == 201


def test_hostile_patch_is_refused_and_nothing_changes(api, raw_client, uid):
    account = sign_up(api, f"patchme@{uid}.io", f"patchme_{uid}").json
    path = f"/accounts/{account['accountId']}"
    for body in ({}, {"email": f"x@{uid}.io", "ownerSub": "mallory"}, {"username": "no"}, {"email": "nope"}):
        reply = api.patch(path, body, if_match=0)
        assert reply.status == 422, body
    assert api.get(path).json == account
    assert lock_owner(raw_client, "EMAIL", f"x@{uid}.io") is None


def test_invalid_fields_are_all_listed(api, uid):
    reply = sign_up(api, "no-at-sign", "!!")
    assert reply.status == 422
    assert sorted(e["field"] for e in reply.json["errors"]) == ["email", "username"]


def test_idempotent_create_replays_the_first_answer(api, raw_client, uid):
    body = {"email": f"once@{uid}.io", "username": f"once_{uid}"}
    first = api.post("/accounts", body, idempotency_key=f"create-{uid}")
    again = api.post("/accounts", body, idempotency_key=f"create-{uid}")
    assert first.status == again.status == 201
    assert again.json == first.json
    other_body = api.post("/accounts", {**body, "username": f"twice_{uid}"}, idempotency_key=f"create-{uid}")
    assert other_body.status == 422
    assert other_body.code == "idempotency_key_reused"


def test_create_replay_without_idempotency_record_finds_its_own_account(dynamodb_local, raw_client, uid):
    # The write itself is idempotent: the account id derives from the key, and the stored
    # account records the request that created it.
    identity = RequestIdentity(
        caller="alice", route="POST /accounts", key=f"lost-{uid}", fingerprint=f"fingerprint-{uid}"
    )
    first = accounts.create_account("alice", email=f"lost@{uid}.io", username=f"lost_{uid}", identity=identity)
    again = accounts.create_account("alice", email=f"lost@{uid}.io", username=f"lost_{uid}", identity=identity)
    assert again == first
    assert lock_owner(raw_client, "EMAIL", f"lost@{uid}.io") == f"ACCT#{first['accountId']}"
    reused = RequestIdentity(caller="alice", route="POST /accounts", key=f"lost-{uid}", fingerprint=f"other-{uid}")
    with pytest.raises(IdempotencyKeyReused):
        accounts.create_account("alice", email=f"other@{uid}.io", username=f"other_{uid}", identity=reused)


def _http(url: str, method: str, body: dict | None = None, headers: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_accounts_through_http(local_server, uid):
    auth = {"Authorization": f"Bearer {make_token('alice')}", "Content-Type": "application/json"}
    status, headers, raw = _http(
        f"{local_server}/accounts", "POST", {"email": f"http@{uid}.io", "username": f"http_{uid}"}, auth
    )
    assert status == 201
    account = json.loads(raw)
    assert headers["Location"] == f"/accounts/{account['accountId']}"
    assert headers["ETag"] == '"0"'
    status, _, raw = _http(
        f"{local_server}/accounts", "POST", {"email": f"HTTP@{uid}.io", "username": f"HTTP_{uid}"}, auth
    )
    assert status == 409
    assert sorted(e["field"] for e in json.loads(raw)["errors"]) == ["email", "username"]
    status, headers, _ = _http(
        f"{local_server}/accounts/{account['accountId']}", "DELETE", headers={**auth, "If-Match": '"0"'}
    )
    assert status == 204


def test_patch_and_delete_with_an_idempotency_key_apply_once(api, raw_client, uid):
    account = sign_up(api, f"keyed@{uid}.io", f"keyed_{uid}").json
    path = f"/accounts/{account['accountId']}"
    body = {"email": f"keyed2@{uid}.io"}
    first = api.patch(path, body, if_match=0, idempotency_key=f"patch-{uid}")
    again = api.patch(path, body, if_match=0, idempotency_key=f"patch-{uid}")
    assert first.status == again.status == 200
    assert again.json == first.json
    assert api.get(path).json["version"] == 1
    gone = api.delete(path, if_match=1, idempotency_key=f"delete-{uid}")
    gone_again = api.delete(path, if_match=1, idempotency_key=f"delete-{uid}")
    assert gone.status == gone_again.status == 204
    assert lock_owner(raw_client, "EMAIL", f"keyed2@{uid}.io") is None
