"""The local authorizer decides as API Gateway's Cognito authorizer does: forged tokens answer 401.

Each forgery goes through the local server's own entry (`local.server.invoke`), so what is checked is what
`make run` answers, before any handler runs.
"""

from __future__ import annotations

import base64
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from local import authorizer
from local.server import invoke
from local.tokens import make_token

NOW = int(time.time())


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def claims(**changes) -> dict:
    base = authorizer.id_token_claims("mallory", None, issued_at=NOW, ttl_s=3600)
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def signed(payload: dict, **headers) -> str:
    return jwt.encode(
        payload, authorizer.signing_key(), algorithm="RS256", headers={"kid": authorizer.public_jwk()["kid"], **headers}
    )


def alg_none() -> str:
    return f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(claims())}."


def hs256_with_the_public_key() -> str:
    # The classic key-confusion forgery: HMAC keyed with the (public) RSA key's PEM bytes.
    public_pem = (
        authorizer.signing_key()
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    header = {"alg": "HS256", "typ": "JWT", "kid": authorizer.public_jwk()["kid"]}
    signing_input = f"{_b64(header)}.{_b64(claims())}".encode()
    import hashlib
    import hmac

    signature = hmac.new(public_pem, signing_input, hashlib.sha256).digest()
    return signing_input.decode() + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()


def another_key() -> str:
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return jwt.encode(claims(), stranger, algorithm="RS256", headers={"kid": authorizer.public_jwk()["kid"]})


def tampered_payload() -> str:
    header, _payload, signature = signed(claims()).split(".")
    return f"{header}.{_b64(claims(sub='admin-victim'))}.{signature}"


FORGED = {
    "alg none": alg_none,
    "HS256 signed with the public key": hs256_with_the_public_key,
    "signed by another key": another_key,
    "payload swapped under a valid signature": tampered_payload,
    "wrong iss": lambda: signed(claims(iss="https://cognito-idp.us-east-1.amazonaws.com/us-east-1_other")),
    "wrong aud": lambda: signed(claims(aud="someone-elses-client")),
    "access token for another client": lambda: signed(claims(aud=None, token_use="access", client_id="other")),
    "wrong token_use": lambda: signed(claims(token_use="refresh")),
    "expired": lambda: signed(claims(iat=NOW - 7200, exp=NOW - 3600)),
    "string exp in the past": lambda: signed(claims(exp=str(NOW - 3600))),
    "string exp in the future": lambda: signed(claims(exp=str(NOW + 3600))),
    "float exp in the past": lambda: signed(claims(exp=NOW - 3600.5)),
    "boolean exp": lambda: signed(claims(exp=True)),
    "no exp": lambda: signed(claims(exp=None)),
    "nbf in the future": lambda: signed(claims(nbf=NOW + 3600)),
    "string nbf": lambda: signed(claims(nbf=str(NOW - 10))),
    "no sub": lambda: signed(claims(sub=None)),
    "unknown kid": lambda: signed(claims(), kid="another-key"),
    "not a JWT": lambda: "not.a.jwt",
}


def _status(token: str) -> tuple[int, str | None]:
    status, _headers, body = invoke("GET", "/accounts", [("Authorization", f"Bearer {token}")], b"")
    return status, json.loads(body).get("code") if body else None


@pytest.mark.parametrize("forgery", list(FORGED), ids=list(FORGED))
def test_a_forged_token_is_401(dynamodb_local, forgery):
    assert _status(FORGED[forgery]()) == (401, "unauthorized")
    assert authorizer.authorize(f"Bearer {FORGED[forgery]()}") is None


def test_the_local_tokens_pass_and_hand_over_string_claims(dynamodb_local):
    token = make_token("alice", ["admin"])
    assert authorizer.authorize(f"Bearer {token}") == {
        **{k: str(v) for k, v in claims(sub="alice").items() if k not in ("iat", "exp", "auth_time")},
        "cognito:groups": "admin",
        "iat": str(jwt.decode(token, options={"verify_signature": False})["iat"]),
        "exp": str(jwt.decode(token, options={"verify_signature": False})["exp"]),
        "auth_time": str(jwt.decode(token, options={"verify_signature": False})["auth_time"]),
    }
    assert _status(token)[0] == 200


def test_an_access_token_of_the_local_client_passes():
    token = signed(claims(aud=None, token_use="access", client_id=authorizer.CLIENT_ID))
    assert authorizer.authorize(f"Bearer {token}") is not None


def test_the_jwks_is_served_and_verifies_the_local_tokens():
    status, headers, body = invoke("GET", authorizer.JWKS_PATH, [], b"")
    assert (status, headers["Content-Type"]) == (200, "application/json")
    (jwk,) = json.loads(body)["keys"]
    assert (jwk["kty"], jwk["alg"], jwk["use"]) == ("RSA", "RS256", "sig")
    assert "d" not in jwk  # the public half only
    key = jwt.PyJWK(jwk).key
    decoded = jwt.decode(make_token("bob"), key, algorithms=["RS256"], audience=authorizer.CLIENT_ID)
    assert (decoded["sub"], decoded["iss"], decoded["token_use"]) == ("bob", authorizer.ISSUER, "id")
