"""Every finding of the look-alike attack, over real HTTP (issue: look-alikes refused completely, real names always
welcome). Each pair was two accounts before: the first is taken, the second is now refused (409: it shares a lock
with the first; 422: it cannot be stored as it looks) on create and on PATCH. What must stay apart stays apart,
and the merges that were right stay."""

from __future__ import annotations

import http.client
import json
import uuid
from urllib.parse import urlsplit

import pytest

from local.tokens import make_token


def _call(url: str, method: str, path: str, body: dict | None = None, if_match: int | None = None):
    parts = urlsplit(url)
    headers = {"Authorization": f"Bearer {make_token('lookalike-tester')}", "Content-Type": "application/json"}
    if if_match is not None:
        headers["If-Match"] = f'"{if_match}"'
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
    try:
        connection.request(method, path, body=json.dumps(body).encode() if body is not None else b"", headers=headers)
        response = connection.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None
    finally:
        connection.close()


def _sign_up(url: str, email: str):
    return _call(url, "POST", "/accounts", {"email": email, "username": f"u_{uuid.uuid4().hex[:12]}"})


def _taken_then(url: str, taken: str, twin: str, status: int) -> None:
    """`taken` gets an account; `twin` is then refused with `status` on create and on PATCH of another account."""
    first, body = _sign_up(url, taken)
    assert first == 201, body
    created, body = _sign_up(url, twin)
    assert created == status, (twin, body)
    assert [error["field"] for error in body["errors"]] == ["email"], body
    mover_status, mover = _sign_up(url, f"mover.{uuid.uuid4().hex[:12]}@example.com")
    assert mover_status == 201, mover
    changed, body = _call(url, "PATCH", f"/accounts/{mover['accountId']}", {"email": twin}, if_match=0)
    assert changed == status, (twin, body)


def _id() -> str:
    return uuid.uuid4().hex[:10].translate(str.maketrans("0123456789", "qrstuvwxyz"))


# (taken, also accepted before, why): the table of findings, each row's pairs; `{u}` is a fresh run tag.
SHARED_LOCKS = [
    ("ali{u}@example.com", "ali\u0307{u}@example.com"),  # i + combining dot above
    ("ali{u}@example.com", "AL\u0130{u}@example.com"),  # Turkish capital dotted I
    ("ali{u}@example.com", "al\u0131\u0307{u}@example.com"),  # dotless i + dot above
    ("\u0432\u043e\u0442{u}@example.com", "\u0299\u043e\u0442{u}@example.com"),  # Cyrillic ve / Latin small cap B
    ("\u043a\u043e\u0442{u}@example.com", "\u1d0b\u043e\u0442{u}@example.com"),  # ka / small capital K
    ("\u043d\u043e\u0442{u}@example.com", "\u029c\u043e\u0442{u}@example.com"),  # en / small capital H
    ("\u043c\u043e\u0442{u}@example.com", "\u1d0d\u043e\u0442{u}@example.com"),  # em / small capital M
    ("\u0442\u043e\u0442{u}@example.com", "\u1d1b\u043e\u0442{u}@example.com"),  # te / small capital T
    ("\u1d00\u043e\u0442{u}@example.com", "\uab7a\u043e\u0442{u}@example.com"),  # small capital A / Cherokee a
    ("\u0413eorge{u}@example.com", "\u0393eorge{u}@example.com"),  # Cyrillic and Greek capital Ghe/Gamma
]
REFUSED = [
    ("kate{u}@example.com", "kate{u}\ue000@example.com"),  # private use
    ("kate{u}@example.com", "\u2800kate{u}@example.com"),  # Braille blank
    ("kate{u}@example.com", "kate{u}\ufdd0@example.com"),  # noncharacter
    ("kate{u}@example.com", "kate{u}\u0378@example.com"),  # unassigned
    ("kate{u}@example.com", "kate{u}\U00016fe4@example.com"),  # Khitan filler: shows nothing
    ("jos\u00e9{u}@example.com", "jose\u0301\u0301{u}@example.com"),  # an accent twice on one letter
    ("user{u}\u2780@example.com", "user{u}\u2460@example.com"),  # circled one: stored as 1, which reads l
    ("kate{u}@example.com", "kate{u}@example.com."),  # a trailing dot in the domain
]


@pytest.mark.parametrize(("taken", "twin"), SHARED_LOCKS, ids=range(len(SHARED_LOCKS)))
def test_a_look_alike_of_a_taken_address_is_taken(local_server, taken, twin):
    tag = _id()
    _taken_then(local_server, taken.format(u=tag), twin.format(u=tag), 409)


@pytest.mark.parametrize(("taken", "twin"), REFUSED, ids=range(len(REFUSED)))
def test_a_twin_that_cannot_be_stored_as_it_looks_is_refused(local_server, taken, twin):
    tag = _id()
    _taken_then(local_server, taken.format(u=tag), twin.format(u=tag), 422)


# Greek names with a capital whose small letter reads as another Latin letter: accepted, in every case.
GREEK_NAMES = [
    "\u039d\u03af\u03ba\u03bf\u03c2",  # Νίκος
    "\u0392\u03b1\u03c3\u03af\u03bb\u03b7\u03c2",  # Βασίλης
    "\u03a5\u03c0\u03b1\u03c4\u03af\u03b1",  # Υπατία
    "\u0395\u039b\u0388\u039d\u0397",  # ΕΛΈΝΗ
    "\u0399\u03a9\u0386\u039d\u039d\u0397\u03a3",  # ΙΩΆΝΝΗΣ
    "\u039a\u03a9\u039d\u03a3\u03a4\u0391\u039d\u03a4\u038a\u039d\u039f\u03a3",  # ΚΩΝΣΤΑΝΤΊΝΟΣ
    "\u0391\u0398\u0397\u039d\u0386",  # ΑΘΗΝΆ
]


@pytest.mark.parametrize("name", GREEK_NAMES, ids=range(len(GREEK_NAMES)))
def test_greek_names_with_two_readings_are_accepted_and_hold_every_reading(local_server, name):
    tag = _id()
    # The name ends the local part, as in the finding (`Νίκος@…`): a sigma before `.` and a letter is inside a word
    # by Unicode's Final_Sigma rule, so `νίκος.x@` is refused (docs/decisions/049-one-lock-per-reading-of-a-value.md).
    created, body = _sign_up(local_server, f"{name}@{tag}.example.com")
    assert created == 201, body
    again, body = _sign_up(local_server, f"{name.lower()}@{tag}.example.com")
    assert again == 409, body


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("a\u2014b{u}@example.com", "alb{u}@example.com"),  # em dash is not l
        ("x{u}@stra\u00dfe.de", "x{u}@strasse.de"),  # two registrable domains under IDNA2008
        ("x{u}@\u00df.de", "x{u}@ss.de"),
    ],
)
def test_different_addresses_stay_apart(local_server, first, second):
    tag = _id()
    for email in (first.format(u=tag), second.format(u=tag)):
        created, body = _sign_up(local_server, email)
        assert created == 201, (email, body)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("\u043c\u0430\u043c\u0430{u}@example.com", "mama{u}@example.com"),  # МАМА reads as MAMA
        ("\u0432\u0435\u0440\u0430{u}@example.com", "bepa{u}@example.com"),
        ("\u043d\u0435\u0442{u}@example.com", "het{u}@example.com"),
        ("stra\u00dfe{u}@example.com", "strasse{u}@example.com"),  # a local part is case-folded: one address
    ],
)
def test_the_right_merges_stay(local_server, first, second):
    tag = _id()
    _taken_then(local_server, first.format(u=tag), second.format(u=tag), 409)
