"""One address however it is spelled: look-alike (confusable) spellings of a taken email are taken, decided by the
transaction's locks, on DynamoDB Local. ASCII look-alikes count too: `1`, `I` and `l` read alike."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from ddbguard.domain import lock_audit
from tests.support.table_reads import lock_owner

# (name, how the twin is spelled): each one a look-alike of `alice.<uid>@example.com`.
TWINS = [
    ("cyrillic", "\u0430lice.{uid}@example.com"),  # a Cyrillic a
    ("greek", "\u03b1lice.{uid}@example.com"),  # Greek alpha
    ("fullwidth", "\uff41\uff4c\uff49\uff43\uff45.{uid}@example.com"),  # NFKC already folds these
    ("idn-domain", "alice.{uid}@ex\u0430mple.com"),  # a Cyrillic a in the domain
    ("whole-script-local-part", "\u0430l\u0456\u0441\u0435.{uid}@example.com"),  # a, i, c, e: all Cyrillic
]


def _sign_up(api, email: str, username: str):
    return api.post("/accounts", {"email": email, "username": username})


@pytest.mark.parametrize(("name", "spelling"), TWINS, ids=[name for name, _ in TWINS])
def test_a_look_alike_of_a_taken_email_is_taken(api, raw_client, uid, name, spelling):
    first = _sign_up(api, f"alice.{uid}@example.com", f"first_{uid}")
    assert first.status == 201, first.json
    twin = _sign_up(api, spelling.format(uid=uid), f"twin_{uid}")
    assert (twin.status, twin.code) == (409, "unique_violation"), twin.json
    assert [e["field"] for e in twin.json["errors"]] == ["email"]
    assert lock_owner(raw_client, "EMAIL", f"alice.{uid}@example.com") == f"ACCT#{first.json['accountId']}"
    assert lock_owner(raw_client, "HANDLE", f"twin_{uid}") is None


def test_the_look_alike_registered_first_takes_the_ascii_spelling_too(api, uid):
    first = _sign_up(api, f"\u0430lice.{uid}@ex\u0430mple.com", f"first_{uid}")
    assert first.status == 201, first.json
    assert first.json["email"] == f"\u0430lice.{uid}@ex\u0430mple.com"  # the stored value stays as normalised
    twin = _sign_up(api, f"ALICE.{uid}@example.com", f"twin_{uid}")
    assert (twin.status, twin.code) == (409, "unique_violation")


def test_a_different_address_with_a_greek_letter_is_not_a_twin(api, uid):
    assert _sign_up(api, f"alice.{uid}@example.com", f"first_{uid}").status == 201
    other = _sign_up(api, f"alice.{uid}@exam\u03bfple.com", f"other_{uid}")  # 'examople' is another domain
    assert other.status == 201, other.json


def test_ascii_one_ell_and_capital_i_are_one_address(api, uid):
    """UTS #39 gives 1, I and l one prototype, and an i written as a capital is an I: one address."""
    assert _sign_up(api, f"al1ce.{uid}@example.com", f"one_{uid}").status == 201
    assert _sign_up(api, f"alice.{uid}@example.com", f"ell_{uid}").status == 409


def test_changing_an_email_to_a_look_alike_of_a_taken_one_is_refused(api, uid):
    assert _sign_up(api, f"bob.{uid}@example.com", f"bob_{uid}").status == 201
    mover = _sign_up(api, f"carol.{uid}@example.com", f"carol_{uid}").json
    reply = api.patch(f"/accounts/{mover['accountId']}", {"email": f"b\u03bfb.{uid}@example.com"}, if_match=0)
    assert (reply.status, reply.code) == (409, "unique_violation"), reply.json


def test_a_look_alike_account_frees_its_lock_on_delete_and_the_audit_finds_nothing(api, raw_client, uid):
    email = f"\u0430lice.{uid}@example.com"
    account = _sign_up(api, email, f"cyr_{uid}").json
    assert lock_owner(raw_client, "EMAIL", f"alice.{uid}@example.com") == f"ACCT#{account['accountId']}"
    findings = [f for f in lock_audit.audit_locks(repair=False).findings if f.owner_id == account["accountId"]]
    assert findings == []
    assert api.delete(f"/accounts/{account['accountId']}", if_match=0).status == 204
    assert lock_owner(raw_client, "EMAIL", f"alice.{uid}@example.com") is None
    assert _sign_up(api, f"alice.{uid}@example.com", f"ascii_{uid}").status == 201


# The findings of an independent attack: each a twin of `kate.cole.<uid>@example.com`, refused (409 or 422).
FOLD_TWINS = [
    ("greek-capitals", "\u039a\u0391\u03a4\u0395.COLE.{uid}@EXAMPLE.COM", 409),  # Κ Α Τ Ε
    ("one-greek-capital-kappa", "\u039aate.cole.{uid}@example.com", 409),
    ("one-cyrillic-capital-te", "ka\u0422e.cole.{uid}@example.com", 409),
    ("greek-lower-case-of-the-capitals", "\u03ba\u03b1\u03c4\u03b5.cole.{uid}@example.com", 409),
    ("lunate-sigma", "kate.\u03f2ole.{uid}@example.com", 422),
    ("combining-grapheme-joiner", "kate\u034f.cole.{uid}@example.com", 422),
    ("variation-selector-16", "kate\ufe0f.cole.{uid}@example.com", 422),
    ("mongolian-free-variation-selector", "kate\u180b.cole.{uid}@example.com", 422),
    ("hangul-filler", "kate\u3164.cole.{uid}@example.com", 422),
]


@pytest.mark.parametrize(("name", "spelling", "status"), FOLD_TWINS, ids=[name for name, _, _ in FOLD_TWINS])
def test_a_twin_of_a_taken_email_is_refused_on_create_and_on_change(api, raw_client, uid, name, spelling, status):
    first = _sign_up(api, f"kate.cole.{uid}@example.com", f"kate_{uid}")
    assert first.status == 201, first.json
    twin = _sign_up(api, spelling.format(uid=uid), f"twin_{uid}")
    assert twin.status == status, twin.json
    assert [e["field"] for e in twin.json["errors"]] == ["email"]
    assert lock_owner(raw_client, "HANDLE", f"twin_{uid}") is None
    mover = _sign_up(api, f"mover.{uid}@example.com", f"mover_{uid}").json
    change = api.patch(f"/accounts/{mover['accountId']}", {"email": spelling.format(uid=uid)}, if_match=0)
    assert change.status == status, change.json
    assert api.get(f"/accounts/{mover['accountId']}").json["email"] == f"mover.{uid}@example.com"


def test_an_idn_domain_in_its_xn_spelling_is_the_unicode_address(api, uid):
    first = _sign_up(api, f"kate.{uid}@b\u00fccher.example", f"kate_{uid}")
    assert first.status == 201, first.json
    twin = _sign_up(api, f"kate.{uid}@xn--bcher-kva.example", f"twin_{uid}")
    assert (twin.status, twin.code) == (409, "unique_violation"), twin.json
    other = _sign_up(api, f"ann.{uid}@XN--BCHER-KVA.example", f"ann_{uid}")
    assert other.status == 201 and other.json["email"] == f"ann.{uid}@b\u00fccher.example", other.json


def test_look_alike_spellings_racing_for_one_address_have_exactly_one_winner(api, raw_client, uid):
    spellings = [
        f"kate.{uid}@example.com",
        f"KATE.{uid}@EXAMPLE.COM",
        f"\u039a\u0391\u03a4\u0395.{uid}@example.com",  # Greek capitals
        f"\u03ba\u03b1\u03c4\u03b5.{uid}@example.com",  # Greek lower case
        f"ka\u0422e.{uid}@example.com",  # Cyrillic capital Te
        f"k\u0430te.{uid}@ex\u0430mple.com",  # Cyrillic a, twice
        f"kat\u0435.{uid}@xn--xample-2of.com",  # Cyrillic e; the domain: xn-- spelling of "еxample" (Cyrillic e)
        f"\uff4b\uff41\uff54\uff45.{uid}@example.com",  # fullwidth
    ]
    barrier = threading.Barrier(len(spellings))

    def sign_up(numbered: tuple[int, str]):
        number, email = numbered
        barrier.wait()
        return _sign_up(api, email, f"racer{number}_{uid}")

    with ThreadPoolExecutor(max_workers=len(spellings)) as pool:
        replies = list(pool.map(sign_up, enumerate(spellings)))
    winners = [reply for reply in replies if reply.status == 201]
    assert len(winners) == 1, [(r.status, r.json) for r in replies]
    assert all((r.status, r.code) == (409, "unique_violation") for r in replies if r is not winners[0])
    assert lock_owner(raw_client, "EMAIL", f"kate.{uid}@example.com") == f"ACCT#{winners[0].json['accountId']}"
    for number, _ in enumerate(spellings):
        if replies[number] is not winners[0]:
            assert lock_owner(raw_client, "HANDLE", f"racer{number}_{uid}") is None
